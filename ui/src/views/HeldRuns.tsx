import { useState } from 'preact/hooks';
import { api } from '../api';
import type { Approval, CommandError, RunState } from '../types';
import { factsOf, heldRunWords, knownRuns, runTitle } from '../words';

/**
 * Runs paused because nobody answered a prompt in time: the agent waits until a person
 * resumes. Each named by its agent and when the window first saw it, from the prompts in
 * `pending` (a paused run's prompt may still be there).
 */
export function HeldRuns({ runs, pending = [] }: { runs: RunState[]; pending?: Approval[] }) {
  const [error, setError] = useState<string | null>(null);
  if (runs.length === 0) return null;
  const now = Date.now();
  const known = knownRuns(pending);

  const resume = async (run: RunState) => {
    setError(null);
    try {
      await api.resumeRun(run.run_id);
    } catch (err) {
      setError((err as CommandError).message);
    }
  };

  return (
    <section class="held-runs" data-testid="held-runs">
      <h2>Paused runs</h2>
      {error && <p class="error">{error}</p>}
      <ul>
        {runs.map((run) => (
          <li key={run.run_id} data-testid={`held-${run.run_id}`}>
            <span title={runTitle(factsOf(known, run.run_id))}>{heldRunWords(factsOf(known, run.run_id), run.reason, run.updated_at, now)}</span>
            <button type="button" data-testid={`resume-${run.run_id}`} onClick={() => resume(run)}>
              Resume run
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}
