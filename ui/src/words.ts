// Human words for what the service sends as ids and codes: roles, waiting agents, runs,
// repositories, times. Pure and tested (Vitest).
import { clock } from './decide';
import { ROLE_NAMES, visible } from './logic';
import type { Approval, Role } from './types';

const ROLE_WORDS = ROLE_NAMES;

/** "Platform admin" for `platform_admin`; null for none. */
export function roleWords(role: Role | null | undefined): string | null {
  return role ? ROLE_WORDS[role] : null;
}

/** Several roles in words: "Task author, Platform admin"; "no role". */
export function rolesWords(roles: Role[]): string {
  return roles.length === 0 ? 'no role' : roles.map((r) => ROLE_WORDS[r]).join(', ');
}

/**
 * What the detail says once the agents the window saw waiting on a prompt have all stopped
 * (`lastSeenWaiting`: when it last saw one). Null while one waits, and when none was seen
 * waiting: a prompt fetched the moment it opened may count no waiter yet, and saying "nobody
 * waits" then would be false.
 */
export function waitLine(approval: Approval, lastSeenWaiting: number | null, nowMs: number): string | null {
  if (approval.agents_waiting > 0 || lastSeenWaiting === null) return null;
  return `The agent stopped waiting at ${clock(lastSeenWaiting, nowMs)}; approving covers a retry.`;
}

/** "12 s ago", "3 min ago", "2 h ago", "3 d ago". */
export function relative(at: string, nowMs: number): string {
  const s = Math.max(0, Math.floor((nowMs - Date.parse(at)) / 1000));
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ago`;
  return `${Math.floor(s / 86400)} d ago`;
}

/** The absolute time for a hover: local date and time. */
export function absolute(at: string): string {
  const d = new Date(at);
  return Number.isNaN(d.getTime()) ? at : d.toLocaleString();
}

/** A repository by name (the last part of its path). */
export function repoName(repo: string | null | undefined): string {
  if (!repo) return '';
  const trimmed = repo.replace(/\/+$/, '');
  return visible(trimmed.split('/').pop() || trimmed);
}

/** The evidence rows of the generic packet that apply to an approval type. */
export type Field = 'command' | 'paths' | 'cwd' | 'network' | 'credentials' | 'mutation';

const FIELDS: Record<string, Field[]> = {
  tool: ['command', 'paths', 'cwd', 'network', 'credentials', 'mutation'],
  exception: ['command', 'cwd', 'network', 'credentials', 'mutation'],
  credential: ['command', 'cwd', 'network'],
  diff: ['paths', 'mutation'],
  pr: ['mutation'],
  pre_run: [],
  fleet: [],
};

/**
 * Which generic rows an approval type shows: a diff is about its files, a PR about where it
 * goes, a fleet campaign or a run that asks before it starts about its packet — a "Cwd: /" or
 * "Network: none" there would be noise, or worse, a wrong reassurance.
 */
export function fieldsFor(type: string): Set<Field> {
  return new Set(FIELDS[type] ?? FIELDS.tool);
}

/** "Task author, Platform admin" style for an approver: "alice (Platform admin)". */
export function byWords(name: string, role: Role | null | undefined): string {
  const r = roleWords(role);
  return visible(r ? `${name} (${r})` : name);
}

/** "7 h 59 min", "12 min", "40 s" left until `at`; "expired". */
export function leftWords(at: string, nowMs: number): string {
  const s = Math.floor((Date.parse(at) - nowMs) / 1000);
  if (!(s > 0)) return 'expired';
  if (s < 60) return `${s} s left`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min left`;
  const h = Math.floor(m / 60);
  if (h >= 48) return `${Math.floor(h / 24)} d left`;
  return m % 60 === 0 ? `${h} h left` : `${h} h ${m % 60} min left`;
}

/** "not used yet", "used once", "used 3 times", "used 2 of 5 times". */
export function usedWords(used: number, max: number | null): string {
  if (max !== null) return `used ${used} of ${max} ${max === 1 ? 'time' : 'times'}`;
  if (used === 0) return 'not used yet';
  return used === 1 ? 'used once' : `used ${used} times`;
}

/** A grant as a sentence: "Allows maven-test for run run-1 · 7 h 59 min left · used once". */
export function grantLine(summary: string, expiresAt: string, used: number, max: number | null, nowMs: number): string {
  return `Allows ${visible(summary.replace(/`+/g, ''))} · ${leftWords(expiresAt, nowMs)} · ${usedWords(used, max)}`;
}
