// The decide bar of a prompt: the state of one decision (`Decide`), and its parts, each with one
// job — the grant to confirm, the notes on what deciding needs, the reason and its one-tap
// reasons, the one-click approvals with Deny, and another scope, expiry or use limit.
import { useEffect, useRef, useState } from 'preact/hooks';
import type { RefObject } from 'preact';
import { api, inWindow } from '../api';
import { byBreadth, grantSentence, oneAct, scopeButton } from '../decide';
import { durationLabel, SCOPE_LABELS } from '../labels';
import { buildApproval, buildDenial, type Built, type DecisionForm, defaultForm, longestSeconds, quickApproval, quickChoices, shortcutDecision } from '../pending';
import type { Approval, CommandError, DecisionRequest, Grant, QuickDecision, Scope } from '../types';

/** What the person did, to say it back and offer Undo. */
export interface Decided {
  approval: Approval;
  request: DecisionRequest;
  grant: Grant | null;
}

/** A grant waiting for the person's confirmation (prompts riskier than one act allows). */
interface Confirming {
  request: DecisionRequest;
  sentence: string;
}

/** What the reason field is for: its placeholder, and its tooltip where a short window cuts
 * the placeholder. */
const REASON_HINT = 'required to deny; sent to the agent (Enter denies)';

export function Decide({
  approval,
  denyReasons,
  onDecided,
  onLost,
  online,
  closed,
  mayAct,
  onSending,
}: {
  approval: Approval;
  denyReasons: string[];
  onDecided: (d: Decided) => void;
  /** A decision that failed after its prompt left the screen: said by the list, not lost. */
  onLost: (approval: Approval, why: string) => void;
  online: boolean;
  /** Set when the prompt was settled elsewhere while on screen (what happened): nothing
   * here decides it any more. */
  closed: string | null;
  /** Whether a click or key may decide now (false just after the detail moved by itself). */
  mayAct: () => boolean;
  /** A decision of this prompt is on its way (true) or failed (false). */
  onSending: (approvalId: string, on: boolean) => void;
}) {
  const [form, setForm] = useState<DecisionForm>(() => defaultForm(approval));
  const [error, setError] = useState<string | null>(null);
  const [sending, setBusy] = useState(false);
  const busy = sending || !online || closed !== null;
  const [confirming, setConfirming] = useState<Confirming | null>(null);
  const reasonRef = useRef<HTMLInputElement>(null);
  const barRef = useRef<HTMLFormElement>(null);
  // False once this prompt's bar is gone (the prompt left, or another is shown).
  const mounted = useRef(true);
  useEffect(
    () => () => {
      mounted.current = false;
    },
    [],
  );
  useEffect(() => barHeight(barRef.current), []);
  const set = (patch: Partial<DecisionForm>) => setForm((f) => ({ ...f, ...patch }));
  const deliberate = !oneAct(approval);
  // The policy's `[approvals] step_up` holds it: only a passkey, in the browser's desk, approves
  // it. The window holds none, so it sends the person there; the browser asks for the passkey.
  const stepUpElsewhere = inWindow && approval.step_up_url ? approval.step_up_url : null;

  const go = async (request: DecisionRequest) => {
    if (closed !== null) return;
    setBusy(true);
    setError(null);
    onSending(approval.approval_id, true);
    try {
      const answer = await api.decide(approval.approval_id, request);
      onDecided({ approval, request, grant: answer?.grant ?? null });
    } catch (err) {
      onSending(approval.approval_id, false);
      const e = err as CommandError;
      const why = e.code === 'conflict' ? 'Already decided elsewhere.' : e.message;
      if (mounted.current) setError(why);
      else onLost(approval, e.code === 'conflict' ? `It was already settled: ${e.message}` : why);
    } finally {
      if (mounted.current) setBusy(false);
    }
  };

  const send = async (built: Built, isDeny: boolean) => {
    if (closed !== null) {
      setError('Already settled elsewhere: nothing was decided now.');
      return;
    }
    if (!mayAct()) return;
    if (!online) {
      setError('Assent is out of reach: nothing was decided.');
      return;
    }
    if ('error' in built) {
      setError(built.error);
      if (isDeny) reasonRef.current?.focus();
      return;
    }
    if (stepUpElsewhere && built.ok.decision === 'approve') {
      setError(`Approving this needs your passkey: confirm it in the browser at ${stepUpElsewhere}`);
      return;
    }
    if (deliberate && built.ok.decision === 'approve') {
      // Not one act: say what will be granted and wait for a deliberate confirmation.
      setError(null);
      setConfirming({ request: built.ok, sentence: grantSentence(approval, built.ok, Date.now()) });
      return;
    }
    await go(built.ok);
  };

  useShortcuts({
    deps: [approval, form, confirming, sending, closed],
    onShortcut: (shortcut) => {
      if (confirming) return; // a key never confirms: only the confirm button does
      if (sending) return; // one decision at a time: a second key waits for the first's answer
      void send(shortcutDecision(approval, form, shortcut), shortcut === 'deny');
    },
    onEscape: confirming ? () => setConfirming(null) : null,
  });

  const deny = (reason: string) => void send(buildDenial(reason), true);
  return (
    <form ref={barRef} class="decide decide-bar" data-testid="decide" data-deliberate={deliberate ? 'yes' : 'no'} onSubmit={(e) => e.preventDefault()}>
      {confirming ? (
        <ConfirmGrant
          approval={approval}
          sentence={confirming.sentence}
          busy={busy}
          onConfirm={() => void go(confirming.request)}
          onCancel={() => setConfirming(null)}
        />
      ) : (
        <>
          <DecideNotes
            approval={approval}
            online={online}
            deliberate={deliberate}
            stepUpElsewhere={stepUpElsewhere}
            busy={busy}
            onError={setError}
          />
          <ReasonField reason={form.reason} inputRef={reasonRef} disabled={closed !== null} onInput={(reason) => set({ reason })} onDeny={deny} />
          <DenyReasons reasons={denyReasons} busy={busy} onDeny={deny} />
          <QuickButtons
            approval={approval}
            deliberate={deliberate}
            offerApprovals={!stepUpElsewhere}
            busy={busy}
            onQuick={(q) => void send(quickApproval(approval, form, q), false)}
            onDeny={() => deny(form.reason)}
          />
          {!stepUpElsewhere && (
            <CustomScope
              approval={approval}
              form={form}
              deliberate={deliberate}
              busy={busy}
              set={set}
              onApprove={() => void send(buildApproval(approval, form), false)}
            />
          )}
        </>
      )}
      {error && (
        <p class="error" data-testid="decide-error">
          {error}
        </p>
      )}
    </form>
  );
}

