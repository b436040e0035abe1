// The local executor (`rl-adv study --executor local`, the default): a job's command runs as a child process of the
// orchestrator, its stdout returned and its stdout and stderr kept in the job's log (an earlier attempt's log is
// kept as <name>.<n>.log). With `--gpus 0,1,...` each job takes GPUs from that list (one job per listed GPU at a
// time, or the job's `--job-gpus` of them) and sees only them (CUDA_VISIBLE_DEVICES).
import type { CancelSignal } from './types.js';
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, renameSync, statSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { RlAdvantagesError } from '../../errors.js';
import type { Executor, JobAttempt, JobDescription } from './types.js';

/** The local executor's settings. */
export interface LocalExecutorOptions {
  /** `--gpus`: the GPU ids jobs are placed on (absent: jobs see the machine's GPUs, `--jobs` at once). */
  readonly gpus?: readonly string[];
  /** The environment every job starts from (default: process.env); the job's own `command.env` is added. */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/** Lines of the log's tail quoted in a failure message. */
const TAIL_LINES = 5;

/**
 * An earlier attempt's log (a job killed, then run again) moves to <name>.<n>.log, n the first free number, so that
 * the new attempt never overwrites it.
 *
 * @example
 * ```ts
 * keepEarlierLog('/runs/a/logs/train_grpo.log'); // an existing log becomes train_grpo.1.log
 * ```
 */
export function keepEarlierLog(logFile: string): void {
  if (!existsSync(logFile) || statSync(logFile).size === 0) return;
  const base = logFile.replace(/\.log$/, '');
  let n = 1;
  while (existsSync(`${base}.${n}.log`)) n++;
  renameSync(logFile, `${base}.${n}.log`);
}

/** The last lines of a log, for a failure message. */
function logTail(logFile: string): string {
  return readFileSync(logFile, 'utf8').trim().split('\n').slice(-TAIL_LINES).join('\n  ');
}

/** How a job is named in messages: a driver module's command, the sim's job command, else the script's name. */
function jobLabel(job: JobDescription): string {
  const argv = job.command.argv;
  if (argv[1] === '-m') return `${String(argv[2])} ${String(argv[3] ?? '')}`.trim();
  if (argv.includes('--job')) return `rl-adv study job ${job.id}`;
  return path.basename(argv[1] ?? argv[0] ?? job.id);
}

/** A pool of GPU ids handed out one job at a time, in the order listed. */
class GpuPool {
  private readonly free: string[];
  private readonly waiting: { count: number; grant: (ids: string[]) => void }[] = [];

  constructor(readonly ids: readonly string[]) {
    this.free = [...ids];
  }

  /** Waits for `count` free GPUs (the lowest listed first). */
  take(count: number): Promise<string[]> {
    return new Promise((grant) => {
      this.waiting.push({ count, grant });
      this.serve();
    });
  }

  give(ids: readonly string[]): void {
    this.free.push(...ids);
    this.free.sort((a, b) => this.ids.indexOf(a) - this.ids.indexOf(b));
    this.serve();
  }

  private serve(): void {
    while (this.waiting.length > 0 && (this.waiting[0]?.count ?? 0) <= this.free.length) {
      const next = this.waiting.shift() as { count: number; grant: (ids: string[]) => void };
      next.grant(this.free.splice(0, next.count));
    }
  }
}

/** Runs each job as a child process on this machine. */
export class LocalExecutor implements Executor {
  readonly name = 'local' as const;
  private readonly pool: GpuPool | undefined;
  private readonly env: Readonly<Record<string, string | undefined>>;
  private readonly node = hostname();

  /**
   * @throws {RlAdvantagesError} `bad_option` (field `gpus`) for an empty or repeated GPU id.
   */
  constructor(options: LocalExecutorOptions = {}) {
    this.env = options.env ?? process.env;
    if (options.gpus !== undefined) {
      const bad = options.gpus.findIndex((id, i) => !/^[0-9A-Za-z-]+$/.test(id) || options.gpus?.indexOf(id) !== i);
      if (options.gpus.length === 0 || bad >= 0) {
        throw new RlAdvantagesError(`--gpus must list distinct GPU ids (e.g. 0,1,2), got ${JSON.stringify(options.gpus.join(','))}`, { code: 'bad_option', field: 'gpus', ...(bad >= 0 ? { index: bad } : {}) });
      }
      this.pool = new GpuPool(options.gpus);
    }
  }

