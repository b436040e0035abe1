import { exactGroupMean, looMeans } from '../internal/batch.js';
import { readGroups, readRewards } from './batch.js';
import { finishResult } from './diagnostics.js';
import { runMasked } from './mask.js';
import { readNormalize, readSingleton, singletonError, type Singleton } from './normalize.js';
import type { Batch, EstimatorResult } from './types.js';

/** Options of {@link maxrl}. */
export interface MaxrlOptions {
  /** Added to the group mean in the denominator. Default 1e-6 (SkyRL); prime-rl uses 0. */
  epsilon?: number;
  /** A group of one: `'zero'` (the default: A = 0), `'error'`, or `'raw'` (SkyRL: mean 0, so A = r). */
  singleton?: Singleton;
}

/**
 * MaxRL (maximum-likelihood RL, arXiv:2602.02710): the group-relative reward divided by the group mean instead of
 * its std, A_i = (r_i - mean_g) / (mean_g + epsilon), and A = 0 for a group whose mean is <= 0 (prime-rl's guard;
 * rewards are meant to be >= 0, canonically binary). `baselines` reports mean_g. docs/method.md section 2.2;
 * SkyRL `skyrl/backends/skyrl_train/utils/ppo_utils.py` `compute_maxrl_advantage`
 * (NovaSky-AI/SkyRL@a9564572eb8e91076be43c1bd5e4615e3de17265); prime-rl
 * `src/prime_rl/orchestrator/algo/max_rl.py` (PrimeIntellect-ai/prime-rl@559b44772e471d1538537b8805cc77f3824a5e64).
 *
 * @throws {@link RlAdvantagesError} if a reward is not finite or beyond 1e100, `groupIds` is missing or bad;
 *   for a negative or non-finite epsilon; a group of one under `singleton: 'error'`.
 * @example
 * ```ts
 * maxrl({ rewards: [1, 0, 0, 0], groupIds: [0, 0, 0, 0] }).advantages; // ≈ [3, -1, -1, -1]
 * ```
 */
export function maxrl(batch: Batch, options: MaxrlOptions = {}): EstimatorResult {
  const { epsilon } = readNormalize({ epsilon: options?.epsilon ?? 1e-6 }, { normalize: 'none', epsilon: 1e-6 });
  const singleton = readSingleton(options?.singleton, 'zero');
  return runMasked(batch, (b) => {
    const rewards = readRewards(b, 1, 'maxrl');
    const { members } = readGroups(b, rewards.length, 'maxrl');
    const baselines = new Float64Array(rewards.length);
    const advantages = new Float64Array(rewards.length);
    let maxSelfWeight = 0;
    for (const group of members) {
      if (group.length === 1) {
        const i = group[0] as number;
        if (singleton === 'error') throw singletonError(i, 'maxrl');
        if (singleton === 'raw') advantages[i] = rewards[i] as number; // SkyRL: r - 0, undivided
        else baselines[i] = rewards[i] as number;
        maxSelfWeight = Math.max(maxSelfWeight, singleton === 'raw' ? 0 : 1);
        continue;
      }
      const mean = exactGroupMean(rewards, group);
      maxSelfWeight = Math.max(maxSelfWeight, 1 / group.length);
      for (const i of group) {
        baselines[i] = mean;
        const c = (rewards[i] as number) - mean;
        advantages[i] = mean <= 0 || c === 0 ? 0 : c / (mean + epsilon);
      }
    }
    return finishResult(b, rewards, { advantages, baselines, looMean: looMeans(rewards), maxSelfWeight });
  });
}
