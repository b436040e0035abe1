// Runs sparseKernelChunks on the calling thread plus worker threads sharing the chunks, for large
// batches. The public API stays synchronous: the caller computes chunks too, then blocks in
// Atomics.wait until the workers' chunks are done. Workers are created lazily from the function's
// own source text (no separate worker file, so the ESM build, the CJS build and vitest all work the
// same way) and unref'd, so they never keep a process alive.
//
// Results are bit-identical to the single-thread path: every unit is computed by the same code on
// the same inputs, whichever thread takes it. If a worker is slow, stuck or dead, the caller
// recomputes the chunks still missing after a short wait (writing the same bits again is harmless).
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { sparseKernelChunks, type SparseKernelJob } from './sparse-kernel.js';

/** Units below which threads cost more than they save (worker wake-up, copies into shared memory). */
export const THREAD_MIN_UNITS = 2048;
const CHUNK_UNITS = Number(process.env.RL_ADV_CHUNK ?? 16);
const STALL_MS = 250;

let workers: Worker[] | undefined;
let broken = false;
let threadLimit: number | undefined;

/**
 * Caps the threads used (1 = the calling thread only). The default is the number of CPUs,
 * at most 4, or the environment variable RL_ADVANTAGES_THREADS when set.
 */
export function setThreadLimit(limit: number | undefined): void {
  threadLimit = limit;
}

export function threadCount(): number {
  if (threadLimit !== undefined) return Math.max(1, Math.floor(threadLimit));
  const fromEnv = Number(process.env.RL_ADVANTAGES_THREADS);
  if (Number.isInteger(fromEnv) && fromEnv >= 1) return fromEnv;
  return Math.min(4, availableParallelism());
}

function workerSource(): string {
  return [
    // Works whether the eval'd code runs as CommonJS or (under --input-type=module) as ESM.
    "const { parentPort } = typeof require === 'function' ? require('node:worker_threads') : process.getBuiltinModule('node:worker_threads');",
    `const sparseKernelChunks = ${sparseKernelChunks.toString()};`,
    'parentPort.on("message", (job) => { const t0 = Date.now(); try { sparseKernelChunks(job); } catch (e) { console.error(e) /* the caller recomputes */ } if (process.env.RL_ADV_DEBUG) console.error("worker got at", t0 % 100000, "took", Date.now() - t0); });',
  ].join('\n');
}

function pool(size: number): Worker[] {
  workers ??= [];
  while (workers.length < size) {
    const worker = new Worker(workerSource(), { eval: true, execArgv: [] });
    worker.unref();
    // A failed worker only means the caller computes its chunks; never an unhandled error.
    worker.on('error', () => {
      broken = true;
    });
    worker.on('exit', () => {
      broken = true;
    });
    workers.push(worker);
  }
  return workers.slice(0, size);
}

function shared<T extends Int32Array | Float64Array>(array: T): T {
  const copy = new (array.constructor as new (buffer: SharedArrayBuffer) => T)(
    new SharedArrayBuffer(array.byteLength),
  );
  copy.set(array);
  return copy;
}

type KernelInput = Omit<SparseKernelJob, 'out' | 'control' | 'finished' | 'chunkSize'>;

function chunkCount(units: number): number {
  return Math.ceil(units / CHUNK_UNITS);
}

/**
 * Numerators, denominators and self weights of every unit (see sparse-kernel.ts), using worker
 * threads when the batch has at least THREAD_MIN_UNITS units and more than one thread is allowed.
 */
export function runSparseKernel(job: KernelInput): Float64Array {
  const threads = job.units >= THREAD_MIN_UNITS && !broken ? threadCount() : 1;
  if (threads <= 1 || typeof SharedArrayBuffer !== 'function') {
    const out = new Float64Array(3 * job.units);
    const chunks = chunkCount(job.units);
    sparseKernelChunks({ ...job, out, control: new Int32Array(2), finished: new Int32Array(chunks), chunkSize: CHUNK_UNITS });
    return out;
  }
  let helpers: Worker[];
  try {
    helpers = pool(threads - 1);
  } catch {
    broken = true;
    return runSparseKernel(job);
  }
  const chunks = chunkCount(job.units);
  const full: SparseKernelJob = {
    units: job.units,
    xIndptr: shared(job.xIndptr),
    xIndices: shared(job.xIndices),
    xData: shared(job.xData),
    tIndptr: shared(job.tIndptr),
    tIndices: shared(job.tIndices),
    tData: shared(job.tData),
    unitSum: shared(job.unitSum),
    unitSize: shared(job.unitSize),
    temperature: job.temperature,
    out: new Float64Array(new SharedArrayBuffer(3 * job.units * 8)),
    control: new Int32Array(new SharedArrayBuffer(8)),
    finished: new Int32Array(new SharedArrayBuffer(4 * chunks)),
    chunkSize: CHUNK_UNITS,
  };
  if (process.env.RL_ADV_DEBUG) console.error('posting at', Date.now() % 100000);
  for (const worker of helpers) worker.postMessage(full);
  if (process.env.RL_ADV_SLEEP) { Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, Number(process.env.RL_ADV_SLEEP)); console.error('after sleep worker did', Atomics.load(full.control, 1)); }
  sparseKernelChunks(full);
  if (process.env.RL_ADV_DEBUG) console.error('main claimed until', Atomics.load(full.control, 0), 'done', Atomics.load(full.control, 1), 'of', chunks);
  let done = Atomics.load(full.control, 1);
  while (done < chunks) {
    if (Atomics.wait(full.control, 1, done, STALL_MS) === 'timed-out' && Atomics.load(full.control, 1) === done) {
      // No progress for STALL_MS: compute the missing chunks here rather than wait on a stuck
      // worker (if it finishes later it writes the same bits).
      for (let chunk = 0; chunk < chunks; chunk++) {
        if (Atomics.load(full.finished, chunk) === 0) sparseKernelChunks(full, chunk);
      }
      return full.out;
    }
    done = Atomics.load(full.control, 1);
  }
  return full.out;
}
