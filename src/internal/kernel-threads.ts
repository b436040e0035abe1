// Worker threads for the kernel's row blocks (sparse-kernel.ts) on large batches. The public
// functions stay synchronous: the main thread posts the job to the workers, runs blocks itself,
// and then waits (Atomics.wait) until every block is done. Blocks are fixed by U alone and merged
// in order, so the result is bit-identical whatever the number of threads, including none.
//
// The workers start on the first large batch and stay (unref'd: they never keep a process
// alive). They run dist/kernel-worker.js, found next to the module file (the ESM and CJS builds
// and the CLI all sit in dist/); where it does not exist (running from source, as under vitest)
// or threads are not allowed, everything runs on the calling thread.
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { CsrMatrix } from '../text/tfidf.js';
import { discardSharedBuffers, DONE, FAILED, makeJob, NEXT, runClaimedBlocks, viewJob } from './kernel-job.js';
import { finishSums, kernelBlock, rowBlocks, stateSize } from './sparse-kernel.js';

interface Pool {
  readonly workers: Worker[];
}

/** How long a job may make no progress before the calling thread gives up on the workers. */
const STALL_MS = 60_000;

let pool: Pool | null | undefined;
let workerUrl: URL | null | undefined;
let threadLimit: number | undefined;
/** Blocks of the last threaded job and how many of them the calling thread ran (for tests). */
let lastRun = { blocks: 0, byCaller: 0 };

/** How the last multi-block kernel job was shared out (test hook). */
export function lastKernelRun(): { blocks: number; byCaller: number } {
  return { ...lastRun };
}

/**
 * Test and tuning hook: at most `threads` threads in all (1 = no workers; undefined = one per
 * available CPU), and optionally the worker script to run. Stops workers already started.
 */
export function configureKernelThreads(options: { threads?: number; workerUrl?: URL }): void {
  threadLimit = options.threads;
  if (options.workerUrl !== undefined) workerUrl = options.workerUrl;
  if (pool) for (const worker of pool.workers) void worker.terminate();
  pool = undefined;
}

function defaultWorkerUrl(): URL | null {
  try {
    const url = new URL('./kernel-worker.js', import.meta.url);
    return existsSync(fileURLToPath(url)) ? url : null;
  } catch {
    return null;
  }
}

function getPool(blocks: number): Pool | null {
  if (pool !== undefined) return pool;
  const threads = Math.min(threadLimit ?? availableParallelism(), blocks);
  if (workerUrl === undefined) workerUrl = defaultWorkerUrl();
  if (threads < 2 || workerUrl === null) return (pool = null);
  const workers: Worker[] = [];
  try {
    for (let k = 1; k < threads; k++) {
      const worker = new Worker(workerUrl);
      worker.unref();
      // A worker that fails is dropped for later jobs; a job it threw in is recomputed (FAILED).
      worker.on('error', () => configureKernelThreads({ threads: 1 }));
      workers.push(worker);
    }
  } catch {
    for (const worker of workers) void worker.terminate();
    return (pool = null);
  }
  return (pool = { workers });
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
  const workers = blocks > 1 ? getPool(blocks) : null;
  if (workers !== null) {
    const job = makeJob(x, xt, unitSum, unitSize, bounds, inverse);
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
      return finishSums(views.state, units, blocks, views.unitSize, inverse);
    }
    // A worker threw or stalled: no block of this job starts any more, its buffers are not
    // reused, later jobs run without workers, and the calling thread computes this job again below.
    Atomics.store(views.control, NEXT, blocks);
    discardSharedBuffers();
    if (stalled) configureKernelThreads({ threads: 1 });
  }
  if (blocks > 1) lastRun = { blocks, byCaller: blocks };
  const state = new Float64Array(stateSize(units, blocks));
  const row = new Float64Array(units);
  for (let b = 0; b < blocks; b++) {
    kernelBlock(x, xt, unitSum, unitSize, inverse, bounds[b] as number, bounds[b + 1] as number, b, state, row);
  }
  return finishSums(state, units, blocks, unitSize, inverse);
}
