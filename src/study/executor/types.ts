// The executor interface (issue 40): every job of every backend is a JobDescription (a process, its resources, the
// files it reads and writes); an Executor runs one attempt of one job somewhere (this machine, a Ray node). The ONE
// scheduler (src/study/jobs.ts) decides order, retries, the ledger RUN/jobs.jsonl and resumption; executors only run.
import { RlAdvantagesError } from '../../errors.js';

/** What one job needs on a node. */
export interface JobResources {
  /** GPUs (0 for a CPU job). */
  readonly gpus: number;
  /** CPUs (at least 1). */
  readonly cpus: number;
}

/** What to run, on any node: a process. */
export interface JobCommand {
  /** argv[0] is the program (the Python interpreter, or process.execPath for node), absolute paths throughout. */
  readonly argv: readonly string[];
  /** Added to the node's environment (never secrets; the ledger does not record it). */
  readonly env: Readonly<Record<string, string>>;
  /** The working folder of the process. */
  readonly cwd: string;
}

/** One job of the study's graph. */
export interface JobDescription {
  /** Stable across runs and executors, a safe path part per segment, e.g. `train/full/grpo_g8/seed-2`. */
  readonly id: string;
  /** What the job does. */
  readonly kind: 'preflight' | 'calibration' | 'tuning' | 'pilot' | 'train' | 'eval';
  /** The arm it trains or evaluates, when there is one. */
  readonly arm?: string;
  /** The replicate seed, when there is one. */
  readonly seed?: number;
  /** What it needs on a node. */
  readonly resources: JobResources;
  /** Files or folders it reads (absolute). */
  readonly reads: readonly string[];
  /** Files or folders it writes (absolute). */
  readonly writes: readonly string[];
  /** The process that does the job. */
  readonly command: JobCommand;
  /** RUN/logs/<name>.log: the process's stderr (and stdout copy) go here. */
  readonly logFile: string;
}

/** Where an attempt ran. */
export interface JobPlacement {
  /** The node's name (the host name locally, the Ray node id or address on a cluster). */
  readonly node: string;
  /** The GPU ids the attempt saw (CUDA_VISIBLE_DEVICES), empty for a CPU job. */
  readonly gpuIds: readonly string[];
  /**
   * When its process started on the node, if later than the scheduler handed it over (a Ray task waits in the
   * cluster's queue for its resources first); the ledger's `start` is this time.
   */
  readonly started?: Date;
}

/** A finished attempt: the process exited 0. */
export interface JobAttempt {
  /** The process's stdout. */
  readonly stdout: string;
  /** Where it ran. */
  readonly placement: JobPlacement;
}

/**
 * The node or worker running an attempt was lost (retryable: the scheduler retries up to --job-retries).
 *
 * @example
 * ```ts
 * throw new JobLostError('node 10.0.0.3 died while running train/full/grpo_g8/seed-2');
 * ```
 */
export class JobLostError extends RlAdvantagesError {
  /** Where the lost attempt ran, when known. */
  readonly placement: JobPlacement | undefined;

  constructor(message: string, placement?: JobPlacement) {
    super(message, { code: 'job_lost' });
    this.name = 'JobLostError';
    this.placement = placement;
  }
}

/**
 * What a job's run needs of an `AbortSignal` (an `AbortController`'s signal satisfies it): structural, so that the
 * published types compile in a project with neither the DOM's nor Node's type library.
 */
export interface CancelSignal {
  readonly aborted: boolean;
  addEventListener(type: 'abort', listener: () => void, options?: { readonly once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/** Runs jobs; the ONE scheduler (src/study/jobs.ts) decides order, retries, the ledger and resumption. */
export interface Executor {
  /** `local` or `ray` (the ledger's `executor`). */
  readonly name: 'local' | 'ray';
  /**
   * Before any job: can this executor run these jobs (resources some node has, the run folder at the same path on
   * every node, the drivers importable)? Throws RlAdvantagesError (exit 2) naming what is missing and how to fix it.
   */
  prepare(runDir: string, jobs: readonly JobDescription[]): Promise<void>;
  /**
   * One attempt. Resolves when the process exits 0. Rejects JobLostError when the node/worker was lost, or
   * RlAdvantagesError code 'driver_failed' (deterministic: no retry) with the log tail when it exits non-zero.
   * On `signal` abort, cancels the process/task and rejects.
   */
  run(job: JobDescription, attempt: number, signal: CancelSignal): Promise<JobAttempt>;
  /** Cancels what still runs and releases the cluster connection. */
  close(): Promise<void>;
}

/** A job before its command: what the study's graph (and `--dry-run`) knows of it; a backend adds the command. */
export type JobPlan = Omit<JobDescription, 'command' | 'logFile'>;
