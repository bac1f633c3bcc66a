import { useEffect, useState } from 'preact/hooks';
import { api } from '../api';
import { auditBy, filterAudit, visible, type AuditFilter } from '../logic';
import type { AuditEvent, CommandError } from '../types';

const DECISIONS = ['', 'auto', 'approved', 'denied', 'blocked', 'expired', 'revoked', 'used', 'executed', 'resumed'];

export function History() {
  const [events, setEvents] = useState<AuditEvent[]>([]);
  const [filter, setFilter] = useState<AuditFilter>({ run: '', repo: '', decision: '' });
  const [error, setError] = useState<string | null>(null);

  const load = () =>
    api
      .audit(null)
      .then((list) => {
        setEvents(list);
        setError(null);
      })
      .catch((err: CommandError) => setError(err.message));
  useEffect(() => void load(), []);

  const shown = filterAudit(events, filter);
  const set = (patch: Partial<AuditFilter>) => setFilter((f) => ({ ...f, ...patch }));
  return (
    <div class="history">
      <div class="filters">
        <input data-testid="filter-run" placeholder="run" value={filter.run} onInput={(e) => set({ run: e.currentTarget.value })} />
        <input data-testid="filter-repo" placeholder="repo" value={filter.repo} onInput={(e) => set({ repo: e.currentTarget.value })} />
        <select data-testid="filter-decision" value={filter.decision} onChange={(e) => set({ decision: e.currentTarget.value })}>
          {DECISIONS.map((d) => (
            <option key={d} value={d}>
              {d === '' ? 'any decision' : d}
            </option>
          ))}
        </select>
        <button onClick={() => void load()}>Refresh</button>
        {error && <span class="error">{error}</span>}
      </div>
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
          {shown.map((e) => (
            <tr key={e.event_id} data-testid="audit-row" data-decision={e.decision} data-approval-id={e.approval_id ?? ''}>
              <td>{new Date(e.timestamp).toLocaleString()}</td>
              <td class={`decision ${e.decision}`}>{e.decision}</td>
              <td data-testid="audit-subject">
                <code>{visible(e.subject ?? '')}</code>
                <div class="sub">{e.action_kind}</div>
              </td>
              <td data-testid="audit-scope">{e.granted_scope ?? ''}</td>
              <td data-testid="audit-by">{visible(auditBy(e))}</td>
              <td data-testid="audit-until">{e.grant_expires_at ? new Date(e.grant_expires_at).toLocaleString() : ''}</td>
              <td>
                {visible(e.run_id)}
                {e.repo && <div class="sub">{visible(e.repo)}</div>}
              </td>
              <td>{visible(e.reason)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
