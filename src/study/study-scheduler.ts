// The scheduler of one study run: its executor (the caller's, else a LocalExecutor), the most jobs at once, the
// retries, Ctrl-C, and what the backends are handed to run their jobs' processes (StudyContext.jobs).
import { availableParallelism } from 'node:os';
import path from 'node:path';
import type { StudyJobRunner } from './backends/types.js';
import { LocalExecutor } from './executor/local.js';
import type { Executor, JobPlan } from './executor/types.js';
import { DEFAULT_JOB_RETRIES, JobScheduler } from './jobs.js';
import type { StudyOptions } from './options.js';

/**
 * The most jobs running at once: --jobs; else one per --gpus GPU (local); else, on Ray, as many as the cluster's
 * resources take (Ray queues the rest); else the machine's cores.
 *
 * @example
 * ```ts
 * studyJobLimit({ jobs: 4 }); // 4
 * ```
 */
export function studyJobLimit(options: Pick<StudyOptions, 'jobs' | 'executor'>): number {
  if (options.jobs !== undefined) return options.jobs;
  const executor = options.executor;
  if (executor === undefined) return availableParallelism();
  if (executor.name === 'ray') return Infinity;
  const gpus = executor instanceof LocalExecutor ? executor.gpuIds : undefined;
  return gpus === undefined ? availableParallelism() : gpus.length;
}

/** A run's scheduler: what the backends are handed, and the executor's check of the whole graph. */
export interface StudyScheduler {
  readonly runner: StudyJobRunner;
  /** The executor's check before any job (resources, shared folder, drivers), over the graph's plans. */
  prepare(plans: readonly JobPlan[]): Promise<void>;
}

/**
 * The scheduler of a run in `dir` with the options' executor, limit, retries and signal; lost, failed and retried
 * attempts are told as notes.
 *
 * @throws {RlAdvantagesError} `bad_option` (field `job-retries`) for retries that are not an integer >= 0.
 * @example
 * ```ts
 * const { runner } = studyScheduler({ ...options, executor: new LocalExecutor() }, '/runs/a');
 * ```
 */
export function studyScheduler(options: StudyOptions, dir: string): StudyScheduler {
  const executor: Executor = options.executor ?? new LocalExecutor();
  const retries = options.jobRetries ?? DEFAULT_JOB_RETRIES;
  const scheduler = new JobScheduler({
    executor,
    runDir: dir,
    limit: studyJobLimit(options),
    retries,
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    onEvent: (e) => {
      if (e.kind !== 'lost') return;
      const where = e.placement === undefined ? '' : ` on ${e.placement.node}`;
      const next = e.attempt <= retries ? `retrying (attempt ${e.attempt + 1} of ${retries + 1})` : `no retries left (--job-retries ${retries})`;
      options.onPhase?.({ kind: 'note', line: `job ${e.job.id} lost${where}: ${e.message ?? ''}; ${next}` });
    },
  });
  return {
    runner: {
      run: (job) => scheduler.run(job),
      inProcess: executor.name === 'local' && options.simJobs !== 'process',
      cli: [process.execPath, path.resolve(options.cliPath ?? process.argv[1] ?? 'rl-adv')],
    },
    // The graph's plans, each with the empty command of a job not yet described by its backend.
    prepare: (plans) => executor.prepare(dir, plans.map((plan) => ({ ...plan, command: { argv: [], env: {}, cwd: dir }, logFile: '' }))),
  };
}
