import { RlAdvantagesError } from '../errors.js';
import { advantagesFrom, exactGroupMean, looMeans, sumsOfOthers } from '../internal/batch.js';
import { readGroups, readRewards } from './batch.js';
import { finishResult } from './diagnostics.js';
import { runMasked } from './mask.js';
import { normalizeAdvantages, readNormalize, readSingleton, singletonError, type Singleton } from './normalize.js';
import type { Batch, EstimatorResult, NormalizeOptions } from './types.js';

/**
 * Stock GRPO advantages, as the tinker cookbook's `compute_advantages`: the baseline is the mean
 * reward of the rollout's group, the rollout itself included; by default no std normalisation.
 *
 * b_i = (1 / n_g) * sum_{j : g_j = g_i} r_j,  A_i = r_i - b_i (then `normalize`, section 2.1).
 *
 * Shapes and edge cases: `rewards` and `groupIds` of length B >= 1. A group of one gets A = 0
 * (its baseline is its own reward), as the cookbook. Advantages sum to 0 within every group.
 * `maxSelfWeight` is max over groups of 1/n_g. Masked rollouts (`mask`) are left out.
 * docs/method.md sections 2 and 2.1; GRPO: https://arxiv.org/abs/2402.03300
 *
 * @throws {@link RlAdvantagesError} if a reward is not finite, `groupIds` is missing, of another
 *   length, or holds something other than a string or finite number; for a bad option.
 * @example
 * ```ts
 * groupMean({ rewards: [1, 0, 0, 1, 1, 1], groupIds: [0, 0, 0, 0, 1, 1] }).advantages;
 * // Float64Array [0.5, -0.5, -0.5, 0.5, 0, 0]
 * ```
 */
export function groupMean(batch: Batch, options: GroupMeanOptions = {}): EstimatorResult {
  const settings = readNormalize(options, { normalize: 'none', epsilon: 1e-6 });
  const singleton = readSingleton(options?.singleton, 'zero');
  return runMasked(batch, (b) => {
    const rewards = readRewards(b, 1, 'group_mean');
    const { members } = readGroups(b, rewards.length, 'group_mean');
    const baselines = new Float64Array(rewards.length);
    let maxSelfWeight = 0;
    for (const group of members) {
      if (group.length === 1 && singleton !== 'zero') {
        if (singleton === 'error') throw singletonError(group[0] as number, 'group_mean');
        continue; // 'raw': baseline 0, A = r (verl)
      }
      // A group of equal rewards gets exactly their value, so its A is 0 (sum / n can be an ulp off).
      const mean = exactGroupMean(rewards, group);
      for (const i of group) baselines[i] = mean;
      maxSelfWeight = Math.max(maxSelfWeight, 1 / group.length);
    }
    // A group of one: r - r = 0 exactly, so normalisation leaves it 0 too ('raw': r / (1 + epsilon) under 'group').
    const advantages = normalizeAdvantages(advantagesFrom(rewards, baselines), rewards, members, settings, singleton);
    return finishResult(b, rewards, { advantages, baselines, looMean: looMeans(rewards), maxSelfWeight });
  });
}

/** Options of {@link groupMean}. */
export interface GroupMeanOptions extends NormalizeOptions {
  /** A group of one: `'zero'` (the default: A = 0, b = r), `'error'`, or `'raw'` (verl: b = 0, A = r, or r / (1 + epsilon) with `normalize: 'group'`). */
  singleton?: Singleton;
}

/** Options of {@link groupMeanStd}: `normalize` is always `'group'`. */
export interface GroupMeanStdOptions {
  /** A group of one: `'zero'` (default), `'error'`, or `'raw'` (verl: A = r / (1 + epsilon)). */
  singleton?: Singleton;
  /** Added to the group's std before dividing. Default 1e-6 (verl); TRL uses 1e-4, OpenRLHF 1e-9. */
  epsilon?: number;
  /** A minimum std (NeMo-RL). Default 0. */
  stdFloor?: number;
}

