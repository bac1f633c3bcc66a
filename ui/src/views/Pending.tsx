import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { api } from '../api';
import {
  buildApproval,
  buildDenial,
  decidability,
  defaultForm,
  durationLabel,
  keepSelection,
  keyIntent,
  longestSeconds,
  moveSelection,
  newestFirst,
  quickApproval,
  quickChoices,
  quickLabel,
  SCOPE_LABELS,
  shortcutDecision,
  visible,
  type Built,
  type DecisionForm,
} from '../logic';
import type { Approval, CommandError, Me, QuickDecision, Scope } from '../types';
import { Evidence } from './Evidence';

interface Props {
  pending: Approval[];
  /** Who the desk signs in as (the service's answer); decides which buttons are offered. */
  me: Me | null;
  focus: string | null;
  onFocused: () => void;
}

export function Pending({ pending, me, focus, onFocused }: Props) {
  const batches = useMemo(() => newestFirst(pending), [pending]);
  const ids = batches.map((a) => a.approval_id);
  const [selected, setSelected] = useState<string | null>(null);
  const current = keepSelection(ids, focus ?? selected);

  useEffect(() => {
    if (focus !== null) {
      setSelected(focus);
      onFocused();
    }
  }, [focus]);

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      const target = event.target as HTMLElement | null;
      const typing = !!target && ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName);
      const intent = keyIntent(event.key, typing);
      if (intent?.kind === 'move') {
        event.preventDefault();
        setSelected(moveSelection(ids, current, intent.by));
      } else if (intent?.kind === 'shortcut') {
        event.preventDefault();
        window.dispatchEvent(new CustomEvent('assent-shortcut', { detail: intent.shortcut }));
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [ids.join(','), current]);

  if (batches.length === 0) {
    return <p class="empty" data-testid="pending-empty">Nothing waiting for you.</p>;
  }
  const approval = batches.find((a) => a.approval_id === current) ?? batches[0]!;
  const may = decidability(approval, me);
  return (
    <div class="split">
      <ul class="list" data-testid="pending-list">
        {batches.map((a) => (
          <li
            key={a.approval_id}
            data-testid="prompt"
            data-approval-id={a.approval_id}
            class={`item risk-${a.risk}${a.approval_id === approval.approval_id ? ' sel' : ''}`}
            onClick={() => setSelected(a.approval_id)}
          >
            <span class={`badge risk-${a.risk}`}>{a.risk}</span>
            <span class="title">{visible(a.evidence.summary)}</span>
            {a.count > 1 && <span class="count">×{a.count}</span>}
            <span class="sub">{visible(`${a.repo ?? a.evidence.cwd} · ${a.run_id}`)}</span>
            <NotYours approval={a} me={me} />
          </li>
        ))}
      </ul>
      <section class="detail" data-testid="prompt-detail" data-approval-id={approval.approval_id}>
        <h2>{visible(approval.evidence.summary)}</h2>
        {approval.decision === 'escalate' && (
          <p class="warn">Escalation: needs the {approval.required_role ?? 'required'} role.</p>
        )}
        {may.progress && (
          <p class="progress" data-testid="progress">
            {visible(may.progress)}
          </p>
        )}
        <Evidence approval={approval} now={Date.now()} />
        {may.decide ? (
          <Decide key={approval.approval_id} approval={approval} />
        ) : (
          <p class="not-decidable">
            Not yours to decide: <span data-testid="not-decidable">{may.why}</span>
          </p>
        )}
      </section>
    </div>
  );
}

/** The list's hint on a prompt this person may not decide ("needs platform_admin"). */
function NotYours({ approval, me }: { approval: Approval; me: Me | null }) {
  const may = decidability(approval, me);
  return may.decide ? null : (
    <span class="sub" data-testid="prompt-why">
      {may.why}
    </span>
  );
}

