import { describe, expect, it } from 'vitest';
import { canApply, changeText, outcomeText, suggestionRows } from './suggestions';
function trust(repo) {
    return { id: `id-${repo}`, change: { change: 'trust_repo', repo }, evidence: `\`npm-test\` approved 14 of 14 times in ${repo}`, decisions: 14 };
}
const applied = {
    state: 'applied',
    answer: { policy_version: 'abcdef0123456789', path: '/data/policy.toml', applied: 'trusted_repos += /src/shop' },
};
describe('suggestions', () => {
    it('says what a change does in words', () => {
        expect(changeText({ change: 'trust_repo', repo: '/src/shop' }), 'trusting a repo').toBe('Trust /src/shop: its verifier commands run without asking');
        expect(changeText({ change: 'block_command', pattern: 'git push origin main' }), 'blocking a command').toBe('Block "git push origin main" instead of asking');
        expect(changeText({ change: 'block_command', pattern: 'rm\u202e -rf' }), 'agent text is shown with its hidden characters visible').toContain('\\u{202e}');
    });
    it('says what came of applying', () => {
        expect(outcomeText(applied), 'applied: what changed and the new version').toBe('Applied: trusted_repos += /src/shop. In force now (policy abcdef012345).');
        expect(outcomeText({ state: 'error', error: { code: 'conflict', message: 'trusted_repos += /src/shop is not suggested (any more)' } }), "the service's own message").toBe('Not applied: trusted_repos += /src/shop is not suggested (any more)');
        expect(outcomeText({ state: 'error', error: { code: 'unavailable', message: 'connection refused' } }), 'a service that is down is named').toContain('cannot be reached');
    });
    it('keeps an applied suggestion on screen after the list refreshes without it', () => {
        const shop = trust('/src/shop');
        const web = trust('/src/web');
        const outcomes = new Map([[shop.id, { suggestion: shop, outcome: applied }]]);
        const rows = suggestionRows([web], outcomes);
        expect(rows.map((r) => [r.suggestion.id, r.listed, r.outcome?.state]), 'the listed one first, then the applied one no longer listed, with its outcome').toEqual([
            [web.id, true, undefined],
            [shop.id, false, 'applied'],
        ]);
        expect(rows.map(canApply), 'only the listed, unapplied one can be applied').toEqual([true, false]);
    });
    it('offers Apply again after an error but not while applying', () => {
        const shop = trust('/src/shop');
        const failed = suggestionRows([shop], new Map([[shop.id, { suggestion: shop, outcome: { state: 'error', error: { code: 'local', message: 'x' } } }]]));
        expect(canApply(failed[0]), 'a failed apply may be tried again').toBe(true);
        const busy = suggestionRows([shop], new Map([[shop.id, { suggestion: shop, outcome: { state: 'applying' } }]]));
        expect(canApply(busy[0]), 'no second click while the first is on its way').toBe(false);
    });
});
