// rl-adv study's executor options (--executor, --ray-address, --gpus, --job-gpus, --job-cpus, --job-retries,
// --dry-run), the printed job graph of --dry-run, and the hidden `rl-adv study job` (the simulated backend's job
// command: one job of a run in its own process, on any node).
import type { Command } from 'commander';
import { InvalidArgumentError, Option } from 'commander';
import { createExecutor, EXECUTOR_NAMES, type ExecutorName } from '../../study/executor/index.js';
import type { Executor, JobPlan } from '../../study/executor/types.js';
import { runStudyJob } from '../../study/study-job.js';
import { CliUsageError, type CliIo } from '../core.js';
import { integerOption } from '../options.js';

/** The executor options as commander parses them. */
export interface ExecutorCliOptions {
  executor?: string;
  rayAddress?: string;
  gpus?: string[];
  jobGpus?: number;
  jobCpus?: number;
  jobRetries?: number;
  dryRun?: boolean;
}

/** Parser of --gpus: a comma-separated list of distinct GPU ids. */
function gpuList(value: string): string[] {
  const ids = value.split(',').map((s) => s.trim());
  const bad = ids.find((id, i) => !/^[0-9A-Za-z-]+$/.test(id) || ids.indexOf(id) !== i);
  if (bad !== undefined) throw new InvalidArgumentError(`must be a comma-separated list of distinct GPU ids, e.g. 0,1,2; got ${JSON.stringify(value)}.`);
  return ids;
}

/**
 * Adds the executor options to `rl-adv study`.
 *
 * @example
 * ```ts
 * addExecutorOptions(program.command('study'));
 * ```
 */
export function addExecutorOptions(command: Command): Command {
  return command
    .addOption(new Option('--executor <name>', 'where each job runs: local (child processes of this command, the default) or ray (Ray tasks on a cluster; docs/cluster.md)').choices([...EXECUTOR_NAMES]))
    .option('--ray-address <addr>', 'ray: the cluster to join (default: $RAY_ADDRESS)')
    .option('--gpus <ids>', 'local: run one job per listed GPU at a time (e.g. 0,1,2,3), each seeing only its own (CUDA_VISIBLE_DEVICES)', gpuList)
    .option('--job-gpus <n>', "each job's GPUs (default: 1 for a TRL job on a hub or folder model, else 0)", integerOption(0))
    .option('--job-cpus <n>', "each job's CPUs (default 1)", integerOption(1))
    .option('--job-retries <n>', 'retries of a job whose node or worker was lost (default 2; a failing driver is never retried)', integerOption(0))
    .option('--dry-run', 'print the job graph (each job, its resources and files) and exit, touching nothing');
}

/**
 * The executor's name, its flags checked: `--gpus` is the local executor's, `--ray-address` Ray's.
 *
 * @throws {CliUsageError} naming the flag for an option of the other executor.
 */
export function checkExecutorFlags(options: ExecutorCliOptions): ExecutorName {
  const name = (options.executor ?? 'local') as ExecutorName;
  if (name === 'ray' && options.gpus !== undefined) throw new CliUsageError('--gpus applies to --executor local only (on Ray, give each job its GPUs with --job-gpus)');
  if (name === 'local' && options.rayAddress !== undefined) throw new CliUsageError('--ray-address applies to --executor ray only');
  return name;
}

/**
 * The executor the options name (`--gpus` local only, `--ray-address` ray only), or undefined for the default.
 *
 * @throws {CliUsageError} naming the flag for an option of the other executor.
 */
export async function executorOf(options: ExecutorCliOptions): Promise<Executor | undefined> {
  const name = checkExecutorFlags(options);
  if (name === 'local' && options.gpus === undefined) return undefined;
  const address = options.rayAddress ?? process.env.RAY_ADDRESS;
  return createExecutor({ executor: name, ...(options.gpus ? { gpus: options.gpus } : {}), ...(name === 'ray' && address !== undefined ? { rayAddress: address } : {}) });
}

/** The job graph as --dry-run prints it: one block per job. */
export function formatJobGraph(plans: readonly JobPlan[]): string {
  const lines = [`${plans.length} jobs`];
  for (const p of plans) {
    const who = [p.arm === undefined ? '' : `arm ${p.arm}`, p.seed === undefined ? '' : `seed ${p.seed}`].filter((s) => s !== '').join(', ');
    lines.push(`${p.id}  kind ${p.kind}${who === '' ? '' : `, ${who}`}; ${p.resources.gpus} GPU, ${p.resources.cpus} CPU`);
    const list = (files: readonly string[]): string => (files.length === 0 ? '(nothing)' : files.join(', '));
    lines.push(`  reads  ${list(p.reads)}`);
    lines.push(`  writes ${list(p.writes)}`);
  }
  return lines.join('\n') + '\n';
}

/**
 * Registers the hidden `rl-adv study job --run-dir RUN --job ID`: one job of a simulated run in this process, its
 * result printed as one JSON line (the sim's job command under an executor that runs each job as a process).
 *
 * @example
 * ```ts
 * registerStudyJob(studyCommand, io);
 * ```
 */
export function registerStudyJob(study: Command, io: CliIo): void {
  study
    .command('job', { hidden: true })
    .summary('run one job of a simulated run (the job command the executors run)')
    .requiredOption('--run-dir <dir>', 'the run folder (its run.json and summary.json say everything else)')
    .requiredOption('--job <id>', 'the job id, as --dry-run prints it')
    .action(async (options: { runDir: string; job: string }) => {
      const result = await runStudyJob(options.runDir, options.job);
      io.stdout.write(JSON.stringify(result) + '\n');
    });
}
