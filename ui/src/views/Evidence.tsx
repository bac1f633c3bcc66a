import { allReasons, visible, waitingSince } from '../logic';
import type { Approval } from '../types';
import { DiffView, PrView } from './Packet';
import { CredentialView, ExceptionView, FleetView, PreRunView } from './RunPackets';

function Row({ label, value, test }: { label: string; value: string | undefined | null; test?: string }) {
  if (value === undefined || value === null || value === '') return null;
  return (
    <>
      <dt>{label}</dt>
      <dd data-testid={test}>{visible(value)}</dd>
    </>
  );
}

/** The whole evidence packet. Agent text is rendered as text (never HTML). */
export function Evidence({ approval, now }: { approval: Approval; now: number }) {
  const e = approval.evidence;
  const command = e.command_line ?? e.command?.join(' ');
  return (
    <div class="evidence" data-approval-type={e.type}>
      {e.type === 'diff' && <DiffView packet={e} />}
      {e.type === 'pr' && <PrView packet={e} />}
      {e.type === 'credential' && <CredentialView packet={e} />}
      {e.type === 'pre_run' && <PreRunView packet={e} />}
      {e.type === 'fleet' && <FleetView packet={e} />}
      {e.type === 'exception' && <ExceptionView packet={e} />}
      <dl>
        <Row label="Action" value={`${approval.action_kind}: ${e.summary}`} test="ev-action" />
        {command !== undefined && (
          <>
            <dt>Command</dt>
            <dd>
              <pre data-testid="ev-command" class={e.suspicious_text ? "suspicious" : ""}>{visible(command)}</pre>
              {e.command && <code class="argv">{visible(JSON.stringify(e.command))}</code>}
              {e.suspicious_text && <strong class="warn">carries hidden or control characters</strong>}
            </dd>
          </>
        )}
        <Row label="Paths" value={e.paths.join(', ')} test="ev-paths" />
        <Row label="Leads to" value={e.symlinks?.join(', ')} test="ev-symlinks" />
        <Row label="Cwd" value={e.cwd} test="ev-cwd" />
        <Row label="Network" value={e.network.length ? e.network.join(', ') : 'none'} test="ev-network" />
        <Row label="Credentials" value={e.credentials ?? 'none'} test="ev-credentials" />
        <Row label="May change" value={e.mutation} test="ev-mutation" />
        <Row label="Diff" value={e.diff_summary} />
        <Row label="Agent's reason" value={approval.reason} test="ev-reason" />
        <Row label="Risk" value={approval.risk} test="ev-risk" />
        <dt>Reasons</dt>
        <dd>
          <ul data-testid="ev-reasons">
            {allReasons(approval.reasons, e.policy_findings).map((r, i) => (
              <li key={i}>{visible(r)}</li>
            ))}
          </ul>
        </dd>
        <Row label="Recommended" value={`${approval.recommendation.decision}${approval.recommendation.scope ? ` (${approval.recommendation.scope})` : ''}: ${approval.recommendation.text}`} test="ev-recommendation" />
        <Row label="Required role" value={approval.required_role} test="ev-role" />
        <Row label="Requester" value={approval.requester ? `${approval.requester} (${approval.requested_by})` : approval.requested_by} />
        <Row label="Run" value={approval.run_id} test="ev-run" />
        <Row label="Repo" value={approval.repo} test="ev-repo" />
        <Row label="Requests" value={String(approval.count)} test="ev-count" />
        <Row label="Waiting" value={waitingSince(approval.created_at, now)} />
      </dl>
      {approval.members.length > 1 && (
        <details>
          <summary>{approval.members.length} requests in this batch</summary>
          <ul>
            {approval.members.map((m) => (
              <li key={m.action_id}>
                <code>{visible(m.command_line ?? m.action_hash)}</code>
              </li>
            ))}
          </ul>
        </details>
      )}
    </div>
  );
}
