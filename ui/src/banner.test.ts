import { describe, expect, it } from 'vitest';
import { closeKey, linkBanner } from './banner';

describe('the lost-service banner', () => {
  it('says where, what it means for agents and that it retries, with the raw error apart', () => {
    const banner = linkBanner({ state: 'disconnected', reason: 'error sending request: connection refused (os error 111)' }, 'http://127.0.0.1:7391');
    expect(banner?.text, 'one plain sentence').toBe("Can't reach Assent at http://127.0.0.1:7391; agents asking now are refused; retrying…");
    expect(banner?.details, 'the raw error goes behind Details').toBe('error sending request: connection refused (os error 111)');
  });

  it('is gone as soon as the link is back, and not shown while first connecting', () => {
    expect(linkBanner({ state: 'connected' }, 'http://x'), 'connected: no banner').toBeNull();
    expect(linkBanner({ state: 'connecting' }, 'http://x'), 'connecting: no alarm yet').toBeNull();
    expect(linkBanner({ state: 'disconnected', reason: '' }, null)?.text, 'without a URL it still reads').toBe("Can't reach Assent; agents asking now are refused; retrying…");
  });

  it('in a browser says what the browser knows: its own link, not the agents', () => {
    const text = linkBanner({ state: 'disconnected', reason: 'Failed to fetch' }, 'https://assent.example', true)?.text ?? '';
    expect(text, 'the browser lost the service, which may still answer agents').toBe(
      "This browser can't reach Assent at https://assent.example; the prompts shown are as last seen and wait until it is back; retrying…",
    );
    expect(text, 'no claim about agents it cannot know').not.toContain('agents');
  });
});

describe('keys that close the window', () => {
  it('closes on Esc and Ctrl+W, never while typing Esc into a field', () => {
    expect(closeKey('Escape', false, false), 'Esc closes').toBe(true);
    expect(closeKey('w', true, false), 'Ctrl+W closes').toBe(true);
    expect(closeKey('w', true, true), 'Ctrl+W closes even from a field').toBe(true);
    expect(closeKey('Escape', false, true), 'Esc in a field does not close').toBe(false);
    expect(closeKey('w', false, false), 'a plain w does nothing').toBe(false);
  });
});
