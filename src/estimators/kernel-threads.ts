// The kernel's worker threads as the caller sees them: how many were wanted, how many run, and why
// fewer do. The threads themselves live in src/internal/kernel-threads.ts.
import { kernelThreadState as internalState } from '../internal/kernel-threads.js';

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
  return internalState();
}
