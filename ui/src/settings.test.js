import { describe, expect, it } from 'vitest';
import { envOverride, reasonLines } from './settings';
describe('settings', () => {
    it('says when the environment chooses the service', () => {
        expect(envOverride(['ASSENT_URL', 'ASSENT_TOKEN']), 'both set: the screen says they win').toContain('they choose the service');
        expect(envOverride(['ASSENT_URL']), 'one alone overrides nothing').toBeNull();
        expect(envOverride([]), 'none set').toBeNull();
    });
    it('reads deny reasons one per line', () => {
        expect(reasonLines(' out of scope \n\nask me first\n'), 'trimmed, blank lines dropped').toEqual(['out of scope', 'ask me first']);
    });
});
