// The study's one scheduler: independent jobs (an arm x seed trained, an arm x seed evaluated) run at most `limit`
// at a time, on every backend. A real backend's job waits on a driver process, so jobs overlap in wall time; the
// simulated backend's jobs are synchronous and run one after another through the same code. Results come back in
// the jobs' order, never in order of completion, so every artifact written from them is the same for any limit.
import { RlAdvantagesError } from '../errors.js';

/** One job: a label for progress lines and the work. */
export interface StudyJob<T> {
  /** e.g. `grpo_g8 seed 2: train`. */
  readonly label: string;
  readonly run: () => Promise<T>;
}

/**
 * Runs `jobs` with at most `limit` running at once and returns their results in the jobs' order. When a job fails,
 * no new job starts, the running ones finish (their artifacts are kept), and the first failure in job order is
 * thrown.
 *
 * @param jobs - the jobs, in the order their results are wanted.
 * @param limit - the most jobs running at once, an integer >= 1 (`rl-adv study --jobs`).
 * @param onEvent - told when a job starts and ends (progress lines).
 * @throws {RlAdvantagesError} `bad_option` (field `jobs`) for a limit that is not an integer >= 1; else the failed
 *   job's own error.
 * @example
 * ```ts
 * const out = await runJobs([{ label: 'a', run: async () => 1 }, { label: 'b', run: async () => 2 }], 2);
 * // out = [1, 2]
 * ```
 */
export async function runJobs<T>(
  jobs: readonly StudyJob<T>[],
  limit: number,
  onEvent?: (event: { kind: 'start' | 'done' | 'failed'; label: string; index: number }) => void,
): Promise<T[]> {
  if (!Number.isInteger(limit) || limit < 1) {
    throw new RlAdvantagesError(`--jobs must be an integer >= 1, got ${String(limit)}`, { code: 'bad_option', field: 'jobs' });
  }
  const results: T[] = new Array<T>(jobs.length);
  const errors = new Map<number, unknown>();
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < jobs.length && errors.size === 0) {
      const index = next++;
      const job = jobs[index] as StudyJob<T>;
      onEvent?.({ kind: 'start', label: job.label, index });
      try {
        results[index] = await job.run();
        onEvent?.({ kind: 'done', label: job.label, index });
      } catch (error) {
        errors.set(index, error);
        onEvent?.({ kind: 'failed', label: job.label, index });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, jobs.length) }, worker));
  if (errors.size > 0) throw errors.get(Math.min(...errors.keys()));
  return results;
}
