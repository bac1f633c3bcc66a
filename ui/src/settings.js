// The Settings view's logic. Pure and tested (Vitest).
/**
 * What the screen says when `ASSENT_URL` and `ASSENT_TOKEN` in the environment choose the
 * service: the saved URL and token do not apply until Assent starts without them. Null when
 * they do not both override (the desk needs both to use the environment).
 */
export function envOverride(names) {
    if (!(names.includes('ASSENT_URL') && names.includes('ASSENT_TOKEN')))
        return null;
    return 'ASSENT_URL and ASSENT_TOKEN are set in the environment: they choose the service, so the URL and token saved here apply only when Assent starts without them.';
}
/** The deny reasons typed one per line: trimmed, blank lines dropped. */
export function reasonLines(text) {
    return text
        .split('\n')
        .map((l) => l.trim())
        .filter((l) => l !== '');
}