/**
 * GRPO with std normalisation, as verl's `norm_adv_by_std_in_grpo`: {@link groupMean} with
 * `normalize: 'group'`. A_i = (r_i - mean_g) / (max(std_g, stdFloor) + epsilon), std_g the
 * Bessel-corrected (n_g - 1) two-pass standard deviation of the group. `baselines` reports mean_g,
 * so here A_i = (r_i - b_i) / (std_g + epsilon), not r_i - b_i.
 *
 * A group of one gets A = 0, as the tinker cookbook and TRL. verl differs here: it sets the
 * mean to 0 and the std to 1 for a group of one, so its advantage is about r_i. A group whose
 * rewards are all equal gets A = 0 exactly. docs/method.md sections 2 and 2.1;
 * GRPO: https://arxiv.org/abs/2402.03300; verl `verl/trainer/ppo/core_algos.py`
 * (`compute_grpo_outcome_advantage`, volcengine/verl@b178a3cd56f58b2d502255daba591e92833930a7).
 *
 * @throws {@link RlAdvantagesError} as {@link groupMean}, and if `epsilon` or `stdFloor` is negative or not finite.
 * @example
 * ```ts
 * groupMeanStd({ rewards: [1, 0], groupIds: ['a', 'a'] }).advantages;
 * // ≈ [0.7071, -0.7071]: the std of {1, 0} is 1/√2
 * ```
 */
export function groupMeanStd(batch: Batch, options: GroupMeanStdOptions = {}): EstimatorResult {
  const o = options ?? {};
  const normalize: GroupMeanOptions = { normalize: 'group' };
  if (o.singleton !== undefined) normalize.singleton = o.singleton;
  if (o.epsilon !== undefined) normalize.epsilon = o.epsilon;
  if (o.stdFloor !== undefined) normalize.stdFloor = o.stdFloor;
  return groupMean(batch, normalize);
}

/** Options of {@link rloo}. */
export interface RlooOptions extends NormalizeOptions {
  /** A group of one: `'error'` (the default: there is no other rollout), `'zero'` (A = 0, b = r_i) or `'raw'` (verl: b = 0, A = r_i). */
  singleton?: Singleton;
}

/**
 * REINFORCE leave-one-out within the group (RLOO): the baseline is the mean reward of the other
 * rollouts of the same prompt, b_i = (sum_{g_j = g_i} r_j - r_i) / (n_g - 1).
 *
 * A group of one is an error, or with `singleton: 'zero'` gets A = 0 and b = r_i, so
 * `maxSelfWeight` 1 (verl instead leaves its advantage at r_i). b_i never depends on r_i (the sum of the others is formed without
 * it). docs/method.md sections 2 and 2.2; RLOO: https://arxiv.org/abs/2402.14740
 *
 * @throws {@link RlAdvantagesError} as {@link groupMean}, and for a group of one unless
 *   `singleton` is `'zero'` (the message names the group's first rollout index).
 * @example
 * ```ts
 * rloo({ rewards: [1, 0, 0], groupIds: [0, 0, 0] }).baselines; // Float64Array [0, 0.5, 0.5]
 * rloo({ rewards: [1, 0, 0], groupIds: [0, 0, 1] }, { singleton: 'zero' }).advantages; // [1, -1, 0]
 * ```
 */
export function rloo(batch: Batch, options: RlooOptions = {}): EstimatorResult {
  const settings = readNormalize(options, { normalize: 'none', epsilon: 1e-6 });
  const singleton = readSingleton(options?.singleton, 'error');
  return runMasked(batch, (b) => {
    const rewards = readRewards(b, singleton === 'error' ? 2 : 1, 'rloo');
    const { members } = readGroups(b, rewards.length, 'rloo');
    const baselines = new Float64Array(rewards.length);
    let maxSelfWeight = 0;
    for (const group of members) {
      if (group.length < 2) {
        const i = group[0] as number;
        if (singleton === 'zero') {
          baselines[i] = rewards[i] as number;
          maxSelfWeight = 1; // b = r_i: this rollout is its own baseline
          continue;
        }
        if (singleton === 'raw') continue; // verl: baseline 0, A = r_i
        throw new RlAdvantagesError(
          `groupIds[${i}] is a group of one rollout; rloo needs at least 2 rollouts in every group (use singleton: 'zero', or group_mean, which give a group of one A = 0)`,
          { code: 'group_too_small', field: 'groupIds', index: i },
        );
      }
      const others = sumsOfOthers(rewards, group);
      for (let k = 0; k < group.length; k++) baselines[group[k] as number] = (others[k] as number) / (group.length - 1);
    }
    const advantages = normalizeAdvantages(advantagesFrom(rewards, baselines), rewards, members, settings, singleton);
    return finishResult(b, rewards, { advantages, baselines, looMean: looMeans(rewards), maxSelfWeight });
  });
}

/** The sum of rewards[group]. */
export function groupSum(rewards: Float64Array, group: ArrayLike<number>): number {
  let sum = 0;
  for (let k = 0; k < group.length; k++) sum += rewards[group[k] as number] as number;
  return sum;
}
