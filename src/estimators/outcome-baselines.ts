// Baselines from one extra number per rollout or group: ReMax (greedy reward), OPO (length-weighted
// group mean), GPG (group mean, rescaled by the share of nonzero rewards). docs/method.md section 2.2.
import { RlAdvantagesError } from '../errors.js';
import { advantagesFrom, exactGroupMean, looMeans } from '../internal/batch.js';
import { checkRewardBound, readGroups, readLengths, readRewards } from './batch.js';
import { finishResult } from './diagnostics.js';
import { runMasked } from './mask.js';
import { normalizeAdvantages, readNormalize, readSingleton, singletonError, type Singleton } from './normalize.js';
import { checkLength, toFiniteFloat64 } from '../internal/validate.js';
import type { Batch, EstimatorResult, NormalizeOptions } from './types.js';

/** Options of {@link opo} and {@link gpg}. */
export interface GroupBaselineOptions extends NormalizeOptions {
  /** A group of one: `'zero'` (the default: A = 0), `'error'`, or `'raw'` (verl: baseline 0, so A = r, alpha r for gpg). */
  singleton?: Singleton;
}

/**
 * ReMax: the baseline is the reward of the greedy response to the rollout's prompt,
 * b_i = greedyRewards_i, A_i = r_i - b_i (then `normalize`, section 2.1). Groups are not needed
 * (unless `normalize: 'group'`). b_i does not use r_i. docs/method.md section 2.2;
 * ReMax: https://arxiv.org/abs/2310.10505; verl `verl/trainer/ppo/core_algos.py`
 * (`compute_remax_outcome_advantage`, volcengine/verl@b178a3cd56f58b2d502255daba591e92833930a7).
 *
 * @throws {@link RlAdvantagesError} if a reward or greedy reward is not finite, or `greedyRewards`
 *   is missing or of another length.
 * @example
 * ```ts
 * remax({ rewards: [1, 0], greedyRewards: [0.5, 0.5] }).advantages; // Float64Array [0.5, -0.5]
 * ```
 */
export function remax(batch: Batch, options: NormalizeOptions = {}): EstimatorResult {
  const settings = readNormalize(options, { normalize: 'none', epsilon: 1e-6 });
  return runMasked(batch, (b) => {
    const rewards = readRewards(b, 1, 'remax');
    if (b.greedyRewards === undefined || b.greedyRewards === null) {
      throw new RlAdvantagesError("greedyRewards is required: remax's baseline is the reward of the prompt's greedy response", {
        code: 'missing_field',
        field: 'greedyRewards',
      });
    }
    const baselines = checkRewardBound('greedyRewards', toFiniteFloat64('greedyRewards', b.greedyRewards));
    checkLength('greedyRewards', baselines.length, rewards.length);
    const members = settings.normalize === 'group' ? readGroups(b, rewards.length, 'remax').members : undefined;
    const advantages = normalizeAdvantages(advantagesFrom(rewards, baselines), rewards, members, settings);
    return finishResult(b, rewards, { advantages, baselines, looMean: looMeans(rewards), maxSelfWeight: 0 });
  });
}

/**
 * OPO (on-policy optimal baseline): b_i = the length-weighted mean reward of i's group, i included,
 * b = sum_{g_j = g_i} L_j r_j / sum_{g_j = g_i} L_j (`lengths`), A_i = r_i - b_i (then `normalize`).
 * A group of one gets A = 0 (verl: A = r_i, its baseline set to 0); a group of equal rewards gets
 * A = 0 exactly. `maxSelfWeight` is the largest L_i / sum_g L. docs/method.md section 2.2;
 * OPO: https://arxiv.org/abs/2505.23585; verl `verl/trainer/ppo/core_algos.py`
 * (`compute_opo_outcome_advantage`, volcengine/verl@b178a3cd56f58b2d502255daba591e92833930a7).
 *
 * @throws {@link RlAdvantagesError} as `groupMean`, and if `lengths` is missing or holds a value
 *   that is not a finite number > 0.
 * @example
 * ```ts
 * opo({ rewards: [1, 0], groupIds: [0, 0], lengths: [10, 30] }).baselines; // [0.25, 0.25]
 * ```
 */
