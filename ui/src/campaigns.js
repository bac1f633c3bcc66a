// Fleet campaigns as the Campaigns view shows them: the wire types of `GET /v1/campaigns`
// (kept here until the generated types land) and the pure logic of the view.
/** Each stage's repositories with their outcomes: a repository of an approved stage without a
 * report is running; of a stage not (yet) approved, waiting. */
export function stageRows(campaign) {
    const outcome = new Map(campaign.outcomes.map((o) => [o.repo, o.result]));
    return campaign.stages.map((stage) => {
        const repos = stage.repos.map((repo) => ({
            repo,
            outcome: outcome.get(repo) ?? (stage.status === 'approved' ? 'running' : 'waiting'),
        }));
        return {
            number: stage.number,
            status: stage.status,
            repos,
            passed: repos.filter((r) => r.outcome === 'passed').length,
            failed: repos.filter((r) => r.outcome === 'failed').length,
        };
    });
}
/** Targets no stage holds yet (excluded ones never count). */
export function unstaged(campaign) {
    const staged = new Set(campaign.stages.filter((s) => s.status !== 'denied').flatMap((s) => s.repos));
    const excluded = new Set(campaign.definition.excluded_repos);
    return campaign.definition.target_repos.filter((r) => !staged.has(r) && !excluded.has(r));
}
/** One line under the campaign's name: its state, failures against the threshold, what is left. */
export function campaignLine(campaign) {
    const failed = campaign.outcomes.filter((o) => o.result === 'failed').length;
    const passed = campaign.outcomes.filter((o) => o.result === 'passed').length;
    const threshold = campaign.definition.failure_threshold;
    const left = unstaged(campaign).length;
    const state = campaign.status === 'stopped'
        ? `stopped: ${campaign.stop_reason ?? 'failure threshold reached'}`
        : campaign.status === 'proposed'
            ? 'definition awaits approval'
            : campaign.status;
    return `${state} · ${passed} passed, ${failed}/${threshold} failed · ${left} not staged`;
}
/** Only a stopped campaign can be resumed, by a person. */
export function canResume(campaign) {
    return campaign.status === 'stopped';
}
