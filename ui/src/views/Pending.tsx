import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { api } from '../api';
import {
  approvedToast,
  decidedElsewhere,
  notDecidedToast,
  plainTitle,
  placeOf,
  shownPrompt,
  subjectOf,
  successor,
  undoLabel,
  undoneToast,
  type Toast,
} from '../decide';
import { decidability, keyIntent, moveSelection, newestFirst, waitingSince } from '../pending';
import { visible } from '../text';
import type { Approval, CommandError, Grant, Me } from '../types';
import { absolute, factsOf, knownRuns, roleWords, runTitle, runWords, waitLine } from '../words';
import { reviewerBanner, reviewLine } from '../reviewer';
import { Decide, type Decided } from './Decide';
import { Evidence } from './Evidence';

interface Props {
  pending: Approval[];
  /** Whether the desk has been read at least once (before that, `pending` is empty). */
  loaded: boolean;
  /** Who the desk signs in as (the service's answer); decides which buttons are offered. */
  me: Me | null;
  focus: string | null;
  onFocused: () => void;
  /** The deny reasons offered in one tap (Settings). */
  denyReasons: string[];
  /** The desk's grants (to say whether an undone grant had been used). */
  grants: Grant[];
  /** False while the service is out of reach: nothing can be decided then. */
  online: boolean;
  /** Prompts settled lately, as the service settled them (who decided, when): what the
   * detail says of a prompt that left while on screen. */
  settled?: Approval[];
}

