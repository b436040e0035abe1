// The study's one scheduler. runJobs: independent jobs (an arm x seed trained, an arm x seed evaluated) run at most `limit`
// at a time, on every backend. A real backend's job waits on a driver process, so jobs overlap in wall time; the
// simulated backend's jobs are synchronous and run one after another through the same code. Results come back in
// the jobs' order, never in order of completion, so every artifact written from them is the same for any limit.
// JobScheduler: every described job's process (src/study/executor/types.ts) goes through it to an executor, with
// the retries, the cancellation and the ledger RUN/jobs.jsonl.
import type { CancelSignal } from './executor/types.js';
import { RlAdvantagesError } from '../errors.js';
import { appendLedger, ledgerLine, type AttemptOutcome } from './executor/ledger.js';

type AttemptResult = { readonly kind: 'done'; readonly attempt: JobAttempt } | { readonly kind: Exclude<AttemptOutcome, 'done'>; readonly error: unknown };
import { JobLostError, type Executor, type JobAttempt, type JobDescription, type JobPlacement } from './executor/types.js';

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
 * @param limit - the most jobs running at once, an integer >= 1 (`rl-adv study --jobs`), or Infinity.
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
  if (limit !== Infinity && (!Number.isInteger(limit) || limit < 1)) {
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

/** What the scheduler of described jobs needs. */
export interface JobSchedulerOptions {
  readonly executor: Executor;
  /** The run folder: the ledger is RUN/jobs.jsonl. */
  readonly runDir: string;
  /** The most attempts running at once (Infinity: as many as the executor takes, e.g. Ray's resources). */
  readonly limit: number;
  /** Retries of an attempt lost with its node or worker (`--job-retries`, default 2). */
  readonly retries: number;
  /** Ctrl-C: cancels every running attempt and refuses new ones. */
  readonly signal?: CancelSignal;
  /** Told of each attempt's start and end. */
  readonly onEvent?: (event: JobEvent) => void;
}

/** A scheduler event for progress lines. */
export interface JobEvent {
  readonly kind: 'start' | AttemptOutcome;
  readonly job: JobDescription;
  readonly attempt: number;
  readonly placement?: JobPlacement;
  /** The error's message, for `lost` and `failed`. */
  readonly message?: string;
}

/** The scheduler's defaults: `--job-retries`. */
export const DEFAULT_JOB_RETRIES = 2;

/**
 * The study's one scheduler of described jobs (every backend's preflight, sampling, training and eval): at most
 * `limit` attempts at once through the executor, a lost attempt (JobLostError) retried up to `retries` times (a
 * training job resumes from the arm's last checkpoint), a deterministic failure (`driver_failed`) stopping the study
 * after one attempt with the driver's message, every running attempt cancelled on Ctrl-C or on a failure, and one
 * line per attempt in RUN/jobs.jsonl.
 *
 * @example
 * ```ts
 * const scheduler = new JobScheduler({ executor: new LocalExecutor(), runDir: '/runs/a', limit: 2, retries: 2 });
 * const attempt = await scheduler.run(job); // attempt.stdout, attempt.placement
 * ```
 */
export class JobScheduler {
  private readonly stop = new AbortController();
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  private failure: unknown;

  /**
   * @throws {RlAdvantagesError} `bad_option` (field `job-retries`) for retries that are not an integer >= 0, (field
   *   `jobs`) for a limit that is neither an integer >= 1 nor Infinity.
   */
  constructor(private readonly options: JobSchedulerOptions) {
    if (!Number.isInteger(options.retries) || options.retries < 0) {
      throw new RlAdvantagesError(`--job-retries must be an integer >= 0, got ${String(options.retries)}`, { code: 'bad_option', field: 'job-retries' });
    }
    if (options.limit !== Infinity && (!Number.isInteger(options.limit) || options.limit < 1)) {
      throw new RlAdvantagesError(`--jobs must be an integer >= 1, got ${String(options.limit)}`, { code: 'bad_option', field: 'jobs' });
    }
    const outer = options.signal;
    if (outer !== undefined) {
      if (outer.aborted) this.stop.abort();
      else outer.addEventListener('abort', () => this.stop.abort(), { once: true });
    }
  }

  /** The executor's name (the ledger's `executor`). */
  get executorName(): 'local' | 'ray' {
    return this.options.executor.name;
  }

  /**
   * Runs one job to its end (retrying lost attempts).
   *
   * @throws {RlAdvantagesError} the job's `driver_failed`; `job_lost` after the last retry; `job_cancelled` when the
   *   study was interrupted or another job failed.
   */
  async run(job: JobDescription): Promise<JobAttempt> {
    await this.slot();
    try {
      for (let attempt = 1; ; attempt++) {
        const outcome = await this.attempt(job, attempt);
        if (outcome.kind === 'done') return outcome.attempt;
        if (outcome.kind === 'lost' && attempt <= this.options.retries && !this.stop.signal.aborted) continue;
        throw outcome.error;
      }
    } finally {
      this.release();
    }
  }

  /** Runs jobs at once (up to the limit) and returns their attempts in the jobs' order; the first failure in job order is thrown. */
  async runAll(jobs: readonly JobDescription[]): Promise<JobAttempt[]> {
    const settled = await Promise.allSettled(jobs.map((job) => this.run(job)));
    const failed = settled.find((s) => s.status === 'rejected' && !isCancelled(s.reason)) ?? settled.find((s) => s.status === 'rejected');
    if (failed !== undefined) throw (failed as PromiseRejectedResult).reason;
    return settled.map((s) => (s as PromiseFulfilledResult<JobAttempt>).value);
  }

  /** One attempt, its ledger line written when it ends. */
  private async attempt(job: JobDescription, attempt: number): Promise<AttemptResult> {
    const { executor, runDir, onEvent } = this.options;
    const start = new Date();
    if (this.stop.signal.aborted) throw this.failure ?? cancelledJob(job);
    onEvent?.({ kind: 'start', job, attempt });
    let result: AttemptResult;
    let placement: JobPlacement | undefined;
    try {
      const done = await executor.run(job, attempt, this.stop.signal);
      placement = done.placement;
      result = { kind: 'done', attempt: done };
    } catch (error) {
      placement = error instanceof JobLostError ? error.placement : undefined;
      const kind: Exclude<AttemptOutcome, 'done'> = error instanceof JobLostError ? 'lost' : this.stop.signal.aborted || isCancelled(error) ? 'cancelled' : 'failed';
      result = { kind, error: kind === 'cancelled' ? (this.failure ?? error) : error };
      if (kind === 'failed') {
        this.failure ??= error;
        this.stop.abort();
      }
    }
    appendLedger(runDir, ledgerLine(job, attempt, { start: placement?.started ?? start, end: new Date() }, result.kind, executor.name, placement));
    const message = result.kind === 'done' ? undefined : (result.error as Error).message;
    onEvent?.({ kind: result.kind, job, attempt, ...(placement ? { placement } : {}), ...(message === undefined ? {} : { message }) });
    return result;
  }

  private slot(): Promise<void> {
    if (this.running < this.options.limit) {
      this.running++;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next === undefined) this.running--;
    else next();
  }
}

function isCancelled(error: unknown): boolean {
  return error instanceof RlAdvantagesError && error.code === 'job_cancelled';
}

function cancelledJob(job: JobDescription): RlAdvantagesError {
  return new RlAdvantagesError(`job ${job.id} was cancelled`, { code: 'job_cancelled' });
}
