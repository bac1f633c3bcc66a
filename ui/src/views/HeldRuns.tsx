import { useState } from 'preact/hooks';
import { api } from '../api';
import { heldRunLine } from '../logic';
import type { CommandError, RunState } from '../types';

/** Runs paused because nobody answered a prompt in time: the agent waits until a person resumes. */
export function HeldRuns({ runs }: { runs: RunState[] }) {
  const [error, setError] = useState<string | null>(null);
  if (runs.length === 0) return null;
  const now = Date.now();

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
            <span>{heldRunLine(run, now)}</span>
            <button type="button" data-testid={`resume-${run.run_id}`} onClick={() => resume(run)}>
              Resume run
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}