export function Pending({ pending, loaded, me, focus, onFocused, denyReasons, online, settled = [] }: Props) {
  const batches = useMemo(() => newestFirst(pending), [pending]);
  const runs = useMemo(() => knownRuns(pending), [pending]);
  const ids = batches.map((a) => a.approval_id);
  const [selected, setSelected] = useState<string | null>(null);
  const [toast, setToast] = useState<Toast | null>(null);
  const [toastNote, setToastNote] = useState<string | null>(null);
  // The order the person last saw, so a prompt leaving moves the selection to the next one.
  const seen = useRef<string[]>([]);
  // When each prompt's agents were last seen waiting, to say when they stopped.
  const waited = useRef<Map<string, number>>(new Map());
  const now = Date.now();
  for (const a of batches) if (a.agents_waiting > 0) waited.current.set(a.approval_id, now);

  // The prompt a notification or link asked for, until it is listed. Before the desk's first
  // read it may arrive after the focus does, so it waits for that read; once read, a focus on
  // a prompt not listed was settled meanwhile, and the person is told.
  const [wanted, setWanted] = useState<string | null>(null);
  // When the detail last moved to another prompt by itself (after a decision made here, or a
  // notification's Open): a click or key within SETTLE_MS of that was meant for the prompt
  // that was there, and decides nothing.
  const movedAt = useRef(0);
  const shown = useRef<string | null>(null);
  // The prompt the person chose last (a click in the list, a move key, "Next prompt"): the
  // detail moving there is the person's doing, not a move by itself.
  const picked = useRef<string | null | undefined>(undefined);
  const [settling, setSettling] = useState(false);
  // Prompts the person sent a decision for from this view: when one leaves, its successor is
  // shown. Any other that leaves while on screen (decided elsewhere, expired, its run ended)
  // stays there, marked and undecidable, until the person moves on (`kept`).
  const sentHere = useRef<Set<string>>(new Set());
  const kept = useRef<string | null>(null);
  const keptOrder = useRef<string[]>([]);
  // The prompt the detail showed last, as it was then (a kept prompt is no longer listed).
  const lastShown = useRef<Approval | null>(null);
  const list = ids.join(',');

  // Relative times ("asked 3 s ago") tick: each second while a prompt is under a minute old
  // (the label counts seconds then), else every 15 s (it counts minutes).
  const [, setTick] = useState(0);
  const young = batches.some((a) => now - Date.parse(a.created_at) < 60_000);
  useEffect(() => {
    if (batches.length === 0) return;
    const timer = window.setInterval(() => setTick((n) => n + 1), young ? 1_000 : 15_000);
    return () => window.clearInterval(timer);
  }, [list, young]);

  if (
    selected !== null &&
    kept.current !== selected &&
    !ids.includes(selected) &&
    seen.current.includes(selected) &&
    !sentHere.current.has(selected) &&
    lastShown.current?.approval_id === selected
  ) {
    kept.current = selected;
    keptOrder.current = seen.current;
  }
  const current = shownPrompt(ids, seen.current, selected, focus ?? wanted, kept.current);
  if (current !== kept.current) kept.current = null;

  useEffect(() => {
    if (focus !== null) {
      setWanted(focus);
      onFocused();
    }
  }, [focus]);

  useEffect(() => {
    // The prompt on screen stays pinned: later arrivals (listed first) never take its place.
    if (current !== selected) setSelected(current);
    if (shown.current !== null && current !== null && current !== shown.current && current !== picked.current) movedAt.current = Date.now();
    if (current !== shown.current) setSettling(false);
    picked.current = undefined;
    shown.current = current;
    seen.current = ids;
    // Judged once the desk has been read: listed, it is shown; not listed, it was settled.
    if (wanted !== null && (ids.includes(wanted) || loaded)) {
      setWanted(null);
      if (!ids.includes(wanted)) say('The prompt you opened is no longer waiting: it was decided elsewhere or expired (History has it).');
    }
  });

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      const target = event.target as HTMLElement | null;
      const typing = !!target && ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName);
      if (event.ctrlKey || event.altKey || event.metaKey) return;
      const intent = keyIntent(event.key, typing);
      if (intent?.kind === 'move') {
        event.preventDefault();
        pick(kept.current !== null ? next() : moveSelection(ids, current, intent.by));
      } else if (intent?.kind === 'shortcut') {
        event.preventDefault();
        // A held key repeats: it decides nothing more (a key pressed twice, landing on the
        // prompt that replaced the one it decided, is `mayAct`'s).
        if (event.repeat) return;
        window.dispatchEvent(new CustomEvent('assent-shortcut', { detail: intent.shortcut }));
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [list, current]);

  // The person chose what is on screen: their next click or key is meant for it.
  const pick = (id: string | null) => {
    movedAt.current = 0;
    picked.current = id;
    kept.current = null;
    setWanted(null);
    setSelected(id);
  };

  // Where "Next prompt" goes from a kept prompt: the one after it in the order seen then.
  const next = () => (kept.current === null ? null : successor(keptOrder.current, ids, kept.current));

  // Whether a click or key may decide now: not within SETTLE_MS of the detail moving by
  // itself (it was meant for the prompt that was there); the detail then says nothing was
  // decided.
  const mayAct = () => {
    if (Date.now() - movedAt.current < SETTLE_MS) {
      setSettling(true);
      return false;
    }
    setSettling(false);
    return true;
  };

  const sending = (approvalId: string, on: boolean) => {
    if (on) sentHere.current.add(approvalId);
    else sentHere.current.delete(approvalId);
  };

  const decided = (d: Decided) => {
    setToastNote(null);
    setToast(approvedToast(d.approval, d.request, d.grant, Date.now()));
  };

  const lost = (approval: Approval, why: string) => say(notDecidedToast(approval, why).text);

  // A message for the person: the toast, unless it still offers Undo or Revoke of a decision
  // just made — then beside it, so that button is not lost.
  const say = (text: string) => {
    if (toast && (toast.grantId || toast.deniedId)) setToastNote(text);
    else {
      setToastNote(null);
      setToast({ text, grantId: null, deniedId: null });
    }
  };

  const undo = async (t: Toast) => {
    try {
      if (t.grantId) {
        const revoked = await api.revoke(t.grantId, 'undone from the desk right after approving');
        setToastNote(undoneToast(revoked, t.released ?? 0));
      } else if (t.deniedId) {
        await api.forgetDenial(t.deniedId);
        setToastNote('Undone: the denial is forgotten; the agent’s next equivalent request asks you again.');
      }
      setToast({ ...t, grantId: null, deniedId: null });
    } catch (err) {
      setToastNote(`Undo failed: ${(err as CommandError).message ?? String(err)}`);
    }
  };

  const toastBox = toast && (
    <div class="toast" role="status" data-testid="toast">
      <span data-testid="toast-text">{toast.text}</span>
      {toastNote && (
        <span data-testid="toast-note" class="note">
          {toastNote}
        </span>
      )}
      {(toast.grantId || toast.deniedId) && (
        <button type="button" data-testid="undo" onClick={() => void undo(toast)}>
          {undoLabel(toast)}
        </button>
      )}
      <button type="button" class="plain" aria-label="Dismiss" data-testid="toast-close" onClick={() => setToast(null)}>
        ×
      </button>
    </div>
  );

  const keptApproval = kept.current !== null && current === kept.current ? lastShown.current : null;
  if (batches.length === 0 && keptApproval === null) {
    lastShown.current = null;
    return (
      <>
        {toastBox}
        <div class="empty-state" data-testid="pending-empty">
          <p>Nothing waiting for you.</p>
          <p class="sub">
            Prompts appear here when an agent asks. To gate an agent, run <code>assent install claude-code</code> (or{' '}
            <code>codex</code>, <code>gemini</code>) in a terminal.
          </p>
        </div>
      </>
    );
  }
  const approval = keptApproval ?? batches.find((a) => a.approval_id === current) ?? batches[0]!;
  lastShown.current = approval;
  const may = decidability(approval, me);
  const closed = keptApproval === null ? null : decidedElsewhere(settled.find((a) => a.approval_id === keptApproval.approval_id) ?? null, now);
  const stopped = closed === null ? waitLine(approval, waited.current.get(approval.approval_id) ?? null, now) : null;
  const review = reviewLine(approval.review);
  const reviewerDown = reviewerBanner(batches);
  return (
    <>
      {toastBox}
      {reviewerDown && (
        <div class="reviewer-banner" role="status" data-testid="reviewer-banner">
          {reviewerDown}
        </div>
      )}
      <div class="split">
        <ul class="list" data-testid="pending-list" aria-label="Waiting prompts">
          {batches.map((a) => (
            <li
              key={a.approval_id}
              data-testid="prompt"
              data-approval-id={a.approval_id}
              tabIndex={0}
              aria-selected={a.approval_id === approval.approval_id}
              class={`item risk-${a.risk}${a.approval_id === approval.approval_id ? ' sel' : ''}`}
              onClick={() => pick(a.approval_id)}
              onKeyDown={(e) => {
                if (e.key === 'Enter' || e.key === ' ') {
                  e.preventDefault();
                  pick(a.approval_id);
                }
              }}
            >
              <span class={`badge risk-${a.risk}`}>{a.risk}</span>
              <span class="title" title={subjectOf(a)}>
                {plainTitle(a.evidence.summary)}
              </span>
              {a.count > 1 && <span class="count">×{a.count}</span>}
              <span class="sub" data-testid="prompt-run" title={`${visible(a.repo ?? a.evidence.cwd)}\n${runTitle(factsOf(runs, a.run_id))}`}>
                {placeOf(a) && `${placeOf(a)} · `}
                {runWords(factsOf(runs, a.run_id), now)} ·{' '}
                <span title={absolute(a.created_at)}>asked {waitingSince(a.created_at, now)} ago</span>
              </span>
              <NotYours approval={a} me={me} />
            </li>
          ))}
        </ul>
        <section class="detail" data-testid="prompt-detail" data-approval-id={approval.approval_id}>
          <div class="evidence-scroll">
            <h2>{plainTitle(approval.evidence.summary)}</h2>
            {approval.decision === 'escalate' && (
              <p class="warn">Escalation: needs a {roleWords(approval.required_role ?? null) ?? 'person with the required role'}.</p>
            )}
            {review && (
              <p class={`review review-${review.state}`} data-testid="review" data-review-state={review.state} data-review-outcome={review.outcome ?? ''}>
                <span class="review-tag">model</span> {review.text}
              </p>
            )}
            {closed !== null && (
              <div class="decided-elsewhere" role="status" data-testid="decided-elsewhere">
                <p>
                  <strong data-testid="decided-elsewhere-text">{closed}</strong> Nothing you press here decides it.
                </p>
                <button type="button" data-testid="move-on" onClick={() => pick(next())}>
                  {ids.length > 0 ? 'Next prompt' : 'Close'}
                </button>
              </div>
            )}
            {stopped && (
              <p class="stopped" data-testid="stopped-waiting">
                {stopped}
              </p>
            )}
            {may.progress && (
              <p class="progress" data-testid="progress">
                {visible(may.progress)}
              </p>
            )}
            <Evidence approval={approval} now={now} runs={runs} settled={closed !== null} />
          </div>
          {settling && (
            <p class="sub deliberate" role="status" data-testid="just-shown">
              This prompt just took the place of the one that was here: nothing was decided. Click or press again to decide it.
            </p>
          )}
          {may.decide ? (
            <Decide
              key={approval.approval_id}
              approval={approval}
              denyReasons={denyReasons}
              onDecided={decided}
              onLost={lost}
              online={online}
              closed={closed}
              mayAct={mayAct}
              onSending={sending}
            />
          ) : (
            <p class="not-decidable decide-bar">
              Not yours to decide: <span data-testid="not-decidable">{may.why}</span>
            </p>
          )}
        </section>
      </div>
    </>
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

/** How long after the detail moved by itself a key decides nothing (the key was meant for the
 * prompt that left). */
const SETTLE_MS = 600;
