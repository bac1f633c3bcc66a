import { describe, expect, it } from 'vitest';
import { campaignLine, canResume, stageRows, unstaged } from './campaigns';
function campaign(over = {}) {
    return {
        campaign_id: 'java21',
        definition: {
            name: 'java21',
            target_repos: ['svc-a', 'svc-b', 'svc-c', 'svc-d', 'legacy'],
            selection_criteria: 'Java 17',
            excluded_repos: ['legacy'],
            prompt_contract: 'x',
            risk: 'high',
            verifier_profile: 'maven-test',
            sample_diff: 'x',
            expected_pr_body: 'x',
            cost_estimate: 'x',
            failure_threshold: 2,
        },
        status: 'active',
        approval_id: 'a0',
        stages: [
            { number: 1, repos: ['svc-a', 'svc-b'], status: 'approved', approval_id: 'a1', proposed_at: '2026-03-01T09:00:00Z' },
            { number: 2, repos: ['svc-c'], status: 'proposed', approval_id: 'a2', proposed_at: '2026-03-01T10:00:00Z' },
        ],
        outcomes: [{ repo: 'svc-a', result: 'failed', reported_by: 'ci', at: '2026-03-01T09:30:00Z' }],
        created_by: 'default',
        created_at: '2026-03-01T08:00:00Z',
        updated_at: '2026-03-01T10:00:00Z',
        ...over,
    };
}
describe('campaigns', () => {
    it('lists each batch with its outcomes', () => {
        const rows = stageRows(campaign());
        expect(rows[0].repos, 'an approved batch runs until a repository reports').toEqual([
            { repo: 'svc-a', outcome: 'failed' },
            { repo: 'svc-b', outcome: 'running' },
        ]);
        expect(rows[0].failed, 'failures are counted per stage').toBe(1);
        expect(rows[1].repos[0].outcome, 'a proposed batch waits for its approval').toBe('waiting');
    });
    it('counts what is left to stage without the excluded repositories', () => {
        expect(unstaged(campaign()), 'svc-d is the only target left').toEqual(['svc-d']);
        const denied = campaign({
            stages: [{ number: 1, repos: ['svc-a'], status: 'denied', approval_id: 'a1', proposed_at: '2026-03-01T09:00:00Z' }],
        });
        expect(unstaged(denied), "a denied stage's repositories return to the pool").toEqual(['svc-a', 'svc-b', 'svc-c', 'svc-d']);
    });
    it('says why a campaign stopped and offers resume only then', () => {
        const stopped = campaign({ status: 'stopped', stop_reason: '2 repositories failed' });
        expect(campaignLine(stopped), 'the stop reason and the threshold are shown').toBe('stopped: 2 repositories failed · 0 passed, 1/2 failed · 1 not staged');
        expect(canResume(stopped), 'a stopped campaign can be resumed').toBe(true);
        expect(canResume(campaign()), 'an active one has nothing to resume').toBe(false);
    });
});
