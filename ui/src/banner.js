/**
 * The banner while the desk cannot reach its service: where, what it means for agents, that
 * it retries. None while connected (an error clears as soon as the link is back) or while the
 * first connection is being made.
 */
export function linkBanner(link, url) {
    if (link.state !== 'disconnected')
        return null;
    const where = url ? ` at ${url}` : '';
    return {
        text: `Can't reach Assent${where}; agents asking now are refused; retrying…`,
        details: link.reason.trim() === '' ? null : link.reason,
    };
}
/** Whether a key closes the window: Esc (not while typing in a field) or Ctrl+W. */
export function closeKey(key, ctrl, typing) {
    if (ctrl && (key === 'w' || key === 'W'))
        return true;
    return key === 'Escape' && !typing && !ctrl;
}
