// Worker threads for the kernel's row blocks (sparse-kernel.ts) on large batches. The public
// functions stay synchronous: the main thread posts the job to the workers, runs blocks itself,
// and then waits (Atomics.wait) until every block is done. Blocks are fixed by U alone and merged
// in order, so the result is bit-identical whatever the number of threads, including none.
//
// The workers start on the first large batch and stay (unref'd: they never keep a process
// alive). They run dist/kernel-worker.js, found next to the module file (the ESM and CJS builds
// and the CLI all sit in dist/); where it does not exist (running from source, as under vitest),
// threads are not allowed, RL_ADV_THREADS=1, or a worker fails, everything runs on the calling
// thread, and kernelThreadState() says so and why (the CLI warns once, src/cli/threads-warning.ts).
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { RlAdvantagesError } from '../errors.js';
import type { CsrMatrix } from '../text/tfidf.js';
import { discardSharedBuffers, DONE, FAILED, makeJob, NEXT, runClaimedBlocks, viewJob } from './kernel-job.js';
import { batchShift, BLOCKS, finishSums, kernelBlock, rowBlocks, stateSize } from './sparse-kernel.js';

interface Pool {
  readonly workers: Worker[];
  /** Set when we stop the workers ourselves, so their 'exit' events are not taken for failures. */
  closing: boolean;
}

/** The TF-IDF kernel's threads (see {@link kernelThreadState}). */
export interface KernelThreadState {
  /**
   * Threads a batch of 2048 or more distinct prompts would use, the calling thread included: one
   * per available CPU, at most `RL_ADV_THREADS` and at most 8 (the kernel's row blocks).
   */
  readonly wanted: number;
  /**
   * Threads that run kernel blocks, the calling thread included: 0 until the first batch large
   * enough to share out (workers start then), 1 when only the calling thread does.
   */
  readonly started: number;
  /** Why fewer than `wanted` threads started (a worker could not start, or failed), else null. */
  readonly reason: string | null;
  /**
   * The last batch of 2048 or more distinct prompts: the row blocks it was cut into (8) and how
   * many of them worker threads ran (0 when the calling thread ran them all). Both 0 before.
   */
  readonly lastBatch: { readonly blocks: number; readonly byWorkers: number };
}

/** How long a job may make no progress before the calling thread gives up on the workers. */
const STALL_MS = 60_000;
/** The environment variable that caps the kernel's threads (1 = no workers). */
export const THREADS_ENV = 'RL_ADV_THREADS';

let pool: Pool | null | undefined;
let workerUrl: URL | null | undefined;
let threadLimit: number | undefined;
let started = 0;
let reason: string | null = null;
/** Blocks of the last threaded job and how many of them the calling thread ran (for tests). */
let lastRun = { blocks: 0, byCaller: 0 };

/** How the last multi-block kernel job was shared out (test hook). */
export function lastKernelRun(): { blocks: number; byCaller: number } {
  return { ...lastRun };
}

/**
 * RL_ADV_THREADS as a thread count, or undefined when unset or empty.
 *
 * @throws RlAdvantagesError when it is set to anything but a positive integer.
 */
export function threadsFromEnv(env: NodeJS.ProcessEnv = process.env): number | undefined {
  const raw = env[THREADS_ENV];
  if (raw === undefined || raw.trim() === '') return undefined;
  if (!/^\s*[0-9]+\s*$/.test(raw) || Number(raw) < 1) {
    throw new RlAdvantagesError(
      `environment variable ${THREADS_ENV} must be a positive integer (1 = no worker threads, N = at most N threads), got ${JSON.stringify(raw)}`,
      { code: 'invalid_environment', field: THREADS_ENV },
    );
  }
  return Number(raw);
}

/** Threads a large batch would use: the cap (test hook, else RL_ADV_THREADS, else CPUs), CPUs, blocks. */
function threadsWanted(): number {
  if (threadLimit !== undefined) return Math.max(1, Math.min(threadLimit, BLOCKS));
  return Math.max(1, Math.min(threadsFromEnv() ?? Infinity, availableParallelism(), BLOCKS));
}

/**
 * The state of the worker threads that `tfidfKernelLoo` uses from 2048 distinct prompts on
 * (docs/performance.md, "Blocks and worker threads"). Results are bit-identical whatever the
 * number of threads; this only tells whether the second core is being used, and if not, why.
 * `RL_ADV_THREADS=1` runs everything on the calling thread; `RL_ADV_THREADS=N` caps the threads
 * at N. The library never prints; the `rl-adv` CLI warns once on stderr when `reason` is set.
 *
 * @returns a fresh object; `started` and `reason` change when workers start or fail.
 * @throws RlAdvantagesError (code `invalid_environment`) when `RL_ADV_THREADS` is set to anything
 *   but a positive integer.
 *
 * @example
 * ```ts
 * import { kernelThreadState } from 'rl-advantages';
 * const { wanted, started, reason } = kernelThreadState();
 * if (reason !== null) console.warn(`kernel on ${started} of ${wanted} threads: ${reason}`);
 * ```
 */
export function kernelThreadState(): KernelThreadState {
  return { wanted: threadsWanted(), started, reason, lastBatch: { blocks: lastRun.blocks, byWorkers: lastRun.blocks - lastRun.byCaller } };
}

/**
 * Test and tuning hook: at most `threads` threads in all (1 = no workers; undefined = the
 * environment's RL_ADV_THREADS or one per available CPU), and optionally the worker script to
 * run. Stops workers already started and forgets why any failed.
 */
