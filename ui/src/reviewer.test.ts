import { describe, expect, it } from 'vitest';
import { reviewedWords, reviewerBanner, reviewerModel, reviewLine } from './reviewer';
import type { Approval, ApprovalReview, AuditEvent } from './types';

const base: ApprovalReview = { model: 'qwen3:8b', rationale: 'runs the tests, nothing else', state: 'advised', outcome: 'approve', risk: 'low' };

describe('reviewLine', () => {
  it("says each state as a model's part, naming the model", () => {
    // Every line names the model: the person must never read a model's opinion as a decision.
    expect(reviewLine(base)?.text).toBe('Reviewer (qwen3:8b): would approve — runs the tests, nothing else');
    expect(reviewLine({ ...base, outcome: 'ask_person', rationale: 'pushes to main' })?.text).toBe('Reviewer (qwen3:8b): would ask you — pushes to main');
    expect(reviewLine({ ...base, state: 'failed', outcome: undefined, risk: undefined, rationale: 'the reviewer timed out after 20s' })?.text).toBe(
      'Reviewer (qwen3:8b) failed: the reviewer timed out after 20s — asking you',
    );
    expect(reviewLine({ ...base, state: 'not_eligible', outcome: undefined, rationale: 'a push publishes' })?.text).toBe(
      'Reviewer (qwen3:8b) may not decide this: a push publishes',
    );
    // While reviewing, no rationale exists yet: only that it is being asked.
    expect(reviewLine({ ...base, state: 'reviewing', outcome: undefined, rationale: 'reviewing' })?.text).toBe('Reviewer (qwen3:8b) is reviewing…');
    // Advise mode: the prompt is `advised` with no verdict while the call is under way.
    expect(reviewLine({ ...base, outcome: undefined, risk: undefined, rationale: 'reviewing' })).toEqual({
      state: 'reviewing', outcome: null, text: 'Reviewer (qwen3:8b) is reviewing…',
    });
    expect(reviewLine({ ...base, state: 'approved' })?.text).toBe('Reviewer (qwen3:8b) approved this alone — runs the tests, nothing else');
  });

  it('says nothing when the reviewer has no part', () => {
    // No [reviewer] in the policy: no line at all, not an empty box.
    expect(reviewLine(undefined)).toBeNull();
    expect(reviewLine(null)).toBeNull();
  });

  it('keeps the outcome apart for styling, and null without a verdict', () => {
    expect(reviewLine(base)?.outcome).toBe('approve');
    expect(reviewLine({ ...base, state: 'failed', outcome: undefined })?.outcome).toBeNull();
  });
});

describe('reviewerBanner', () => {
  const prompt = (review?: ApprovalReview) => ({ approval_id: 'a', review }) as Approval;
  it('shows while any pending prompt says the reviewer is unavailable', () => {
    expect(reviewerBanner([prompt(base), prompt({ ...base, state: 'failed', reviewer_unavailable: true })])).toBe('Reviewer unavailable: asking you');
  });
  it('is absent while the reviewer answers, or without one', () => {
    // A single failure is the prompt's line, not a banner: the banner means 3 in a row.
    expect(reviewerBanner([prompt({ ...base, state: 'failed' }), prompt()])).toBeNull();
    expect(reviewerBanner([])).toBeNull();
  });
});

describe('reviewerModel', () => {
  it('reads the model out of reviewer:<model>, and nothing out of a person', () => {
    expect(reviewerModel('reviewer:qwen3:8b')).toBe('qwen3:8b');
    expect(reviewerModel('alice')).toBeNull();
    expect(reviewerModel(null)).toBeNull();
  });
});

describe('reviewedWords', () => {
  const event = (review: AuditEvent['review'], reason = ''): AuditEvent =>
    ({ decision: 'reviewed', approver: 'reviewer:qwen3:8b', reason, review }) as AuditEvent;
  const call = { model: 'qwen3:8b', prompt_version: 'assent-reviewer/1', latency_ms: 80, request_sha256: 'ab' };
  it('says model, outcome and rationale of each audited call', () => {
    expect(reviewedWords(event({ ...call, state: 'approved', outcome: 'approve', rationale: 'tests only' }))).toBe('Reviewer (qwen3:8b) approved it alone — tests only');
    expect(reviewedWords(event({ ...call, state: 'advised', outcome: 'ask_person', rationale: 'pushes' }))).toBe('Reviewer (qwen3:8b): would ask you — pushes');
    expect(reviewedWords(event({ ...call, state: 'failed', rationale: 'the reviewer timed out after 1s' }))).toBe(
      'Reviewer (qwen3:8b) failed — the reviewer timed out after 1s; the person decides',
    );
  });
  it('is null for any other audit row', () => {
    expect(reviewedWords({ decision: 'approved', approver: 'alice', reason: '' } as AuditEvent)).toBeNull();
  });
});
