// The desk as a whole (app.tsx, the web desk): the empty desk before the first read, the prompt
// a URL names, who is signed in.
import { ROLE_NAMES } from './labels';
import type { DeskSnapshot, Me } from './types';

/** The prompt a URL fragment points at (`#/pending/<id>`). */
export function focusFromHash(hash: string): string | null {
  const match = /^#\/pending\/([A-Za-z0-9_-]{1,128})$/.exec(hash);
  return match ? (match[1] ?? null) : null;
}

/** "Signed in as owner · task_author, platform_admin" (an agent's token says it never decides). */
export function signedIn(me: Me | null): string {
  if (me === null) return 'signing in…';
  if (me.kind !== 'person') return `Signed in as ${me.name} (an agent: decides nothing)`;
  return `Signed in as ${me.name} · ${me.roles.length > 0 ? me.roles.map((r) => ROLE_NAMES[r]).join(', ') : 'no role'}`;
}

/** The desk before the service answered: nothing pending, still connecting. */
export const EMPTY_DESK: DeskSnapshot = { link: { state: 'connecting' }, me: null, pending: [], grants: [], held_runs: [], paused: null, settled: [] };

