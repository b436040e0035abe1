import { advantagesFrom, looMeans } from '../internal/batch.js';
import { readGroups, readRewards } from './batch.js';
import { finishResult } from './diagnostics.js';
import { runMasked } from './mask.js';
import { normalizeAdvantages, readNormalize } from './normalize.js';
import type { Batch, EstimatorResult, NormalizeOptions } from './types.js';

/**
 * The leave-one-out batch mean: every other rollout in the batch weighs the same,
 * b_i = (sum_j r_j - r_i) / (B - 1). It is the kernel baseline's limit for identical prompts and
 * for T -> infinity, and the reference of B_eff calibration.
 *
 * Needs B >= 2 (unmasked). Advantages sum to 0 over the batch (with `normalize: 'none'`, the
 * default). b_i never depends on r_i (the sum of the others is formed without it).
 * docs/method.md sections 2 and 2.1.
 *
 * @throws {@link RlAdvantagesError} if a reward is not finite or B < 2; for a bad option, or
 *   `normalize: 'group'` without `groupIds`.
 * @example
 * ```ts
 * looBatchMean({ rewards: [1, 0, 0, 1] }).baselines; // Float64Array [1/3, 2/3, 2/3, 1/3]
 * ```
 */
export function looBatchMean(batch: Batch, options: NormalizeOptions = {}): EstimatorResult {
  const settings = readNormalize(options, { normalize: 'none', epsilon: 1e-6 });
  return runMasked(batch, (b) => {
    const rewards = readRewards(b, 2, 'loo_batch_mean');
    const looMean = looMeans(rewards);
    const members = settings.normalize === 'group' ? readGroups(b, rewards.length, 'loo_batch_mean').members : undefined;
    const advantages = normalizeAdvantages(advantagesFrom(rewards, looMean), rewards, members, settings);
    return finishResult(b, rewards, { advantages, baselines: looMean.slice(), looMean, maxSelfWeight: 0 });
  });
}
