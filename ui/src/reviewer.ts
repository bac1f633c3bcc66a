// The model reviewer's part of a prompt, in words the person reads: always named as a model's
// ("Reviewer (qwen3:8b) …"), never as a person's decision. Pure and tested; the rationale is
// the model's own text (untrusted), shown as text only.
import type { Approval, ApprovalReview, AuditEvent } from './types';

/** The reviewer's part, as the detail shows it. */
export interface ReviewLine {
  /** `reviewing`, `approved`, `advised`, `failed`, `not_eligible`. */
  state: ApprovalReview['state'];
  /** For an opinion: `approve` or `ask_person`; else null. */
  outcome: string | null;
  /** The sentence, rationale included. */
  text: string;
}

/** Who decided, when a model did: `reviewer:qwen3:8b` → `qwen3:8b`; null for a person. */
export function reviewerModel(actor: string | null | undefined): string | null {
  return actor && actor.startsWith('reviewer:') ? actor.slice('reviewer:'.length) : null;
}

/** Who acted, for people: `reviewer:qwen3:8b` → "Reviewer (qwen3:8b), a model"; a person as named. */
export function actorWords(actor: string): string {
  const model = reviewerModel(actor);
  return model === null ? actor : `Reviewer (${model}), a model`;
}

/** "approve" → "would approve"; "ask_person" → "would ask you". */
export function opinionWords(outcome: string | null | undefined): string {
  if (outcome === 'approve') return 'would approve';
  if (outcome === 'ask_person') return 'would ask you';
  return 'gave no verdict';
}

/** What the reviewer's part of a prompt says, or null when there is none. */
export function reviewLine(review: ApprovalReview | null | undefined): ReviewLine | null {
  if (!review) return null;
  const who = `Reviewer (${review.model})`;
  const why = review.rationale.trim();
  const outcome = review.outcome ?? null;
  const line = (text: string, state: ApprovalReview['state'] = review.state): ReviewLine => ({ state, outcome, text });
  switch (review.state) {
    case 'reviewing':
      return line(`${who} is reviewing…`);
    case 'approved':
      return line(`${who} approved this alone${why ? ` — ${why}` : ''}`);
    case 'advised':
      // In advise mode the call is under way while the prompt is `advised` with no verdict yet.
      if (outcome === null) return line(`${who} is reviewing…`, 'reviewing');
      return line(`${who}: ${opinionWords(outcome)}${why ? ` — ${why}` : ''}`);
    case 'failed':
      return line(`${who} failed: ${why || 'no valid verdict'} — asking you`);
    case 'not_eligible':
      return line(`${who} may not decide this: ${why || 'the policy keeps it with a person'}`);
  }
  return null;
}

/** The banner while the reviewer is down (3 failures in a row): any pending prompt says so. */
export function reviewerBanner(pending: Approval[]): string | null {
  return pending.some((a) => a.review?.reviewer_unavailable === true) ? 'Reviewer unavailable: asking you' : null;
}

/** An audit row of a reviewer's call, in words (history): model, state, outcome, rationale. */
export function reviewedWords(event: AuditEvent): string | null {
  if (event.decision !== 'reviewed') return null;
  const r = event.review;
  const model = r?.model ?? reviewerModel(event.approver) ?? 'model';
  const why = (r?.rationale ?? event.reason).trim();
  const tail = why ? ` — ${why}` : '';
  switch (r?.state) {
    case 'approved':
      return `Reviewer (${model}) approved it alone${tail}`;
    case 'failed':
      return `Reviewer (${model}) failed${tail}; the person decides`;
    case 'not_eligible':
      return `Reviewer (${model}) may not decide this${tail}`;
    default:
      return `Reviewer (${model}): ${opinionWords(r?.outcome)}${tail}`;
  }
}