/** The page's shortcut keys (`assent-shortcut` events: a, r, d) and Esc while confirming. */
function useShortcuts({
  deps,
  onShortcut,
  onEscape,
}: {
  deps: unknown[];
  onShortcut: (shortcut: 'once' | 'run' | 'deny') => void;
  /** Esc backs out of the confirmation (null: Esc is not this bar's). */
  onEscape: (() => void) | null;
}) {
  useEffect(() => {
    const shortcut = (event: Event) => onShortcut((event as CustomEvent<'once' | 'run' | 'deny'>).detail);
    const escape = (event: KeyboardEvent) => {
      if (event.key === 'Escape' && onEscape) {
        event.preventDefault();
        event.stopImmediatePropagation();
        onEscape();
      }
    };
    window.addEventListener('assent-shortcut', shortcut);
    window.addEventListener('keydown', escape, true);
    return () => {
      window.removeEventListener('assent-shortcut', shortcut);
      window.removeEventListener('keydown', escape, true);
    };
  }, deps);
}

/** What a riskier approval grants, said before it is granted: Confirm or Cancel. */
function ConfirmGrant({
  approval,
  sentence,
  busy,
  onConfirm,
  onCancel,
}: {
  approval: Approval;
  sentence: string;
  busy: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const cancelRef = useRef<HTMLButtonElement>(null);
  // Cancel takes the focus, not the grant: Enter or Space (a scroll key) must not confirm.
  useEffect(() => cancelRef.current?.focus(), []);
  return (
    <div class="confirm" data-testid="confirm" role="alertdialog" aria-label="Confirm the grant">
      <p>
        <strong>{approval.risk.toUpperCase()} risk.</strong> This grants: <span data-testid="confirm-text">{sentence}</span>
      </p>
      <div class="buttons">
        <button type="button" class="grant" data-testid="confirm-grant" disabled={busy} onClick={onConfirm}>
          Confirm: grant it
        </button>
        <button type="button" ref={cancelRef} class="plain" data-testid="confirm-cancel" onClick={onCancel}>
          Cancel <kbd>Esc</kbd>
        </button>
      </div>
    </div>
  );
}

/** What deciding needs now: the service back, a passkey in the browser, or a confirmation. */
function DecideNotes({
  approval,
  online,
  deliberate,
  stepUpElsewhere,
  busy,
  onError,
}: {
  approval: Approval;
  online: boolean;
  deliberate: boolean;
  stepUpElsewhere: string | null;
  busy: boolean;
  onError: (why: string) => void;
}) {
  return (
    <>
      {!online && (
        <p class="sub deliberate" data-testid="offline-note">
          Assent is out of reach: decisions wait until it is back.
        </p>
      )}
      {stepUpElsewhere && (
        <p class="sub deliberate" data-testid="step-up-note">
          Approving this needs your passkey: confirm it in the browser at{' '}
          <code class="step-up-url" data-testid="step-up-url">{stepUpElsewhere}</code>. Deny works here.
        </p>
      )}
      {stepUpElsewhere && (
        <div class="buttons">
          <button type="button" data-testid="step-up-open" disabled={busy} onClick={() => void api.openStepUp(approval.approval_id).catch((err: CommandError) => onError(err.message))}>
            Confirm in the browser
          </button>
        </div>
      )}
      {deliberate && !stepUpElsewhere && (
        <p class="sub deliberate" data-testid="deliberate-note">
          {approval.risk === 'critical' ? 'Critical' : 'High'} risk: approving asks you to confirm what is granted.
        </p>
      )}
    </>
  );
}

/** The reason sent to the agent with a denial; Enter denies with it. */
function ReasonField({
  reason,
  inputRef,
  disabled,
  onInput,
  onDeny,
}: {
  reason: string;
  inputRef: RefObject<HTMLInputElement | null>;
  disabled: boolean;
  onInput: (reason: string) => void;
  onDeny: (reason: string) => void;
}) {
  return (
    <div class="fields">
      <label class="grow">
        <span class="label-text">Reason</span>
        <input
          ref={inputRef}
          aria-label="Reason"
          data-testid="reason"
          placeholder={REASON_HINT}
          title={REASON_HINT}
          value={reason}
          disabled={disabled}
          onInput={(e) => onInput(e.currentTarget.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter') {
              e.preventDefault();
              onDeny(e.currentTarget.value);
            }
          }}
        />
      </label>
    </div>
  );
}

