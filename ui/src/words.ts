// Human words for what the service sends as ids and codes: roles, waiting agents, runs,
// repositories, times. Pure and tested (Vitest).
import { actorWords } from './reviewer';
import { clock } from './decide';
import { ROLE_NAMES } from './labels';
import { visible } from './text';
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
 * What the detail says once the agents waiting on a prompt have all stopped: when the service
 * says so (`agents_stopped_waiting_at`, announced live on `approval.waiting`), else when the
 * window last saw one waiting (`lastSeenWaiting`). Null while one waits, and when none was
 * seen waiting: a prompt fetched the moment it opened may count no waiter yet, and saying
 * "nobody waits" then would be false.
 */
export function waitLine(approval: Approval, lastSeenWaiting: number | null, nowMs: number): string | null {
  if (approval.agents_waiting > 0) return null;
  const said = approval.agents_stopped_waiting_at ? Date.parse(approval.agents_stopped_waiting_at) : NaN;
  const at = Number.isNaN(said) ? lastSeenWaiting : said;
  if (at === null) return null;
  return `The agent stopped waiting at ${clock(at, nowMs)}; approving covers a retry.`;
}

const UNANSWERED: Record<Approval['fallback_on_timeout'], string> = {
  deny: 'denied',
  pause: 'the run pauses',
  cancel_run: 'the run is cancelled',
};

/**
 * When the prompt gives up if nobody answers, and what happens then — in the packet, where
 * the person reads before deciding: "denied at 15:00 · 59 min left". Past that moment the
 * prompt is settled by itself and the agent is told.
 */
export function unansweredLine(approval: Pick<Approval, 'expires_at' | 'fallback_on_timeout'>, nowMs: number): string {
  const at = Date.parse(approval.expires_at);
  const what = UNANSWERED[approval.fallback_on_timeout] ?? visible(approval.fallback_on_timeout);
  return `${what} at ${clock(at, nowMs)} · ${leftWords(approval.expires_at, nowMs)}`;
}