export function opo(batch: Batch, options: GroupBaselineOptions = {}): EstimatorResult {
  const settings = readNormalize(options, { normalize: 'none', epsilon: 1e-6 });
  const singleton = readSingleton(options?.singleton, 'zero');
  return runMasked(batch, (b) => {
    const rewards = readRewards(b, 1, 'opo');
    const { members } = readGroups(b, rewards.length, 'opo');
    const lengths = readLengths(b, rewards.length, 'opo');
    const baselines = new Float64Array(rewards.length);
    let maxSelfWeight = 0;
    for (const group of members) {
      if (group.length === 1 && singleton !== 'zero') {
        if (singleton === 'error') throw singletonError(group[0] as number, 'opo');
        continue; // 'raw': baseline 0
      }
      let num = 0;
      let den = 0;
      for (const i of group) {
        num += (lengths[i] as number) * (rewards[i] as number);
        den += lengths[i] as number;
      }
      const constant = exactGroupMean(rewards, group);
      // Equal rewards (a group of one included): the weighted mean is that value, exactly.
      const mean = group.every((i) => rewards[i] === constant) ? constant : num / den;
      for (const i of group) {
        baselines[i] = mean;
        maxSelfWeight = Math.max(maxSelfWeight, (lengths[i] as number) / den);
      }
    }
    const advantages = normalizeAdvantages(advantagesFrom(rewards, baselines), rewards, members, settings, singleton);
    return finishResult(b, rewards, { advantages, baselines, looMean: looMeans(rewards), maxSelfWeight });
  });
}

/**
 * GPG (group policy gradient): A_i = alpha * (r_i - mean_g), alpha = B / max(1, #{j : r_j != 0}),
 * which rescales a batch where few rollouts earn a reward. `normalize` applies to r - mean_g before
 * alpha. `baselines` reports mean_g (so A is not r - b unless alpha = 1). A group of one gets A = 0
 * (verl: alpha * r_i). docs/method.md section 2.2; GPG: https://arxiv.org/abs/2504.02546; verl
 * `verl/trainer/ppo/core_algos.py` (`compute_gpg_outcome_advantage`, f_norm 1,
 * volcengine/verl@b178a3cd56f58b2d502255daba591e92833930a7).
 *
 * @throws {@link RlAdvantagesError} as `groupMean`.
 * @example
 * ```ts
 * gpg({ rewards: [1, 0, 0, 0], groupIds: [0, 0, 0, 0] }).advantages; // alpha 4: [3, -1, -1, -1]
 * ```
 */
export function gpg(batch: Batch, options: GroupBaselineOptions = {}): EstimatorResult {
  const settings = readNormalize(options, { normalize: 'none', epsilon: 1e-6 });
  const singleton = readSingleton(options?.singleton, 'zero');
  return runMasked(batch, (b) => {
    const rewards = readRewards(b, 1, 'gpg');
    const { members } = readGroups(b, rewards.length, 'gpg');
    const baselines = new Float64Array(rewards.length);
    let maxSelfWeight = 0;
    for (const group of members) {
      if (group.length === 1 && singleton !== 'zero') {
        if (singleton === 'error') throw singletonError(group[0] as number, 'gpg');
        continue; // 'raw': baseline 0, A = alpha r
      }
      const mean = exactGroupMean(rewards, group);
      for (const i of group) baselines[i] = mean;
      maxSelfWeight = Math.max(maxSelfWeight, 1 / group.length);
    }
    let nonzero = 0;
    for (const r of rewards) if (r !== 0) nonzero++;
    const alpha = rewards.length / Math.max(1, nonzero);
    const advantages = normalizeAdvantages(advantagesFrom(rewards, baselines), rewards, members, settings, singleton);
    for (let i = 0; i < advantages.length; i++) advantages[i] = alpha * (advantages[i] as number);
    return finishResult(b, rewards, { advantages, baselines, looMean: looMeans(rewards), maxSelfWeight });
  });
}