function Decide({ approval }: { approval: Approval }) {
  const [form, setForm] = useState<DecisionForm>(() => defaultForm(approval));
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const reasonRef = useRef<HTMLInputElement>(null);
  const set = (patch: Partial<DecisionForm>) => setForm((f) => ({ ...f, ...patch }));

  const send = async (built: Built, isDeny: boolean) => {
    if ('error' in built) {
      setError(built.error);
      if (isDeny) reasonRef.current?.focus();
      return;
    }
    setBusy(true);
    setError(null);
    try {
      await api.decide(approval.approval_id, built.ok);
    } catch (err) {
      const e = err as CommandError;
      setError(e.code === 'conflict' ? 'Already decided elsewhere.' : e.message);
    } finally {
      setBusy(false);
    }
  };

  useEffect(() => {
    const onShortcut = (event: Event) => {
      const shortcut = (event as CustomEvent<'once' | 'run' | 'deny'>).detail;
      void send(shortcutDecision(approval, form, shortcut), shortcut === 'deny');
    };
    window.addEventListener('assent-shortcut', onShortcut);
    return () => window.removeEventListener('assent-shortcut', onShortcut);
  }, [approval, form]);

  const quick = quickChoices(approval);
  const longest = longestSeconds(approval, form.scope);
  return (
    <form class="decide" data-testid="decide" onSubmit={(e) => e.preventDefault()}>
      <div class="fields">
        <label class="grow">
          Reason
          <input ref={reasonRef} data-testid="reason" placeholder="required to deny; sent to the agent" value={form.reason} onInput={(e) => set({ reason: e.currentTarget.value })} />
        </label>
        <label>
          Max uses
          <input data-testid="max-uses" inputMode="numeric" placeholder="no limit" value={form.maxUses} onInput={(e) => set({ maxUses: e.currentTarget.value })} />
        </label>
      </div>
      <div class="buttons" data-testid="quick-decisions">
        {quick.map((q) => (
          <button
            type="button"
            key={`${q.scope}-${q.expires_in_seconds}`}
            data-testid={quickTestId(q)}
            data-seconds={q.expires_in_seconds}
            disabled={busy}
            title={`${SCOPE_LABELS[q.scope]}, for ${durationLabel(q.expires_in_seconds)}`}
            onClick={() => void send(quickApproval(approval, form, q), false)}
          >
            {quickLabel(q)}
            {q.scope === 'once' && <kbd>a</kbd>}
            {q.scope === 'run' && <kbd>r</kbd>}
          </button>
        ))}
        <button type="button" class="deny" data-testid="deny" disabled={busy} onClick={() => void send(buildDenial(form.reason), true)}>
          Deny <kbd>d</kbd>
        </button>
      </div>
      <div class="fields custom">
        <label>
          Scope
          <select data-testid="scope" value={form.scope} onChange={(e) => set({ scope: e.currentTarget.value as Scope, customMinutes: '' })}>
            {approval.offered_scopes.map((s) => (
              <option key={s} value={s}>
                {SCOPE_LABELS[s]}
              </option>
            ))}
          </select>
        </label>
        <label>
          Expires after (minutes)
          <input
            data-testid="custom-minutes"
            inputMode="numeric"
            placeholder={longest === null ? '' : `up to ${Math.floor(longest / 60)}`}
            value={form.customMinutes}
            onInput={(e) => set({ customMinutes: e.currentTarget.value })}
          />
        </label>
        <button type="button" data-testid="approve" disabled={busy} onClick={() => void send(buildApproval(approval, form), false)}>
          Approve with scope
        </button>
        <span class="sub" data-testid="expiry-limit">
          {longest === null ? 'this scope is not offered' : `empty means ${durationLabel(longest)}, the longest the policy allows`}
        </span>
      </div>
      {error && (
        <p class="error" data-testid="decide-error">
          {error}
        </p>
      )}
    </form>
  );
}

/** The once and run buttons keep the ids the keys and tests know them by. */
function quickTestId(quick: QuickDecision): string {
  if (quick.scope === 'once') return 'allow-once';
  if (quick.scope === 'run') return 'allow-run';
  return `quick-${quick.scope}`;
}
