// The Settings view's logic. Pure and tested (Vitest).
import type { AuditBreak, AuditReport } from './types';
import { clock } from './decide';
import { absolute } from './words';

/** Notifications paused: "until 14:05" on the desk's 24-hour clock (never "2:05:00 PM"),
 * "until resumed", "notifications off" or "not paused". */
export function pauseWords(paused: string | null | undefined, nowMs: number): string {
  if (!paused) return 'not paused';
  if (paused === 'until_resumed') return 'until resumed';
  if (paused === 'off') return 'notifications off';
  const at = Date.parse(paused);
  return Number.isNaN(at) ? `until ${paused}` : `until ${clock(at, nowMs)}`;
}

/**
 * What the screen says when `ASSENT_URL` and `ASSENT_TOKEN` in the environment choose the
 * service: the saved URL and token do not apply until Assent starts without them. Null when
 * they do not both override (the desk needs both to use the environment).
 */
export function envOverride(names: string[]): string | null {
  if (!(names.includes('ASSENT_URL') && names.includes('ASSENT_TOKEN'))) return null;
  return 'ASSENT_URL and ASSENT_TOKEN are set in the environment: they choose the service, so the URL and token saved here apply only when Assent starts without them.';
}

/** What a save says: "Saved.", then what did not take (start at login) and what overrides it. */
export function savedWords(autostartError: string | undefined, overridden: string | null): string {
  const autostart = autostartError ? ` Start at login was not changed: ${autostartError}.` : '';
  return `Saved.${autostart}${overridden ? ` ${overridden}` : ''}`;
}

/** The deny reasons typed one per line: trimmed, blank lines dropped. */
export function reasonLines(text: string): string[] {
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
}

/** The key's fingerprint (its id, 16 hex digits) in groups of four, read aloud more easily. */
export function fingerprint(keyId: string): string {
  return (keyId.match(/.{1,4}/g) ?? []).join(' ');
}

/** One break in words, as `assent audit verify` prints it. */
export function describeBreak(b: AuditBreak): string {
  switch (b.kind) {
    case 'changed':
      return `event ${b.chain_seq} (${b.event_id}) was changed: its hash is not the hash of what it holds`;
    case 'missing':
      return `events missing after ${b.after}: the next one is ${b.found}`;
    case 'relinked':
      return `event ${b.chain_seq} (${b.event_id}) does not follow the event before it (moved, swapped or forged)`;
    case 'unlinked':
      return `event ${b.event_id} has no link: inserted outside the service`;
    case 'checkpoint':
      return `checkpoint ${b.id} no longer matches: ${b.why}`;
    case 'signature':
      return `checkpoint ${b.id}: its signature does not verify with key ${b.key_id}`;
    case 'uncovered':
      return `event ${b.chain_seq} (${b.event_id}): an execution no auto decision, grant or approval covered`;
    case 'before_chain':
      return `event ${b.event_id} from before the chain: ${b.why}`;
    case 'chain_start':
      return `the signed record of the events before the chain: ${b.why}`;
  }
}

/** How many breaks the warning lists before "and N more". */
export const BREAKS_SHOWN = 10;

/** What Settings says about the check: a quiet line when the chain holds, a warning that
 * says where and how it breaks when it does not. `when` formats a time (the page's locale). */
export function auditSummary(
  report: AuditReport,
  when: (iso: string) => string = absolute,
): { ok: boolean; headline: string; lines: string[] } {
  const n = (count: number, one: string, many = `${one}s`) => `${count.toLocaleString('en')} ${count === 1 ? one : many}`;
  const old = report.before_chain > 0 ? ` ${n(report.before_chain, 'event')} from before the chain started are not covered.` : '';
  if (report.ok) {
    const signed = report.last_checkpoint_at
      ? `last checkpoint at ${when(report.last_checkpoint_at)} (event ${report.last_checkpoint_seq})`
      : 'no checkpoint yet';
    return { ok: true, headline: `Verified ${n(report.events, 'event')}, ${signed}.${old}`, lines: [] };
  }
  const broken = report.breaks.filter((b) => b.kind !== 'uncovered').length;
  const uncovered = report.breaks.length - broken;
  const what = [broken > 0 ? n(broken, 'broken link') : '', uncovered > 0 ? n(uncovered, 'uncovered execution') : '']
    .filter((w) => w !== '')
    .join(' and ');
  const first = report.breaks[0];
  const headline = `The audit does not hold: ${what}. ${first ? `First: ${describeBreak(first)}.` : ''}`.trim();
  const lines = report.breaks.slice(0, BREAKS_SHOWN).map(describeBreak);
  if (report.breaks.length > BREAKS_SHOWN) lines.push(`and ${report.breaks.length - BREAKS_SHOWN} more (assent audit verify lists them all)`);
  return { ok: false, headline, lines };
}
