import { describe, expect, it } from 'vitest';
import { visible } from './text';

describe('visible', () => {
  it('shows hidden characters as escapes and leaves ordinary text alone', () => {
    expect(visible('a\u202eb\u200bc\nd\u0007'), 'bidi, zero-width and controls are shown').toBe('a\\u{202e}b\\u{200b}c\\nd\\u{0007}');
    expect(visible('cargo test é 日本'), 'letters stay').toBe('cargo test é 日本');
    expect(visible('cat notes\u{E003B}\u{E0072}\u{E006D}'), 'a string spelled in tag characters is shown, not hidden').toBe('cat notes\\u{e003b}\\u{e0072}\\u{e006d}');
    expect(visible('re\u{E0101}port pass\u00adwd'), 'a supplementary variation selector and a soft hyphen are shown').toBe('re\\u{e0101}port pass\\u{00ad}wd');
    expect(visible('✅ done ✨'), 'emoji stay').toBe('✅ done ✨');
  });
});
