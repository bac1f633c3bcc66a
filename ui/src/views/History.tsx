import { useEffect, useMemo, useState } from 'preact/hooks';
import { api } from '../api';
import { clock } from '../decide';
import { absolute, factsOf, knownRuns, relative, repoName, runTitle, runWords } from '../words';
import { auditBy, type AuditFilter, denialBy, denialSubject, deniedRuns, filterAudit, mergeDenials, undoneMessage } from '../history';
import { visible } from '../text';
import { auditScopeWords, DECISION_WORDS, decisionWords, isAccountEvent, textInWords } from '../history';
import { reviewedWords } from '../reviewer';
import type { ActionKind, Approval, AuditDecision, AuditEvent, CommandError } from '../types';

/** How much of an agent's name "asked by" shows (the whole name is its tooltip). */
const ASKED_BY_CHARS = 32;

/** The agent identity whose request a record is about, as "asked by" shows it: hidden
 * characters made visible, a long name cut short. */
function askedBy(requester: string): string {
  const chars = Array.from(visible(requester));
  return chars.length > ASKED_BY_CHARS ? `${chars.slice(0, ASKED_BY_CHARS).join('')}…` : chars.join('');
}

const DECISIONS = Object.keys(DECISION_WORDS) as AuditDecision[];

/** What kind of action a record is about, where it adds to the subject ("other" adds nothing). */
const KIND_WORDS: Partial<Record<ActionKind, string>> = {
  shell: 'command',
  file_read: 'file read',
  file_write: 'file change',
  file_delete: 'file deletion',
  network: 'network request',
  credential: 'credential',
  pr: 'pull request',
  mcp: 'MCP tool call',
};

