import { RlAdvantagesError } from '../errors.js';
import { advantagesFrom, looMeans, readGroups, readRewards, sumsOfOthers } from '../internal/batch.js';
import type { Batch, EstimatorResult } from './types.js';

/**
 * Stock GRPO advantages, as the tinker cookbook's `compute_advantages`: the baseline is the mean
 * reward of the rollout's group, the rollout itself included; no std normalisation.
 *
 * b_i = (1 / n_g) * sum_{j : g_j = g_i} r_j,  A_i = r_i - b_i.
 *
 * Shapes and edge cases: `rewards` and `groupIds` of length B >= 1. A group of one gets A = 0
 * (its baseline is its own reward), as the cookbook. Advantages sum to 0 within every group.
 * `maxSelfWeight` is max over groups of 1/n_g. docs/method.md section 2;
 * GRPO: https://arxiv.org/abs/2402.03300
 *
 * @throws {@link RlAdvantagesError} if a reward is not finite, `groupIds` is missing, of another
 *   length, or holds something other than a string or finite number.
 * @example
 * ```ts
 * groupMean({ rewards: [1, 0, 0, 1, 1, 1], groupIds: [0, 0, 0, 0, 1, 1] }).advantages;
 * // Float64Array [0.5, -0.5, -0.5, 0.5, 0, 0]
 * ```
 */
export function groupMean(batch: Batch): EstimatorResult {
  const rewards = readRewards(batch, 1, 'group_mean');
  const { members } = readGroups(batch, rewards.length, 'group_mean');
  const baselines = new Float64Array(rewards.length);
  let maxSelfWeight = 0;
  for (const group of members) {
    const mean = groupSum(rewards, group) / group.length;
    for (const i of group) baselines[i] = mean;
    maxSelfWeight = Math.max(maxSelfWeight, 1 / group.length);
  }
  return { advantages: advantagesFrom(rewards, baselines), baselines, looMean: looMeans(rewards), maxSelfWeight };
}

/** Options of {@link groupMeanStd}. */
export interface GroupMeanStdOptions {
  /** Added to the group's std before dividing. Default 1e-6 (verl); TRL uses 1e-4, OpenRLHF 1e-9. */
  epsilon?: number;
}

/**
 * GRPO with std normalisation, as verl's `norm_adv_by_std_in_grpo`:
 * A_i = (r_i - mean_g) / (std_g + epsilon), with std_g the Bessel-corrected (n_g - 1) standard
 * deviation of the group. `baselines` reports mean_g, so here A_i = (r_i - b_i) / (std_g + epsilon),
 * not r_i - b_i.
 *
 * A group of one gets A = 0, as the tinker cookbook and TRL. verl differs here: it sets the
 * mean to 0 and the std to 1 for a group of one, so its advantage is about r_i. A group whose
 * rewards are all equal gets A = 0 exactly. docs/method.md section 2; GRPO: https://arxiv.org/abs/2402.03300
 *
 * @throws {@link RlAdvantagesError} as {@link groupMean}, and if `epsilon` is negative or not finite.
 * @example
 * ```ts
 * groupMeanStd({ rewards: [1, 0], groupIds: ['a', 'a'] }).advantages;
 * // ≈ [0.7071, -0.7071]: the std of {1, 0} is 1/√2
 * ```
 */
export function groupMeanStd(batch: Batch, options: GroupMeanStdOptions = {}): EstimatorResult {
  const epsilon = options.epsilon ?? 1e-6;
  if (typeof epsilon !== 'number' || !Number.isFinite(epsilon) || epsilon < 0) {
    throw new RlAdvantagesError(`epsilon must be a finite number >= 0, got ${String(epsilon)}`, {
      code: 'bad_option',
      field: 'epsilon',
    });
  }
  const rewards = readRewards(batch, 1, 'group_mean_std');
  const { members } = readGroups(batch, rewards.length, 'group_mean_std');
  const baselines = new Float64Array(rewards.length);
  const advantages = new Float64Array(rewards.length);
  let maxSelfWeight = 0;
  for (const group of members) {
    const n = group.length;
    const mean = groupSum(rewards, group) / n;
    let squares = 0;
    for (const i of group) squares += ((rewards[i] as number) - mean) ** 2;
    const std = n > 1 ? Math.sqrt(squares / (n - 1)) : 0;
    for (const i of group) {
      baselines[i] = mean;
      // A group of one, or of equal rewards, has r_i - mean = 0 exactly: A = 0 even with epsilon 0.
      const centred = n > 1 ? (rewards[i] as number) - mean : 0;
      advantages[i] = centred === 0 ? 0 : centred / (std + epsilon);
    }
    maxSelfWeight = Math.max(maxSelfWeight, 1 / n);
  }
  return { advantages, baselines, looMean: looMeans(rewards), maxSelfWeight };
}

/**
 * REINFORCE leave-one-out within the group (RLOO): the baseline is the mean reward of the other
 * rollouts of the same prompt, b_i = (sum_{g_j = g_i} r_j - r_i) / (n_g - 1).
 *
 * Every group needs n_g >= 2: a group of one has no other rollout and is an error. b_i never
 * depends on r_i (the sum of the others is formed without it). docs/method.md section 2;
 * RLOO: https://arxiv.org/abs/2402.14740
 *
 * @throws {@link RlAdvantagesError} as {@link groupMean}, and for a group of one (the message
 *   names the group's first rollout index).
 * @example
 * ```ts
 * rloo({ rewards: [1, 0, 0], groupIds: [0, 0, 0] }).baselines; // Float64Array [0, 0.5, 0.5]
 * ```
 */
export function rloo(batch: Batch): EstimatorResult {
  const rewards = readRewards(batch, 2, 'rloo');
  const { members } = readGroups(batch, rewards.length, 'rloo');
  const baselines = new Float64Array(rewards.length);
  for (const group of members) {
    if (group.length < 2) {
      const i = group[0] as number;
      throw new RlAdvantagesError(
        `groupIds[${i}] is a group of one rollout; rloo needs at least 2 rollouts in every group (use group_mean, which gives a group of one A = 0)`,
        { code: 'group_too_small', field: 'groupIds', index: i },
      );
    }
    const others = sumsOfOthers(rewards, group);
    for (let k = 0; k < group.length; k++) baselines[group[k] as number] = (others[k] as number) / (group.length - 1);
  }
  return { advantages: advantagesFrom(rewards, baselines), baselines, looMean: looMeans(rewards), maxSelfWeight: 0 };
}

function groupSum(rewards: Float64Array, group: Int32Array): number {
  let sum = 0;
  for (const i of group) sum += rewards[i] as number;
  return sum;
}
