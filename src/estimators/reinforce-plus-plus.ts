import { RlAdvantagesError } from '../errors.js';
import { exactGroupMean, looMeans } from '../internal/batch.js';
import { readGroups, readLengths, readRewards } from './batch.js';
import { finishResult } from './diagnostics.js';
import { runMasked } from './mask.js';
import { readNormalize, readSingleton, singletonError, type Singleton } from './normalize.js';
import type { Batch, EstimatorResult } from './types.js';

/** Options of {@link reinforcePlusPlusBaseline}. */
export interface ReinforcePlusPlusOptions {
  /** Added to the variance under the square root. Default 1e-8 (verl's `masked_whiten`). */
  epsilon?: number;
  /** A group of one: `'zero'` (the default: c = 0), `'error'`, or `'raw'` (verl: its mean is 0, so c = r enters the whitening). */
  singleton?: Singleton;
}

/**
 * REINFORCE++ with a group baseline, as verl's `reinforce_plus_plus_baseline`: the reward minus its
 * group's mean, then whitened over the whole batch.
 *
 * c_i = r_i - mean_g; with weights L_i (`lengths`, else 1 each): mu = sum L c / sum L,
 * v = (sum L (c - mu)^2 / sum L) * N / (N - 1), N = sum L; A_i = (c_i - mu) / sqrt(v + epsilon).
 * verl whitens over tokens (each response token carries its rollout's c_i): giving `lengths`
 * reproduces that weighting; without them every rollout weighs 1. A group of one has c = 0 (verl:
 * c = r_i, its group mean is set to 0). `baselines` reports mean_g. docs/method.md section 2.2;
 * REINFORCE++: https://arxiv.org/abs/2501.03262; verl `verl/trainer/ppo/core_algos.py`
 * (`compute_reinforce_plus_plus_baseline_outcome_advantage`, `verl/utils/torch_functional.py`
 * `masked_whiten`), volcengine/verl@b178a3cd56f58b2d502255daba591e92833930a7.
 *
 * @throws {@link RlAdvantagesError} as `groupMean`; for a bad `lengths` entry; if N = sum L < 2
 *   (no unbiased variance); for a negative or non-finite epsilon.
 * @example
 * ```ts
 * reinforcePlusPlusBaseline({ rewards: [1, 0, 1, 1], groupIds: [0, 0, 1, 1] }).advantages;
 * // c = [0.5, -0.5, 0, 0], mu 0, v 1/6: ≈ [1.2247, -1.2247, 0, 0]
 * ```
 */
export function reinforcePlusPlusBaseline(batch: Batch, options: ReinforcePlusPlusOptions = {}): EstimatorResult {
  const { epsilon } = readNormalize({ epsilon: options?.epsilon ?? 1e-8 }, { normalize: 'none', epsilon: 1e-8 });
  const name = 'reinforce_plus_plus_baseline';
  const singleton = readSingleton(options?.singleton, 'zero');
  return runMasked(batch, (b) => {
    const rewards = readRewards(b, 1, name);
    const size = rewards.length;
    const { members } = readGroups(b, size, name);
    const weights = b.lengths === undefined ? new Float64Array(size).fill(1) : readLengths(b, size, name);
    const baselines = new Float64Array(size);
    const centred = new Float64Array(size);
    let maxSelfWeight = 0;
    for (const group of members) {
      if (group.length === 1 && singleton !== 'zero') {
        const i = group[0] as number;
        if (singleton === 'error') throw singletonError(i, name);
        centred[i] = rewards[i] as number; // 'raw': baseline 0 (verl)
        continue;
      }
      const mean = exactGroupMean(rewards, group);
      for (const i of group) {
        baselines[i] = mean;
        centred[i] = (rewards[i] as number) - mean;
      }
      maxSelfWeight = Math.max(maxSelfWeight, 1 / group.length);
    }
    let total = 0;
    let weighted = 0;
    for (let i = 0; i < size; i++) {
      total += weights[i] as number;
      weighted += (weights[i] as number) * (centred[i] as number);
    }
    if (!(total >= 2)) {
      throw new RlAdvantagesError(
        `rewards has ${size} rollouts of total length ${total}; ${name} whitens with an unbiased variance and needs a total length (or B) of at least 2`,
        { code: 'batch_too_small', field: 'rewards' },
      );
    }
    const mu = weighted / total;
    let squares = 0;
    for (let i = 0; i < size; i++) squares += (weights[i] as number) * ((centred[i] as number) - mu) ** 2;
    const variance = (squares / total) * (total / (total - 1));
    const scale = Math.sqrt(variance + epsilon);
    const advantages = new Float64Array(size);
    for (let i = 0; i < size; i++) {
      const d = (centred[i] as number) - mu;
      if (d === 0) continue;
      if (scale === 0) {
        throw new RlAdvantagesError(`rewards[${i}]: the batch variance is 0 and epsilon is 0, so ${name} cannot whiten`, {
          code: 'zero_std',
          field: 'rewards',
          index: i,
        });
      }
      advantages[i] = d / scale;
    }
    return finishResult(b, rewards, { advantages, baselines, looMean: looMeans(rewards), maxSelfWeight });
  });
}
