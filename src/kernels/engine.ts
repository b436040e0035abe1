// Baselines of many batches drawn from one fixed list of prompts (calibration, the tuner's held-out scoring): the
// energies of every pair are computed once (docs/method.md section 2.4), each batch costs O(B^2).
import { batchEnergiesInto, energyBaselinesInto, tabulate, type Embedding } from './weights.js';

/** Above this many prompts the K x K energy table (8 K^2 bytes) is not kept; energies are formed per batch. */
export const DENSE_TASK_LIMIT = 2048;

/**
 * A function computing out[i] = b_i for a batch whose rollout i is prompt taskOf[i] of the embedding and has reward
 * rewards[i]: exactly what the `kernel_file` estimator gives on those prompts and rewards (same energies, same
 * summation order).
 */
export function kernelBaselineFunction(
  embedding: Embedding,
  denseLimit = DENSE_TASK_LIMIT,
): (taskOf: Int32Array, rewards: Float64Array, out: Float64Array) => void {
  const source = embedding.size <= denseLimit ? tabulate(embedding) : embedding;
  let g = new Float64Array(0);
  return (taskOf, rewards, out) => {
    const size = rewards.length;
    if (g.length !== size * size) g = new Float64Array(size * size);
    batchEnergiesInto(source, taskOf, g);
    energyBaselinesInto(g, rewards, out);
  };
}
