// The credential, pre-run and fleet approvals' packets. Every text is the service's (already
// masked) and rendered as text, never markup.
import { visible } from '../text';
import { capabilityReach, capabilityTtl, exceptionReach, fleetProgress, fleetStage } from '../packets';
import type { CredentialPacket, ExceptionPacket, FleetPacket, PreRunPacket } from '../types';

function Item({ label, value, test }: { label: string; value: string | null | undefined; test?: string }) {
  if (value === undefined || value === null || value === '') return null;
  return (
    <>
      <dt>{label}</dt>
      <dd data-testid={test}>{visible(value)}</dd>
    </>
  );
}

function List({ label, items, test }: { label: string; items: string[] | undefined; test: string }) {
  if (!items || items.length === 0) return null;
  return (
    <>
      <dt>{label}</dt>
      <dd>
        <ul data-testid={test}>
          {items.map((item, i) => (
            <li key={i}>{visible(item)}</li>
          ))}
        </ul>
      </dd>
    </>
  );
}

/** A capability request: what it opens, for how long, to which hosts — never the secret. */
export function CredentialView({ packet }: { packet: CredentialPacket }) {
  return (
    <section class="packet" data-testid="ev-credential">
      <dl>
        <Item label="Capability" value={packet.capability} test="ev-capability" />
        <Item label="For" value={capabilityReach(packet)} test="ev-capability-reach" />
        <Item label="Lasts" value={capabilityTtl(packet)} test="ev-capability-ttl" />
        <Item label="Injected as" value={packet.inject_as} test="ev-capability-env" />
        <Item label="Why" value={packet.reason} test="ev-capability-reason" />
        <Item label="The agent sees" value={packet.agent_visibility} test="ev-capability-visibility" />
      </dl>
      <p class="sub">
        Revoking stops later uses; a process already running keeps the value it was given.
      </p>
    </section>
  );
}

/** A run that asks before it starts: the task, where it goes, what it expects to do. */
export function PreRunView({ packet }: { packet: PreRunPacket }) {
  return (
    <section class="packet" data-testid="ev-pre-run">
      <dl>
        <Item label="Task" value={packet.task} test="ev-task" />
        <Item label="Task risk" value={packet.task_risk} test="ev-task-risk" />
        <Item label="Campaign" value={packet.campaign} test="ev-task-campaign" />
        <List label="Repositories" items={packet.repos} test="ev-task-repos" />
        <List label="Expected actions" items={packet.expected_actions} test="ev-task-expected" />
        <List label="Credentials" items={packet.expected_credentials} test="ev-task-credentials" />
        <Item label="Remote changes" value={packet.remote_mutation} test="ev-task-remote" />
        <List label="Asked because" items={packet.triggers} test="ev-task-triggers" />
      </dl>
    </section>
  );
}

/** A fleet campaign's definition or one of its stages, with its stop policy and progress. */
export function FleetView({ packet }: { packet: FleetPacket }) {
  return (
    <section class="packet" data-testid="ev-fleet">
      <dl>
        <Item label="Campaign" value={packet.campaign} test="ev-fleet-campaign" />
        <Item label="Approving" value={fleetStage(packet)} test="ev-fleet-stage" />
        <List label="This batch" items={packet.batch} test="ev-fleet-batch" />
        <Item label="Progress" value={fleetProgress(packet)} test="ev-fleet-progress" />
        <Item label="Stop policy" value={packet.stop_policy} test="ev-fleet-stop" />
        <Item label="Targets" value={packet.target_repos.join(', ')} test="ev-fleet-targets" />
        <Item label="Selection" value={packet.selection_criteria} />
        <Item label="Excluded" value={(packet.excluded_repos ?? []).join(', ')} />
        <Item label="Verifier" value={packet.verifier_profile} />
        <Item label="Cost estimate" value={packet.cost_estimate} />
        <Item label="Owners told" value={packet.owner_notification} />
      </dl>
      <details>
        <summary>Prompt contract, sample diff and PR body</summary>
        <pre data-testid="ev-fleet-contract">{visible(packet.prompt_contract)}</pre>
        <pre class="diff">{visible(packet.sample_diff)}</pre>
        <pre>{visible(packet.expected_pr_body)}</pre>
      </details>
    </section>
  );
}

/** An exception: the rule it goes past, what the rule found, where and for how long, and why. */
export function ExceptionView({ packet }: { packet: ExceptionPacket }) {
  return (
    <section class="packet" data-testid="ev-exception">
      <dl>
        <Item label="Exception to" value={packet.rules.join(', ')} test="ev-exception-rule" />
        <Item label="The rule found" value={packet.finding} test="ev-exception-finding" />
        <Item label="Holds for" value={exceptionReach(packet)} test="ev-exception-reach" />
        <Item label="Why" value={packet.reason} test="ev-exception-reason" />
        <Item label={(packet.hosts ?? []).length > 0 ? 'Asked with' : 'Covers'} value={packet.covered_command} test="ev-exception-command" />
      </dl>
      <p class="sub">
        Longer or wider than a normal grant: a security reviewer decides. It is revocable like any grant.
      </p>
    </section>
  );
}