  /** The `--gpus` ids, when given. */
  get gpuIds(): readonly string[] | undefined {
    return this.pool?.ids;
  }

  /** The GPUs a job takes from `--gpus`: its own count, at least one (one job per listed GPU at a time). */
  private gpusOf(job: JobDescription): number {
    return Math.max(1, Math.ceil(job.resources.gpus));
  }

  prepare(_runDir: string, jobs: readonly JobDescription[]): Promise<void> {
    const pool = this.pool;
    if (pool === undefined) return Promise.resolve();
    const big = jobs.find((job) => this.gpusOf(job) > pool.ids.length);
    if (big !== undefined) {
      return Promise.reject(
        new RlAdvantagesError(`--job-gpus: job ${big.id} needs ${big.resources.gpus} GPUs but --gpus lists ${pool.ids.length} (${pool.ids.join(',')})`, { code: 'bad_option', field: 'job-gpus' }),
      );
    }
    return Promise.resolve();
  }

  async run(job: JobDescription, _attempt: number, signal: CancelSignal): Promise<JobAttempt> {
    const gpuIds = this.pool === undefined ? [] : await this.pool.take(this.gpusOf(job));
    try {
      if (signal.aborted) throw cancelled(job);
      const stdout = await this.spawnJob(job, gpuIds, signal);
      return { stdout, placement: { node: this.node, gpuIds } };
    } finally {
      if (this.pool !== undefined) this.pool.give(gpuIds);
    }
  }

  private spawnJob(job: JobDescription, gpuIds: readonly string[], signal: CancelSignal): Promise<string> {
    mkdirSync(path.dirname(job.logFile), { recursive: true });
    keepEarlierLog(job.logFile);
    const env = { ...this.env, ...job.command.env, ...(this.pool === undefined ? {} : { CUDA_VISIBLE_DEVICES: gpuIds.join(',') }) };
    const [program, ...args] = job.command.argv;
    return new Promise((resolve, reject) => {
      const fd = openSync(job.logFile, 'w');
      const child = spawn(program ?? '', args, { env, cwd: job.command.cwd, stdio: ['ignore', 'pipe', fd] });
      let stdout = '';
      const onAbort = (): void => {
        child.kill('SIGTERM');
      };
      signal.addEventListener('abort', onAbort, { once: true });
      child.stdout?.on('data', (chunk: Buffer) => {
        stdout += chunk.toString('utf8');
      });
      let settled = false;
      /** Ends the attempt once: the log's tail is read (stderr only), then the stdout copy is appended and the log closed. */
      const finish = (failure: ((tail: () => string) => Error) | undefined): void => {
        if (settled) return;
        settled = true;
        signal.removeEventListener('abort', onAbort);
        let tail = '';
        if (failure !== undefined) tail = logTail(job.logFile);
        if (stdout !== '') writeSync(fd, stdout);
        closeSync(fd);
        if (failure === undefined) resolve(stdout);
        else reject(failure(() => tail));
      };
      child.on('error', (error) => {
        finish(() => new RlAdvantagesError(`${jobLabel(job)} could not start ${JSON.stringify(program)}: ${error.message}`, { code: 'driver_failed' }));
      });
      child.on('close', (code, how) => {
        if (code === 0) return finish(undefined);
        if (signal.aborted) return finish(() => cancelled(job));
        const exit = code === null ? `was killed by ${String(how)}` : `failed with exit code ${String(code)}`;
        finish((tail) => new RlAdvantagesError(`${jobLabel(job)} ${exit} (log ${job.logFile}):\n  ${tail()}`, { code: 'driver_failed' }));
      });
    });
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

/**
 * The error of an attempt cancelled through its AbortSignal.
 *
 * @example
 * ```ts
 * throw cancelled(job); // job train/full/grpo_g8 was cancelled
 * ```
 */
export function cancelled(job: JobDescription): RlAdvantagesError {
  return new RlAdvantagesError(`job ${job.id} was cancelled`, { code: 'job_cancelled' });
}
