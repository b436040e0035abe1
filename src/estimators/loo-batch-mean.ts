import { advantagesFrom, looMeans, readRewards } from '../internal/batch.js';
import type { Batch, EstimatorResult } from './types.js';

/**
 * The leave-one-out batch mean: every other rollout in the batch weighs the same,
 * b_i = (sum_j r_j - r_i) / (B - 1). It is the kernel baseline's limit for identical prompts and
 * for T -> infinity, and the reference of B_eff calibration.
 *
 * Needs B >= 2. Advantages sum to 0 over the batch. b_i never depends on r_i (the sum of the
 * others is formed without it). docs/method.md section 2.
 *
 * @throws {@link RlAdvantagesError} if a reward is not finite or B < 2.
 * @example
 * ```ts
 * looBatchMean({ rewards: [1, 0, 0, 1] }).baselines; // Float64Array [1/3, 2/3, 2/3, 1/3]
 * ```
 */
export function looBatchMean(batch: Batch): EstimatorResult {
  const rewards = readRewards(batch, 2, 'loo_batch_mean');
  const looMean = looMeans(rewards);
  return { advantages: advantagesFrom(rewards, looMean), baselines: looMean.slice(), looMean, maxSelfWeight: 0 };
}
