import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../api';
import { DAYS } from '../insights';
import { visible } from '../text';
import { canApply, changeText, type Outcome, outcomeText, suggestionRows } from '../suggestions';
import type { CommandError, Suggestion } from '../types';

/** Policy changes proposed from what people decided, each with its evidence, applied by one click. */
export function Suggestions({ reload }: { reload: unknown }) {
  const [listed, setListed] = useState<Suggestion[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [outcomes, setOutcomes] = useState(new Map<string, { suggestion: Suggestion; outcome: Outcome }>());
  const latest = useRef(0);

  const load = () => {
    const call = ++latest.current;
    return api
      .suggestions(DAYS)
      .then((answer) => {
        if (call !== latest.current) return;
        setListed(answer);
        setError(null);
      })
      .catch((err: CommandError) => {
        if (call === latest.current) setError(err.message);
      });
  };

  useEffect(() => void load(), [reload]);

  const settle = (suggestion: Suggestion, outcome: Outcome) =>
    setOutcomes((before) => new Map(before).set(suggestion.id, { suggestion, outcome }));

  const apply = (suggestion: Suggestion) => {
    settle(suggestion, { state: 'applying' });
    api
      .applySuggestion(suggestion.change, DAYS)
      .then((answer) => settle(suggestion, { state: 'applied', answer }))
      .catch((err: CommandError) => settle(suggestion, { state: 'error', error: err }))
      .finally(() => void load());
  };

  const rows = listed ? suggestionRows(listed, outcomes) : [];
  return (
    <section class="suggestions" data-testid="suggestions">
      <h2>Suggestions</h2>
      {error && (
        <p class="error" data-testid="suggestions-error">
          {error}
        </p>
      )}
      {listed && rows.length === 0 && (
        <p class="empty" data-testid="suggestions-empty">
          {`No suggestion: in the last ${DAYS} days no verifier was always approved in a repo, and no command always denied.`}
        </p>
      )}
      {rows.map((row) => (
        <div
          key={row.suggestion.id}
          class="suggestion"
          data-testid="suggestion"
          data-suggestion-id={row.suggestion.id}
          data-change={row.suggestion.change.change}
        >
          <div>
            <strong data-testid="suggestion-change">{changeText(row.suggestion.change)}</strong>
            <p class="sub" data-testid="suggestion-evidence">
              {visible(row.suggestion.evidence)}
            </p>
            {row.outcome && (
              <p class={row.outcome.state === 'error' ? 'error' : 'done'} data-testid="suggestion-outcome" data-outcome={row.outcome.state}>
                {outcomeText(row.outcome)}
              </p>
            )}
          </div>
          {row.listed && (
            <button data-testid="suggestion-apply" disabled={!canApply(row)} onClick={() => apply(row.suggestion)}>
              Apply
            </button>
          )}
        </div>
      ))}
    </section>
  );
}
