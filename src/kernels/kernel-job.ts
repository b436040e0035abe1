// One parallel kernel job in shared memory: the CSR rows, their inverted index, the unit totals
// and the per-block sums, laid out in SharedArrayBuffers that the main thread and the kernel
// workers (kernel-worker.ts) both read. Blocks are claimed through an atomic counter, so any
// thread may run any block; each block writes only its own rows and its own column sums, so the
// result is the same bits whichever thread ran it (sparse-kernel.ts).
import type { CsrMatrix } from '../text/tfidf.js';
import { kernelBlock, stateSize } from './sparse-kernel.js';

/** control[NEXT]: next block to claim; control[DONE]: blocks finished; control[FAILED]: 1 if a worker threw. */
export const NEXT = 0;
export const DONE = 1;
export const FAILED = 2;

/** What is posted to a worker: SharedArrayBuffers and the sizes to view them with. */
export interface KernelJob {
  readonly ints: SharedArrayBuffer;
  readonly floats: SharedArrayBuffer;
  readonly control: SharedArrayBuffer;
  readonly units: number;
  readonly terms: number;
  readonly nnz: number;
  readonly bounds: Int32Array;
  readonly inverse: number;
  /** The batch's one shift of the exponent, or NaN for running maxima (sparse-kernel.ts). */
  readonly shift: number;
}

/** Typed-array views of a job's buffers. */
export interface JobViews {
  readonly x: CsrMatrix;
  readonly xt: CsrMatrix;
  readonly unitSum: Float64Array;
  readonly unitSize: Float64Array;
  readonly state: Float64Array;
  readonly control: Int32Array;
}

export function viewJob(job: KernelJob): JobViews {
  const { units, terms, nnz } = job;
  const ints = new Int32Array(job.ints);
  const floats = new Float64Array(job.floats);
  let i = 0;
  const take = (n: number): Int32Array => ints.subarray(i, (i += n));
  const xIndptr = take(units + 1);
  const xIndices = take(nnz);
  const tIndptr = take(terms + 1);
  const tIndices = take(nnz);
  let f = 0;
  const takeF = (n: number): Float64Array => floats.subarray(f, (f += n));
  const xData = takeF(nnz);
  const tData = takeF(nnz);
  const unitSum = takeF(units);
  const unitSize = takeF(units);
  const state = takeF(stateSize(units, job.bounds.length - 1));
  return {
    x: { rows: units, cols: terms, indptr: xIndptr, indices: xIndices, data: xData },
    xt: { rows: terms, cols: units, indptr: tIndptr, indices: tIndices, data: tData },
    unitSum,
    unitSize,
    state,
    control: new Int32Array(job.control),
  };
}

/**
 * Shared buffers kept from the last job and reused (a fresh pair per call would leave several
 * batches' worth of garbage outside V8's heap before a collection frees it); dropped after a
 * second without jobs so nothing large stays allocated.
 */
let spare: { ints: SharedArrayBuffer; floats: SharedArrayBuffer } | null = null;
let release: ReturnType<typeof setTimeout> | undefined;

function sharedBuffers(intCount: number, floatCount: number): { ints: SharedArrayBuffer; floats: SharedArrayBuffer } {
  if (spare === null || spare.ints.byteLength < 4 * intCount || spare.floats.byteLength < 8 * floatCount) {
    spare = {
      ints: new SharedArrayBuffer(4 * Math.max(intCount, spare ? spare.ints.byteLength / 4 : 0)),
      floats: new SharedArrayBuffer(8 * Math.max(floatCount, spare ? spare.floats.byteLength / 8 : 0)),
    };
  }
  if (release !== undefined) clearTimeout(release);
  release = setTimeout(() => (spare = null), 1000);
  release.unref();
  return spare;
}

/** Forgets the kept buffers (after a failed job, whose blocks may still be running elsewhere). */
export function discardSharedBuffers(): void {
  spare = null;
}

/**
 * Copies the inputs into shared memory (O(nnz + U)) and clears the state. Reuses the last job's
 * buffers: a job's blocks are all finished before its caller returns, and a worker that picks
 * up an old job late finds every block of it claimed (each job has its own control counters),
 * so it never touches the buffers.
 */
export function makeJob(
  x: CsrMatrix,
  xt: CsrMatrix,
  unitSum: Float64Array,
  unitSize: Float64Array,
  bounds: Int32Array,
  inverse: number,
  shift: number,
): KernelJob {
  const units = x.rows;
  const terms = xt.rows;
  const nnz = x.indices.length;
  const buffers = sharedBuffers(units + 1 + terms + 1 + 2 * nnz, 2 * nnz + 2 * units + stateSize(units, bounds.length - 1));
  const job: KernelJob = {
    ints: buffers.ints,
    floats: buffers.floats,
    control: new SharedArrayBuffer(4 * 3),
    units,
    terms,
    nnz,
    bounds,
    inverse,
    shift,
  };
  const views = viewJob(job);
  (views.x.indptr as Int32Array).set(x.indptr);
  (views.x.indices as Int32Array).set(x.indices);
  (views.x.data as Float64Array).set(x.data);
  (views.xt.indptr as Int32Array).set(xt.indptr);
  (views.xt.indices as Int32Array).set(xt.indices);
  (views.xt.data as Float64Array).set(xt.data);
  views.unitSum.set(unitSum);
  views.unitSize.set(unitSize);
  views.state.fill(0);
  return job;
}

/**
 * Claims and runs blocks until none is left, and returns how many this thread ran (other
 * threads may still be running theirs).
 */
export function runClaimedBlocks(job: KernelJob, views: JobViews, row: Float64Array): number {
  const blocks = job.bounds.length - 1;
  for (let ran = 0; ; ran++) {
    const b = Atomics.add(views.control, NEXT, 1);
    if (b >= blocks) return ran;
    kernelBlock(
      views.x,
      views.xt,
      views.unitSum,
      views.unitSize,
      job.inverse,
      job.shift,
      job.bounds[b] as number,
      job.bounds[b + 1] as number,
      b,
      views.state,
      row,
    );
    Atomics.add(views.control, DONE, 1);
    Atomics.notify(views.control, DONE);
  }
}
