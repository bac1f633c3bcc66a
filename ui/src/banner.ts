// The honest states of the link to the service, and the window's own keys. Pure and tested.
import type { Link } from './types';

export interface Banner {
  /** One plain sentence for the person. */
  text: string;
  /** The raw error, behind a Details disclosure. */
  details: string | null;
}

/**
 * The banner while the desk cannot reach its service: where, what it means for agents, that
 * it retries. None while connected (an error clears as soon as the link is back) or while the
 * first connection is being made.
 */
export function linkBanner(link: Link, url: string | null, browser = false): Banner | null {
  if (link.state !== 'disconnected') return null;
  const where = url ? ` at ${url}` : '';
  return {
    // A browser that lost its network knows nothing of the agents: it says what it knows.
    text: browser
      ? `This browser can't reach Assent${where}; the prompts shown are as last seen and wait until it is back; retrying…`
      : `Can't reach Assent${where}; agents asking now are refused; retrying…`,
    details: link.reason.trim() === '' ? null : link.reason,
  };
}

/** Whether a key closes the window: Esc (not while typing in a field) or Ctrl+W. */
export function closeKey(key: string, ctrl: boolean, typing: boolean): boolean {
  if (ctrl && (key === 'w' || key === 'W')) return true;
  return key === 'Escape' && !typing && !ctrl;
}