/** The person's deny reasons (Settings), each a denial in one tap. */
function DenyReasons({ reasons, busy, onDeny }: { reasons: string[]; busy: boolean; onDeny: (reason: string) => void }) {
  if (reasons.length === 0) return null;
  return (
    <div class="chips" data-testid="deny-reasons" aria-label="Deny with a reason">
      {reasons.map((r) => (
        <button type="button" key={r} class="chip-button" data-testid="deny-reason" disabled={busy} onClick={() => onDeny(r)}>
          Deny: {r}
        </button>
      ))}
    </div>
  );
}

/** The approvals the policy offers in one click, broadest last, then Deny. */
function QuickButtons({
  approval,
  deliberate,
  offerApprovals,
  busy,
  onQuick,
  onDeny,
}: {
  approval: Approval;
  deliberate: boolean;
  /** False while a passkey in the browser approves it (step-up): only Deny is offered. */
  offerApprovals: boolean;
  busy: boolean;
  onQuick: (quick: QuickDecision) => void;
  onDeny: () => void;
}) {
  const quick = offerApprovals ? byBreadth(quickChoices(approval)) : [];
  return (
    <div class="buttons" data-testid="quick-decisions">
      {quick.map((q) => (
        <button
          type="button"
          key={`${q.scope}-${q.expires_in_seconds}`}
          data-testid={quickTestId(q)}
          data-seconds={q.expires_in_seconds}
          disabled={busy}
          title={`${SCOPE_LABELS[q.scope]}, for ${durationLabel(q.expires_in_seconds)}`}
          onClick={() => onQuick(q)}
        >
          {deliberate ? scopeButton(approval, q).replace(/^(.*?)( · |$)/, '$1…$2') : scopeButton(approval, q)}
          {q.scope === 'once' && <kbd>a</kbd>}
          {q.scope === 'run' && <kbd>r</kbd>}
        </button>
      ))}
      <button type="button" class="deny" data-testid="deny" disabled={busy} onClick={onDeny}>
        Deny <kbd>d</kbd>
      </button>
    </div>
  );
}

