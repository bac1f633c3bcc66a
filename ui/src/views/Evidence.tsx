import { clock, plainTitle } from '../decide';
import { allReasons } from '../pending';
import { visible } from '../text';
import type { Approval } from '../types';
import { absolute, askedLine, factsOf, fieldsFor, knownRuns, relative, repoName, roleWords, type RunFacts, runTitle, runWords, unansweredLine } from '../words';
import { shellLine } from '../packets';
import { DiffView, PrView } from './Packet';
import { CredentialView, ExceptionView, FleetView, PreRunView } from './RunPackets';

function Row({ label, value, test, title }: { label: string; value: string | undefined | null; test?: string; title?: string }) {
  if (value === undefined || value === null || value === '') return null;
  return (
    <>
      <dt>{label}</dt>
      <dd data-testid={test} title={title}>
        {visible(value)}
      </dd>
    </>
  );
}

/**
 * The hosts an action reaches. A credential is handed to a process nothing confines: its
 * hosts are not known, so the row never says "none" for it.
 */
function networkWords(e: Approval['evidence']): string {
  if (e.network.length > 0) return e.network.join(', ');
  if (e.type === 'credential') return 'not limited: the process that gets the credential can reach any host';
  return 'none';
}

const RISK_WORDS = { low: 'Low', medium: 'Medium', high: 'High', critical: 'Critical' } as const;

/**
 * The whole evidence packet. Agent text is rendered as text (never HTML). `runs`: what the
 * window knows of the runs in view (their agents, when it first saw them); without it, the
 * run is known from this approval alone. `settled`: the prompt was settled elsewhere while on
 * screen (shown as it was read): no deadline is said for it.
 */
export function Evidence({ approval, now, runs, settled = false }: { approval: Approval; now: number; runs?: Map<string, RunFacts>; settled?: boolean }) {
  const e = approval.evidence;
  const run = factsOf(runs ?? knownRuns([approval]), approval.run_id);
  // The whole line as it will run; an old row without one is quoted, never joined bare.
  const command = e.command_line ?? (e.command ? shellLine(e.command) : undefined);
  const steps = e.steps ?? [];
  const shows = fieldsFor(e.type);
  const rec = approval.recommendation;
  return (
    <div class="evidence" data-approval-type={e.type}>
      {e.type === 'diff' && <DiffView packet={e} words={approval.words} />}
      {e.type === 'pr' && <PrView packet={e} words={approval.words} />}
      {e.type === 'credential' && <CredentialView packet={e} />}
      {e.type === 'pre_run' && <PreRunView packet={e} />}
      {e.type === 'fleet' && <FleetView packet={e} />}
      {e.type === 'exception' && <ExceptionView packet={e} />}
      <dl>
        <Row label="Action" value={plainTitle(e.summary)} test="ev-action" />
        {shows.has('command') && command !== undefined && (
          <>
            <dt>Command</dt>
            <dd>
              <pre data-testid="ev-command" class={e.suspicious_text ? 'suspicious' : ''}>
                {visible(command)}
              </pre>
              {e.suspicious_text && <strong class="warn">carries hidden or control characters</strong>}
            </dd>
          </>
        )}
        {/* What may change before the steps: a high-risk prompt's stakes are read at first sight. */}
        {shows.has('mutation') && <Row label="May change" value={e.mutation} test="ev-mutation" />}
        {shows.has('command') && steps.length > 1 && (
          <>
            <dt>Steps (riskiest first)</dt>
            <dd>
              <ol class="steps" data-testid="ev-steps">
                {steps.map((step, i) => (
                  <li key={i}>
                    <code>{visible(step.line)}</code>
                    {step.effect && <span class="sub"> — {visible(step.effect)}</span>}
                  </li>
                ))}
              </ol>
            </dd>
          </>
        )}
        {shows.has('paths') && <Row label="Paths" value={e.paths.join(', ')} test="ev-paths" />}
        <Row label="Leads to" value={e.symlinks?.join(', ')} test="ev-symlinks" />
        {shows.has('cwd') && <Row label="Working directory" value={e.cwd} test="ev-cwd" />}
        {shows.has('network') && <Row label="Network" value={networkWords(e)} test="ev-network" />}
        {shows.has('credentials') && <Row label="Credentials" value={e.credentials ?? 'none'} test="ev-credentials" />}
        <Row label="Diff" value={e.diff_summary} />
        <Row label="Agent's reason" value={approval.reason} test="ev-reason" />
        <Row label="Risk" value={RISK_WORDS[approval.risk]} test="ev-risk" />
        <dt>Why it asks</dt>
        <dd>
          <ul data-testid="ev-reasons">
            {allReasons(approval.reasons, e.policy_findings).map((r, i) => (
              <li key={i}>{plainTitle(r)}</li>
            ))}
          </ul>
        </dd>
        {/* Settled elsewhere: nothing here decides it, so no recommendation invites a decision
            (the detail says who decided it above). */}
        {!settled && (
          <Row
            label="Recommended"
            value={plainTitle(/^(deny|approve|allow)\b/i.test(rec.text) ? rec.text : `${rec.decision === 'deny' ? 'Deny' : 'Approve'}: ${rec.text}`)}
            test="ev-recommendation"
          />
        )}
        <Row label="Needs" value={roleWords(approval.required_role)} test="ev-role" />
        <Row label="Asked by" value={`${approval.requester || approval.requested_by}${approval.requested_by === 'agent' ? ' (an agent)' : ''}`} test="ev-requester" />
        <Row label="Run" value={runWords(run, now)} title={runTitle(run)} test="ev-run" />
        <Row label="Repository" value={repoName(approval.repo)} title={approval.repo ?? undefined} test="ev-repo" />
        {approval.count > 1 && <Row label="Requests" value={String(approval.count)} test="ev-count" />}
        <Row label="Asked" value={`${relative(approval.created_at, now)} (at ${clock(Date.parse(approval.created_at), now)})`} title={absolute(approval.created_at)} test="ev-asked" />
        <Row label="Who is asked" value={askedLine(approval, now)} test="ev-routing" />
        {approval.status === 'requested' && !settled && (
          <Row label="If nobody answers" value={unansweredLine(approval, now)} title={absolute(approval.expires_at)} test="ev-unanswered" />
        )}
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
      <details class="more-info" data-testid="ev-details">
        <summary>Details (ids, rule, arguments)</summary>
        <dl>
          <Row label="Approval id" value={approval.approval_id} />
          <Row label="Run id" value={approval.run_id} test="ev-run-id" />
          <Row label="Task id" value={approval.task_id} />
          <Row label="Rule" value={approval.rule} test="ev-rule" />
          <Row label="Profile" value={approval.profile} />
          <Row label="Batch key" value={approval.batch_key} />
          <Row label="Repository path" value={approval.repo} />
          {(e.commands?.length ?? 0) > 0 ? (
            <Row label="Arguments (each step)" value={JSON.stringify(e.commands)} test="ev-argv" />
          ) : (
            e.command && <Row label="Arguments" value={JSON.stringify(e.command)} test="ev-argv" />
          )}
          <Row label="Expires" value={absolute(approval.expires_at)} />
        </dl>
      </details>
    </div>
  );
}
