// Agent text made safe to read: hidden characters shown as escapes. Every view uses it.

/** Control, bidi, zero-width and tag characters shown as visible escapes (`\n`, `\u{202e}`);
 * the service's `assent_core::is_invisible` is the same list. */
export function visible(text: string): string {
  let out = '';
  for (const ch of text) {
    const code = ch.codePointAt(0) ?? 0;
    if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (isHidden(code)) out += `\\u{${code.toString(16).padStart(4, '0')}}`;
    else out += ch;
  }
  return out;
}

function isHidden(code: number): boolean {
  return (
    code < 0x20 || (code >= 0x7f && code <= 0x9f) || (code >= 0x200b && code <= 0x200f) ||
    (code >= 0x202a && code <= 0x202e) || (code >= 0x2060 && code <= 0x2064) || (code >= 0x2066 && code <= 0x2069) ||
    code === 0x061c || code === 0x180e || code === 0xfeff || code === 0x00ad ||
    // Tag characters and supplementary variation selectors: a whole string can hide in them.
    (code >= 0xe0000 && code <= 0xe007f) || (code >= 0xe0100 && code <= 0xe01ef)
  );
}