export function History() {
  const [events, setEvents] = useState<AuditEvent[]>([]);
  const [denials, setDenials] = useState<Approval[]>([]);
  const [filter, setFilter] = useState<AuditFilter>({ run: '', repo: '', decision: '' });
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  // Sign-ins and passkey changes are about people's access, not about what agents asked:
  // hidden from the decisions until the person asks to see them.
  const [showAccount, setShowAccount] = useState(false);
  const now = Date.now();

  /** The audit trail, then the remembered denials of the runs in it that have a denial. */
  const load = async (): Promise<string | null> => {
    try {
      const list = await api.audit(null);
      setEvents(list);
      setDenials(mergeDenials(await Promise.all(deniedRuns(list).map((run) => api.denials(run)))));
      return null;
    } catch (err) {
      return (err as CommandError).message;
    }
  };
  const refresh = async () => {
    setDone(null);
    setError(await load());
  };
  useEffect(() => void refresh(), []);

  const undo = async (denial: Approval) => {
    setBusy(denial.approval_id);
    setDone(null);
    setError(null);
    let failed: string | null = null;
    try {
      await api.forgetDenial(denial.approval_id);
    } catch (err) {
      const e = err as CommandError;
      failed = e.code === 'conflict' ? `Already undone: ${e.message}` : e.message;
    }
    const reloaded = await load();
    setBusy(null);
    setError(failed ?? reloaded);
    if (failed === null) setDone(undoneMessage(denial));
  };

  const remembered = new Set(denials.map((d) => d.approval_id));
  // Runs by their agent (a denial names it; the audit does not) and the earliest moment in view.
  const runs = useMemo(() => knownRuns(denials, events), [denials, events]);
  const shown = filterAudit(events, filter).filter((e) => showAccount || filter.decision === e.decision || !isAccountEvent(e));
  const hiddenAccount = showAccount ? 0 : events.filter(isAccountEvent).length;
  const set = (patch: Partial<AuditFilter>) => setFilter((f) => ({ ...f, ...patch }));
  return (
    <div class="history">
      {denials.length > 0 && (
        <section class="remembered" data-testid="remembered-denials">
          <h2>Remembered denials</h2>
          <p class="sub">The same request in the same run is denied at once with the reason given, without asking. Undo to be asked again.</p>
          <ul>
            {denials.map((d) => (
              <li key={d.approval_id} data-testid="remembered-denial" data-approval-id={d.approval_id}>
                <span>
                  <code data-testid="denial-subject">{denialSubject(d)}</code>
                  <span class="sub">
                    {' '}
                    · <span title={runTitle(factsOf(runs, d.run_id))}>{runWords(factsOf(runs, d.run_id), now)}</span>
                    {d.repo ? ` · ${repoName(d.repo)}` : ''} · denied by <span data-testid="denial-by">{denialBy(d)}</span>
                  </span>
                </span>
                <button type="button" data-testid="undo-denial" disabled={busy !== null} onClick={() => void undo(d)}>
                  Undo
                </button>
              </li>
            ))}
          </ul>
        </section>
      )}
      {done && (
        <p class="done" data-testid="undo-done">
          {done}
        </p>
      )}
      {error && (
        <p class="error" data-testid="history-error">
          {error}
        </p>
      )}
      <div class="filters">
        <input data-testid="filter-run" placeholder="run" value={filter.run} onInput={(e) => set({ run: e.currentTarget.value })} />
        <input data-testid="filter-repo" placeholder="repo" value={filter.repo} onInput={(e) => set({ repo: e.currentTarget.value })} />
        <select data-testid="filter-decision" value={filter.decision} onChange={(e) => set({ decision: e.currentTarget.value })}>
          <option value="">any decision</option>
          {DECISIONS.map((d) => (
            <option key={d} value={d}>
              {DECISION_WORDS[d]}
            </option>
          ))}
        </select>
        <label class="check" data-testid="show-account">
          <input type="checkbox" checked={showAccount} onChange={(e) => setShowAccount(e.currentTarget.checked)} />
          Show sign-ins and passkeys{hiddenAccount > 0 ? ` (${hiddenAccount} hidden)` : ''}
        </label>
        <button onClick={() => void refresh()}>Refresh</button>
      </div>
      <div class="wide-table">
      <table>
        <thead>
          <tr>
            <th>When</th>
            <th>Decision</th>
            <th>What</th>
            <th>Scope</th>
            <th>By</th>
            <th>Until</th>
            <th>Run · repo</th>
            <th>Reason</th>
          </tr>
        </thead>
        <tbody data-testid="audit">
          {shown.map((e) => {
            const stillRemembered = e.decision === 'denied' && !!e.approval_id && remembered.has(e.approval_id);
            return (
              <tr key={e.event_id} data-testid="audit-row" data-decision={e.decision} data-approval-id={e.approval_id ?? ''} data-remembered={stillRemembered ? 'yes' : 'no'}>
                <td title={absolute(e.timestamp)}>{relative(e.timestamp, now)}</td>
                <td class={`decision ${e.decision}`} data-testid="audit-decision">
                  {decisionWords(e.decision)}
                  {stillRemembered && <div class="sub">remembered</div>}
                </td>
                <td data-testid="audit-subject">
                  <code>{textInWords(e.subject, now)}</code>
                  {KIND_WORDS[e.action_kind] && <div class="sub">{KIND_WORDS[e.action_kind]}</div>}
                  {e.requester && (
                    <div class="sub" data-testid="audit-requester" title={visible(e.requester)}>
                      asked by {askedBy(e.requester)}
                    </div>
                  )}
                </td>
                <td data-testid="audit-scope">{auditScopeWords(e.granted_scope)}</td>
                <td data-testid="audit-by">{visible(auditBy(e))}</td>
                <td data-testid="audit-until" title={e.grant_expires_at ? absolute(e.grant_expires_at) : undefined}>
                  {e.grant_expires_at ? clock(Date.parse(e.grant_expires_at), now) : ''}
                </td>
                <td title={runTitle(factsOf(runs, e.run_id))} data-testid="audit-run">
                  {runWords(factsOf(runs, e.run_id), now)}
                  {e.repo && (
                    <div class="sub" title={visible(e.repo)}>
                      {repoName(e.repo)}
                    </div>
                  )}
                </td>
                <td data-testid="audit-reason">{textInWords(reviewedWords(e) ?? e.reason, now)}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
      </div>
    </div>
  );
}