/** "12 s ago", "3 min ago", "2 h ago", "3 d ago". */
export function relative(at: string, nowMs: number): string {
  const s = Math.max(0, Math.floor((nowMs - Date.parse(at)) / 1000));
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ago`;
  return `${Math.floor(s / 86400)} d ago`;
}

/** The fields `Date.prototype.toLocaleString()` writes by default — local date and time — on
 * a 24-hour clock, the one time format the desk uses everywhere ("14:05", never "2:05 PM"). */
export const DATE_TIME: Intl.DateTimeFormatOptions = {
  year: 'numeric',
  month: 'numeric',
  day: 'numeric',
  hour: 'numeric',
  minute: 'numeric',
  second: 'numeric',
  hourCycle: 'h23',
};

/** One formatter for every absolute time, made again once a minute so a change of the
 * system's time zone or language shows within one. `toLocaleString()` builds ICU's date
 * formatter anew on every call, which dominated the web process's CPU while prompts arrived
 * into a long list. */
let localDateTime: { made: number; format: Intl.DateTimeFormat } | null = null;

function localFormat(nowMs: number): Intl.DateTimeFormat {
  if (localDateTime === null || Math.abs(nowMs - localDateTime.made) > 60_000) {
    localDateTime = { made: nowMs, format: new Intl.DateTimeFormat(undefined, DATE_TIME) };
  }
  return localDateTime.format;
}

/** The absolute time for a hover: local date and time (an unreadable time as it came). */
export function absolute(at: string | number): string {
  const d = new Date(at);
  return Number.isNaN(d.getTime()) ? String(at) : localFormat(Date.now()).format(d);
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
  const who = actorWords(name);
  return visible(r ? `${who} (${r})` : who);
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

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const two = (n: number) => String(n).padStart(2, '0');

/**
 * A calendar day (`YYYY-MM-DD`) as people say it: "Mon 30 Nov" (`long`) or "30 Nov"
 * (`short`). The day is a name, not an instant, so no time zone enters.
 */
export function dayWords(day: string, style: 'long' | 'short' = 'long'): string {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (!match) return visible(day);
  const [year, month, date] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const short = `${date} ${MONTHS[month - 1] ?? ''}`;
  return style === 'short' ? short : `${WEEKDAYS[new Date(Date.UTC(year, month - 1, date)).getUTCDay()]} ${short}`;
}

/** "14:00" for the hour 14 of a day. */
export function hourWords(hour: number): string {
  return `${two(((hour % 24) + 24) % 24)}:00`;
}

/**
 * A moment in local time, as short as it can be without being ambiguous: "14:02" today,
 * "yesterday 14:02", "Mon 14:02" within the week, "30 Nov 14:02" this year, "30 Nov 2029 14:02".
 */
export function whenWords(at: number, nowMs: number): string {
  const d = new Date(at);
  const hm = `${two(d.getHours())}:${two(d.getMinutes())}`;
  const now = new Date(nowMs);
  const dayStart = (x: Date) => new Date(x.getFullYear(), x.getMonth(), x.getDate()).getTime();
  const daysAgo = Math.round((dayStart(now) - dayStart(d)) / 86_400_000);
  if (daysAgo === 0) return hm;
  if (daysAgo === 1) return `yesterday ${hm}`;
  if (daysAgo > 1 && daysAgo < 7) return `${WEEKDAYS[d.getDay()]} ${hm}`;
  const date = `${d.getDate()} ${MONTHS[d.getMonth()]}`;
  return d.getFullYear() === now.getFullYear() ? `${date} ${hm}` : `${date} ${d.getFullYear()} ${hm}`;
}

const SUBMITTERS: Record<string, string> = {
  agent: 'agent',
  'tool-runtime': 'tool runtime',
  verifier: 'verifier',
  'pr-orchestrator': 'PR orchestrator',
};

/** Who asked, from the approval's `requester` (an identity's name) and `requested_by`: "agent default", "verifier ci". */
export function agentWords(requester: string | null | undefined, requestedBy: string): string {
  const kind = SUBMITTERS[requestedBy] ?? visible(requestedBy);
  const name = visible((requester ?? '').trim());
  return name === '' ? kind : `${kind} ${name}`;
}

/** A run id short enough to read: the first 8 characters of a session id (hex, UUID), else at most 12. */
export function runShortId(runId: string): string {
  const id = visible(runId);
  if (/^[0-9a-f-]{16,}$/i.test(id)) return id.slice(0, 8);
  return [...id].length > 12 ? `${[...id].slice(0, 11).join('')}…` : id;
}

/** What the window knows of a run: who asked in it, and the earliest moment it saw the run. */
export interface RunFacts {
  runId: string;
  /** From an approval of the run (the audit does not name the agent); null when none is in view. */
  agent: string | null;
  /** The earliest prompt or decision of the run in view: the service does not say when a run started. */
  firstSeen: number | null;
}

type RunApproval = Pick<Approval, 'run_id' | 'created_at' | 'requester' | 'requested_by'>;
type RunEvent = { run_id: string; timestamp: string };

/** The runs in view, each with its agent and the earliest time any of its approvals or events carries. */
export function knownRuns(approvals: RunApproval[], events: RunEvent[] = []): Map<string, RunFacts> {
  const runs = new Map<string, RunFacts>();
  const see = (runId: string, at: number, agent: string | null) => {
    const found = runs.get(runId) ?? { runId, agent: null, firstSeen: null };
    if (Number.isFinite(at) && (found.firstSeen === null || at < found.firstSeen)) found.firstSeen = at;
    found.agent ??= agent;
    runs.set(runId, found);
  };
  for (const a of approvals) see(a.run_id, Date.parse(a.created_at), agentWords(a.requester, a.requested_by));
  for (const e of events) see(e.run_id, Date.parse(e.timestamp), null);
  return runs;
}

/** The facts of `runId` in `runs`, or only its id when nothing else is known. */
export function factsOf(runs: Map<string, RunFacts>, runId: string): RunFacts {
  return runs.get(runId) ?? { runId, agent: null, firstSeen: null };
}

/**
 * A run named by its agent, its start as far as the window knows it, and a short id:
 * "agent default · first seen 14:02 · run 3f9a1c2b". Without an agent in view the run leads:
 * "run 3f9a1c2b · first seen 14:02".
 */
export function runWords(run: RunFacts, nowMs: number): string {
  const id = `run ${runShortId(run.runId)}`;
  const seen = run.firstSeen === null ? null : `first seen ${whenWords(run.firstSeen, nowMs)}`;
  const parts = run.agent === null ? [id, seen] : [run.agent, seen, id];
  return parts.filter((p) => p !== null).join(' · ');
}

/** The hover of a run: its full id (to copy), and why the time says "first seen". */
export function runTitle(run: RunFacts): string {
  const seen =
    run.firstSeen === null
      ? ''
      : `\nFirst seen ${absolute(run.firstSeen)} (its earliest prompt or decision in view; the service does not say when a run started)`;
  return `Run ${visible(run.runId)}${run.agent ? `\nAsked by ${run.agent}` : ''}${seen}`;
}

/** A run paused by an unanswered prompt: "agent default · first seen 14:02 · run 3f9a1c2b — paused awaiting a person · paused 3 min ago". */
export function heldRunWords(run: RunFacts, reason: string | null | undefined, pausedAt: string | null | undefined, nowMs: number): string {
  const why = reason ? visible(reason) : 'paused awaiting a person';
  const since = pausedAt ? ` · paused ${relative(pausedAt, nowMs)}` : '';
  return `${runWords(run, nowMs)} — ${why}${since}`;
}

const RULE_WORDS: Record<string, string> = {
  'ask.analysis_mode': 'Acts while in analysis mode',
  'ask.capability': 'Uses a capability',
  'ask.ci_config': 'Changes CI configuration',
  'ask.credential': 'Uses a credential',
  'ask.delete': 'Deletes files',
  'ask.dependency_config': 'Changes dependencies',
  'ask.deploy_config': 'Changes production deployment',
  'ask.diff_review': 'Code change to review',
  'ask.discard_work': 'Discards uncommitted work',
  'ask.dynamic_command': 'Command built at run time',
  'ask.env_override': 'Overrides the environment',
  'ask.git_config': 'Changes git configuration',
  'ask.git_push': 'Pushes with git',
  'ask.high_risk_task': 'Acts in a high-risk task',
  'ask.history_rewrite': 'Rewrites git history',
  'ask.install': 'Installs packages',
  'ask.interpreter': 'Runs inline code',
  'ask.mcp': 'Calls an MCP tool',
  'ask.network': 'Reaches the network',
  'ask.outside_repo': 'Acts outside the repository',
  'ask.privileged': 'Runs with privileges',
  'ask.publish': 'Publishes (a push, a pull request or a package)',
  'ask.script': 'Runs a script',
  'ask.secret_written': 'Writes a secret into a file',
  'ask.security_config': 'Changes security settings',
  'ask.security_tooling': 'Touches security tooling',
  'ask.suspicious_text': 'Carries hidden characters',
  'ask.unknown': 'Unknown command',
  'ask.unparsed': 'Command not understood',
  'ask.unresolved_path': 'Path not resolved',
  'escalate.capability': 'Uses a capability (escalated)',
  'escalate.cloud': 'Changes cloud resources (escalated)',
  'escalate.pipe_to_shell': 'Pipes a download into a shell (escalated)',
  'escalate.security_tooling': 'Touches security tooling (escalated)',
  pre_run: 'Run asks before it starts',
  fleet: 'Fleet campaign',
};

/**
 * A policy rule in words: "Reaches the network" for `ask.network`, "Command profile maven-test"
 * for `profile.maven-test`; a rule this list does not know is read from its id ("Ask: cache
 * purge" for `ask.cache_purge`). The id itself stays behind a hover or Details.
 */
export function ruleWords(rule: string): string {
  const known = RULE_WORDS[rule];
  if (known) return known;
  const [family, ...rest] = rule.split('.');
  const name = visible(rest.join('.').replace(/_/g, ' '));
  if (family === 'profile' && name !== '') return `Command profile ${name}`;
  const verbs: Record<string, string> = { ask: 'Ask', escalate: 'Escalate', block: 'Block', auto: 'Allow' };
  const verb = family === undefined ? undefined : verbs[family];
  return verb && name !== '' ? `${verb}: ${name}` : visible(rule);
}

/** Who may decide a prompt needing `role`, in words. */
function holders(role: Role | null | undefined): string {
  return role ? `everyone with role ${ROLE_WORDS[role]}` : 'everyone who may decide it';
}

/**
 * Who the prompt asked (the policy's `[routing]`): "Asked alice, bob · escalated to everyone
 * with role Platform admin at 12:05 (carol)". Null when the service did not say.
 */
export function askedLine(approval: Approval, nowMs: number): string | null {
  const asked = approval.asked;
  if (!asked) return null;
  const people = asked.people.map(visible).join(', ') || 'nobody';
  const role = holders(approval.required_role);
  const first =
    asked.basis === 'present'
      ? `Asked ${people}`
      : asked.basis === 'nobody_present'
        ? `Asked ${role} (${people}): nobody was present`
        : `Asked ${role} (${people})`;
  if (!asked.escalated_at) return first;
  const newly = asked.escalated_to.length ? asked.escalated_to.map(visible).join(', ') : 'nobody new';
  return `${first} · escalated to ${role} at ${clock(Date.parse(asked.escalated_at), nowMs)} (${newly})`;
}
