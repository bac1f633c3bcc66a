// The Insights view's suggestions, pure and tested (Vitest): what each proposes, and what came
// of applying it — kept on screen after the list refreshes, since an applied suggestion is no
// longer suggested.
import { visible } from './text';
import type { CommandError, PolicyChange, Suggestion, SuggestionApplied } from './types';

/** What applying a suggestion came to. */
export type Outcome =
  | { state: 'applying' }
  | { state: 'applied'; answer: SuggestionApplied }
  | { state: 'error'; error: CommandError };

/** One line of the list: a suggestion, with what came of applying it if anything did. */
export interface SuggestionRow {
  suggestion: Suggestion;
  outcome?: Outcome;
  /** Still proposed by the service (an applied one stays shown until the view reloads). */
  listed: boolean;
}

/** The change as a person reads it. */
export function changeText(change: PolicyChange): string {
  switch (change.change) {
    case 'trust_repo':
      return `Trust ${visible(change.repo)}: its verifier commands run without asking`;
    case 'block_command':
      return `Block "${visible(change.pattern)}" instead of asking`;
  }
}

/** What happened, for the line under the suggestion. */
export function outcomeText(outcome: Outcome): string {
  switch (outcome.state) {
    case 'applying':
      return 'Applying…';
    case 'applied':
      return `Applied: ${visible(outcome.answer.applied)}. In force now (policy ${outcome.answer.policy_version.slice(0, 12)}).`;
    case 'error':
      return outcome.error.code === 'unavailable'
        ? `Not applied: the service cannot be reached (${outcome.error.message}).`
        : `Not applied: ${outcome.error.message}`;
  }
}

/** The service's list, then what was applied (or failed) here and is no longer listed. */
export function suggestionRows(
  listed: Suggestion[],
  outcomes: Map<string, { suggestion: Suggestion; outcome: Outcome }>,
): SuggestionRow[] {
  const rows: SuggestionRow[] = listed.map((suggestion) => ({
    suggestion,
    outcome: outcomes.get(suggestion.id)?.outcome,
    listed: true,
  }));
  const shown = new Set(listed.map((s) => s.id));
  for (const [id, { suggestion, outcome }] of outcomes) {
    if (!shown.has(id)) rows.push({ suggestion, outcome, listed: false });
  }
  return rows;
}

/** Whether the row offers its Apply button: listed, and not applied or being applied. */
export function canApply(row: SuggestionRow): boolean {
  return row.listed && row.outcome?.state !== 'applying' && row.outcome?.state !== 'applied';
}