/** Another scope, expiry or use limit than the one-click approvals. */
function CustomScope({
  approval,
  form,
  deliberate,
  busy,
  set,
  onApprove,
}: {
  approval: Approval;
  form: DecisionForm;
  deliberate: boolean;
  busy: boolean;
  set: (patch: Partial<DecisionForm>) => void;
  onApprove: () => void;
}) {
  const longest = longestSeconds(approval, form.scope);
  return (
    <details class="custom">
      <summary>Another scope, expiry or use limit{form.maxUses.trim() !== '' ? ` (at most ${form.maxUses.trim()} uses)` : ''}</summary>
      <div class="fields">
        <label>
          Max uses (every button)
          <input data-testid="max-uses" inputMode="numeric" placeholder="no limit" value={form.maxUses} onInput={(e) => set({ maxUses: e.currentTarget.value })} />
        </label>
        <label>
          Scope
          <select data-testid="scope" value={form.scope} onChange={(e) => set({ scope: e.currentTarget.value as Scope, customMinutes: '' })}>
            {byBreadth(approval.offered_scopes.map((scope) => ({ scope }))).map(({ scope: s }) => (
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
        <button type="button" data-testid="approve" disabled={busy} onClick={onApprove}>
          Approve with scope{deliberate ? '…' : ''}
        </button>
        <span class="sub" data-testid="expiry-limit">
          {longest === null ? 'this scope is not offered' : `empty means ${durationLabel(longest)}, the longest the policy allows`}
        </span>
      </div>
    </details>
  );
}

/**
 * Keeps `--decide-bar` at the height of the decide bar on screen, so what scrolls into view
 * (the evidence, a field) stops above the bar held at the bottom instead of under it (the
 * phone's `scroll-padding-bottom`). The cleanup forgets it when the bar goes.
 */
function barHeight(bar: HTMLElement | null): (() => void) | undefined {
  if (!bar || typeof ResizeObserver === 'undefined') return undefined;
  const root = document.documentElement.style;
  const observer = new ResizeObserver(() => root.setProperty('--decide-bar', `${Math.ceil(bar.getBoundingClientRect().height)}px`));
  observer.observe(bar);
  return () => {
    observer.disconnect();
    root.removeProperty('--decide-bar');
  };
}

/** The once and run buttons keep the ids the keys and tests know them by. */
function quickTestId(quick: QuickDecision): string {
  if (quick.scope === 'once') return 'allow-once';
  if (quick.scope === 'run') return 'allow-run';
  return `quick-${quick.scope}`;
}
