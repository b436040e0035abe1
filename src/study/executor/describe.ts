// How a backend turns a job of the study's graph into the process that does it and runs it through the study's
// scheduler: the plan (id, kind, resources, files) plus the command and its log RUN/logs/<name>.log.
import { pathUnder } from '../../internal/path-parts.js';
import type { StudyContext } from '../backends/types.js';
import { LocalExecutor } from './local.js';
import type { JobCommand, JobDescription, JobPlan } from './types.js';

/**
 * The job's description: `plan` (absent when a backend is called on its own: a plan named `fallbackId`, 0 GPU, 1
 * CPU) with its command and its log.
 *
 * @example
 * ```ts
 * const job = describeJob(ctx, plan, { id: 'calibration', kind: 'calibration' }, { argv: [python, '-m', 'rl_advantages.study', 'sample'], env: {}, cwd: ctx.dir }, 'calibration');
 * ```
 */
export function describeJob(
  ctx: StudyContext,
  plan: JobPlan | undefined,
  fallback: Pick<JobPlan, 'id' | 'kind'> & Partial<JobPlan>,
  command: JobCommand,
  logName: string,
): JobDescription {
  const base: JobPlan = plan ?? { reads: [ctx.specPath], writes: [], resources: { gpus: 0, cpus: 1 }, ...fallback };
  return { ...base, command, logFile: pathUnder(ctx.dir, 'logs', `${logName}.log`) };
}

/**
 * Runs a described job through the study's scheduler (ctx.jobs), else directly on this machine; its stdout.
 *
 * @throws {RlAdvantagesError} the executor's `driver_failed` (the log's tail), `job_lost` after the retries,
 *   `job_cancelled`.
 * @example
 * ```ts
 * const stdout = await runDescribedJob(ctx, job);
 * ```
 */
export async function runDescribedJob(ctx: StudyContext, job: JobDescription): Promise<string> {
  if (ctx.jobs !== undefined) return (await ctx.jobs.run(job)).stdout;
  return (await new LocalExecutor().run(job, 1, new AbortController().signal)).stdout;
}

/**
 * Environment values of a job's command: the given keys of `env` that are set (never secrets a job does not need).
 *
 * @example
 * ```ts
 * commandEnv(process.env, ['PYTHONPATH', 'HF_HOME']); // { PYTHONPATH: '...' } (the keys that are set)
 * ```
 */
export function commandEnv(env: Readonly<Record<string, string | undefined>>, keys: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of keys) {
    const value = env[key];
    if (value !== undefined) out[key] = value;
  }
  return out;
}