export function configureKernelThreads(options: { threads?: number; workerUrl?: URL }): void {
  threadLimit = options.threads;
  if (options.workerUrl !== undefined) workerUrl = options.workerUrl;
  stopPool();
  pool = undefined;
  started = 0;
  reason = null;
}

function stopPool(): void {
  if (!pool) return;
  pool.closing = true;
  for (const worker of pool.workers) void worker.terminate();
}

/** Stops the workers for the rest of the process (the calling thread goes on alone) and says why. */
function giveUpWorkers(why: string): void {
  if (pool === null) return;
  stopPool();
  pool = null;
  started = 1;
  reason = why;
}

function defaultWorkerUrl(): URL | null {
  try {
    const url = new URL('./kernel-worker.js', import.meta.url);
    return existsSync(fileURLToPath(url)) ? url : null;
  } catch {
    return null;
  }
}

function getPool(): Pool | null {
  if (pool !== undefined) return pool;
  const threads = threadsWanted();
  started = 1;
  if (threads < 2) return (pool = null);
  if (workerUrl === undefined) workerUrl = defaultWorkerUrl();
  if (workerUrl === null) {
    reason = 'the worker script kernel-worker.js is not next to the library (running from source?)';
    return (pool = null);
  }
  const created: Pool = { workers: [], closing: false };
  try {
    for (let k = 1; k < threads; k++) {
      // execArgv: [] rather than the parent's flags: the worker runs one built, self-contained
      // script, which needs none of them, and per-thread flags the parent was started with
      // (--input-type with -e or stdin, loaders, --import) make a worker fail to start.
      // Process-wide flags (V8's, the heap size) apply to every thread anyway.
      const worker = new Worker(workerUrl, { execArgv: [] });
      worker.unref();
      // A worker that fails is dropped for later jobs; a job it threw in is recomputed (FAILED).
      worker.on('error', (error: Error) => {
        if (pool === created) giveUpWorkers(`a kernel worker failed: ${error.message}`);
      });
      worker.on('exit', (code) => {
        if (pool === created && !created.closing) giveUpWorkers(`a kernel worker exited (code ${code})`);
      });
      created.workers.push(worker);
    }
  } catch (error) {
    pool = created;
    giveUpWorkers(`kernel workers could not start: ${(error as Error).message}`);
    return null;
  }
  started = threads;
  return (pool = created);
}

/**
 * The kernel sums of sparse-kernel.ts, with the row blocks spread over the calling thread and
 * the kernel workers when there are several blocks and workers are available.
 */
export function threadedKernelSums(
  x: CsrMatrix,
  xt: CsrMatrix,
  unitSum: Float64Array,
  unitSize: Float64Array,
  temperature: number,
): Float64Array {
  const units = x.rows;
  const inverse = 1 / temperature;
  const bounds = rowBlocks(units);
  const blocks = bounds.length - 1;
  const shift = batchShift(x, inverse);
  const workers = blocks > 1 ? getPool() : null;
  if (workers !== null) {
    const job = makeJob(x, xt, unitSum, unitSize, bounds, inverse, shift);
    const views = viewJob(job);
    for (const worker of workers.workers) worker.postMessage(job);
    let byCaller: number;
    const started = performance.now();
    try {
      byCaller = runClaimedBlocks(job, views, new Float64Array(units));
    } catch (error) {
      // Leave nothing running on buffers that the next job would reuse.
      Atomics.store(views.control, NEXT, blocks);
      discardSharedBuffers();
      throw error;
    }
    // A worker that dies without throwing (killed, out of memory) never finishes its block and
    // cannot tell us, since its 'exit' event needs the event loop this thread is blocking: after
    // stallMs without progress the job is given up as if a worker had thrown.
    // The limit grows with the blocks' own cost (4 x the caller's mean block time) for huge batches.
    const callerBlockMs = byCaller > 0 ? (performance.now() - started) / byCaller : 0;
    const stallMs = Math.max(STALL_MS, 4 * callerBlockMs);
    let done = Atomics.load(views.control, DONE);
    let lastProgress = performance.now();
    let stalled = false;
    while (done < blocks && Atomics.load(views.control, FAILED) === 0) {
      Atomics.wait(views.control, DONE, done, 1000);
      const now = Atomics.load(views.control, DONE);
      if (now !== done) {
        done = now;
        lastProgress = performance.now();
      } else if (performance.now() - lastProgress > stallMs) {
        stalled = true;
        break;
      }
    }
    lastRun = { blocks, byCaller };
    if (!stalled && Atomics.load(views.control, FAILED) === 0) {
      return finishSums(views.state, units, blocks, views.unitSize, inverse, shift);
    }
    // A worker threw or stalled: no block of this job starts any more, its buffers are not
    // reused, later jobs run without workers, and the calling thread computes this job again below.
    Atomics.store(views.control, NEXT, blocks);
    discardSharedBuffers();
    if (stalled) giveUpWorkers(`a kernel worker made no progress for ${Math.round(stallMs / 1000)} s`);
  }
  if (blocks > 1) lastRun = { blocks, byCaller: blocks };
  const state = new Float64Array(stateSize(units, blocks));
  const row = new Float64Array(units);
  for (let b = 0; b < blocks; b++) {
    kernelBlock(x, xt, unitSum, unitSize, inverse, shift, bounds[b] as number, bounds[b + 1] as number, b, state, row);
  }
  return finishSums(state, units, blocks, unitSize, inverse, shift);
}
