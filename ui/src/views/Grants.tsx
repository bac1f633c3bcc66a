import { useEffect, useState } from 'preact/hooks';
import { api } from '../api';
import { grantEndWords, grantId, grantReach, grantWhat, scopeWords } from '../grants';
import { constraintLines, countdown, pastStatus, splitGrants } from '../grants';
import { visible } from '../text';
import { isException } from '../packets';
import type { CommandError, Grant } from '../types';
import { byWords, leftWords, usedWords } from '../words';

const REVOKE_REASONS = ['No longer needed', 'Too broad', 'Run finished', 'Suspicious use'];

export function Grants({ grants }: { grants: Grant[] }) {
  const [now, setNow] = useState(Date.now());
  const [reason, setReason] = useState(REVOKE_REASONS[0]!);
  const [error, setError] = useState<string | null>(null);
  const { active, past } = splitGrants(grants, now);

  // The countdown ticks only while this view is open and something can expire.
  useEffect(() => {
    if (active.length === 0) return;
    const timer = window.setInterval(() => setNow(Date.now()), 1000);
    return () => window.clearInterval(timer);
  }, [active.length]);

  const revoke = async (grant: Grant) => {
    setError(null);
    try {
      await api.revoke(grant.grant_id, reason);
    } catch (err) {
      setError((err as CommandError).message);
    }
  };

  return (
    <div class="grants">
      <div class="revoke-reason">
        <label>
          Revoke reason
          <select data-testid="revoke-reason" value={reason} onChange={(e) => setReason(e.currentTarget.value)}>
            {REVOKE_REASONS.map((r) => (
              <option key={r}>{r}</option>
            ))}
          </select>
        </label>
        {error && <span class="error">{error}</span>}
      </div>
      <h2>Active</h2>
      {active.length === 0 && (
        <p class="empty" data-testid="grants-empty">
          No active grants. An approval for a run, a profile or some paths shows here until it expires, with Revoke.
        </p>
      )}
      <table>
        <tbody data-testid="grants-active">
          {active.map((g) => (
            <tr key={g.grant_id} data-testid="grant" data-grant-id={g.grant_id} data-status="active">
              <td>
                <strong data-testid="grant-line">
                  Allows {grantWhat(g)} · {leftWords(g.expires_at, now)} · {usedWords(g.used_count, g.max_uses)}
                </strong>
                <div class="sub" data-testid="grant-reach">
                  {grantReach(g)}
                </div>
                <div class="sub" data-testid="granted-by">
                  by {byWords(g.created_by, g.created_by_role)}
                </div>
                <details class="more-info">
                  <summary>Details</summary>
                  <div class="sub">{constraintLines(g).map(visible).join(' · ')}</div>
                  <div class="sub" title={visible(g.grant_id)}>
                    grant {grantId(g)}
                  </div>
                </details>
                {isException(g) && <div class="sub warn" data-testid="exception-note">exception: goes past {visible((g.constraints.exception_rules ?? []).join(', '))} in {visible(g.constraints.repo ?? '')}{(g.constraints.hosts ?? []).length > 0 ? ` for ${visible((g.constraints.hosts ?? []).join(', '))}` : ''}</div>}
                {g.action_kinds.includes('credential') && <div class="sub" data-testid="credential-note">Revoke stops later uses; a process already running keeps the secret it got.</div>}
              </td>
              <td data-testid="scope">{scopeWords(g)}</td>
              <td data-testid="countdown" class="countdown">{countdown(g.expires_at, now)}</td>
              <td data-testid="uses">{usedWords(g.used_count, g.max_uses)}</td>
              <td>
                {g.revocable && (
                  <button data-testid="revoke" class="deny" onClick={() => void revoke(g)}>
                    Revoke
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <h2>Expired, revoked and invalidated</h2>
      <table class="past">
        <tbody data-testid="grants-past">
          {past.map((g) => (
            <tr key={g.grant_id} data-testid="grant" data-grant-id={g.grant_id} data-status={pastStatus(g)}>
              <td>
                {grantWhat(g)}
                <div class="sub" data-testid="grant-reach">
                  {grantReach(g)}
                </div>
              </td>
              <td>{scopeWords(g)}</td>
              <td data-testid="grant-status">{pastStatus(g)}</td>
              <td>{usedWords(g.used_count, g.max_uses)}</td>
              <td class="sub" data-testid="grant-end">
                {grantEndWords(g, now)}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
