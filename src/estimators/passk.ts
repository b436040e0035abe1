// Pass@k objectives: verl's grpo_passk (only the best rollout of a group learns) and the unbiased
// pass@k advantage of Chen et al. / Passk_Training. docs/method.md section 2.2.
import { RlAdvantagesError } from '../errors.js';
import { looMeans } from '../internal/batch.js';
import { readGroups, readRewards } from './batch.js';
import { finishResult } from './diagnostics.js';
import { runMasked } from './mask.js';
import { readNormalize, twoPassStd } from './normalize.js';
import { checkPositiveInteger } from '../internal/validate.js';
import type { Batch, EstimatorResult } from './types.js';

/** Options of {@link grpoPassk}. */
export interface GrpoPasskOptions {
  /** `'group'` (the default, verl's `norm_adv_by_std_in_grpo`): divide by the group's std + epsilon; `'none'`. */
  normalize?: 'group' | 'none';
  /** Default 1e-6 (verl). */
  epsilon?: number;
  /** A minimum std. Default 0. */
  stdFloor?: number;
}

/**
 * GRPO for pass@k, as verl's `grpo_passk`: in each group only the best rollout (the first with the
 * largest reward) gets A = r_max - r_2nd, r_2nd the second largest reward counting ties (a tie gives
 * 0), divided by (max(std_g, stdFloor) + epsilon) unless `normalize: 'none'`; every other rollout
 * gets A = 0. `baselines` reports r_i - (r_max - r_2nd) for the best rollout and r_i for the others.
 * Every group needs >= 2 rollouts. docs/method.md section 2.2; https://arxiv.org/abs/2503.19595;
 * verl `verl/trainer/ppo/core_algos.py` (`compute_grpo_passk_outcome_advantage`,
 * volcengine/verl@b178a3cd56f58b2d502255daba591e92833930a7).
 *
 * @throws {@link RlAdvantagesError} as `groupMean`, and for a group of one.
 * @example
 * ```ts
 * grpoPassk({ rewards: [0, 1, 0.5], groupIds: [0, 0, 0] }, { normalize: 'none' }).advantages; // [0, 0.5, 0]
 * ```
 */
export function grpoPassk(batch: Batch, options: GrpoPasskOptions = {}): EstimatorResult {
  const settings = readNormalize(options, { normalize: 'group', epsilon: 1e-6 }, ['group', 'none']);
  return runMasked(batch, (b) => {
    const rewards = readRewards(b, 2, 'grpo_passk');
    const { members } = readGroups(b, rewards.length, 'grpo_passk');
    const baselines = rewards.slice();
    const advantages = new Float64Array(rewards.length);
    for (const group of members) {
      if (group.length < 2) {
        const i = group[0] as number;
        throw new RlAdvantagesError(`groupIds[${i}] is a group of one rollout; grpo_passk needs at least 2 rollouts in every group`, {
          code: 'group_too_small',
          field: 'groupIds',
          index: i,
        });
      }
      let best = group[0] as number;
      for (const i of group) if ((rewards[i] as number) > (rewards[best] as number)) best = i;
      let second = -Infinity;
      for (const i of group) if (i !== best) second = Math.max(second, rewards[i] as number);
      const gap = (rewards[best] as number) - second;
      baselines[best] = second;
      if (gap === 0) continue;
      const denominator = Math.max(twoPassStd(rewards, group) as number, settings.stdFloor) + settings.epsilon;
      if (settings.normalize === 'group' && denominator === 0) {
        throw new RlAdvantagesError(`rewards[${best}]: its group's std is 0 (underflow) and epsilon = stdFloor = 0; give epsilon or stdFloor > 0`, {
          code: 'zero_std',
          field: 'rewards',
          index: best,
        });
      }
      advantages[best] = settings.normalize === 'none' ? gap : gap / denominator;
    }
    return finishResult(b, rewards, { advantages, baselines, looMean: looMeans(rewards), maxSelfWeight: 0 });
  });
}

/** Options of {@link passk}. */
export interface PasskOptions {
  /** k >= 1, at most every group's size. */
  k: number;
  /** `'group'` (the default, as Passk_Training): divide by sqrt(rho (1 - rho)) + epsilon; `'none'`. */
  normalize?: 'group' | 'none';
  /** Default 1e-6 (Passk_Training). */
  epsilon?: number;
}

/** C(a, k) / C(n, k) for integers 0 <= a <= n, k <= n, as prod_{j<k} (a - j) / (n - j): 0 when a < k. */
export function binomialRatio(a: number, n: number, k: number): number {
  if (a < k) return 0;
  let ratio = 1;
  for (let j = 0; j < k; j++) ratio *= (a - j) / (n - j);
  return ratio;
}

/**
 * The unbiased pass@k advantage for binary rewards (Chen et al.'s pass@k estimator, as
 * RUCAIBox/Passk_Training `code/passk_adv.py` at 00474d78dc80afd0a3dde1bda476efec32db34ed and
 * https://arxiv.org/abs/2508.10751). Per group with n rollouts, c correct:
 * rho = 1 - C(n - c, k) / C(n, k); a correct rollout gets 1 - rho, an incorrect one
 * 1 - rho - C(n - c - 1, k - 1) / C(n - 1, k - 1); both divided by (sqrt(rho (1 - rho)) + epsilon)
 * unless `normalize: 'none'`. Exact for every k <= n (ratios of binomials as products, never
 * factorials). k = 1 without the division is `group_mean`. `baselines` reports r_i - A_i before the
 * division. docs/method.md section 2.2.
 *
 * @throws {@link RlAdvantagesError} if a reward is not 0 or 1, k is not an integer >= 1, a group
 *   has fewer than k rollouts, or `groupIds` is bad.
 * @example
 * ```ts
 * passk({ rewards: [1, 0, 0, 0], groupIds: [0, 0, 0, 0] }, { k: 2, normalize: 'none' }).advantages;
 * // rho = 1 - C(3,2)/C(4,2) = 0.5: [0.5, -1/6, -1/6, -1/6]
 * ```
 */
export function passk(batch: Batch, options: PasskOptions): EstimatorResult {
  const k = checkPositiveInteger('k', options?.k);
  const settings = readNormalize(options, { normalize: 'group', epsilon: 1e-6 }, ['group', 'none']);
  return runMasked(batch, (b) => {
    const rewards = readRewards(b, 1, 'passk');
    rewards.forEach((r, i) => {
      if (r !== 0 && r !== 1) {
        throw new RlAdvantagesError(`rewards[${i}] must be 0 or 1 for passk (a binary pass/fail reward), got ${r}`, {
          code: 'bad_value',
          field: 'rewards',
          index: i,
        });
      }
    });
    const { members } = readGroups(b, rewards.length, 'passk');
    const baselines = new Float64Array(rewards.length);
    const advantages = new Float64Array(rewards.length);
    for (const group of members) {
      const n = group.length;
      if (n < k) {
        const i = group[0] as number;
        throw new RlAdvantagesError(`groupIds[${i}]: the group has ${n} rollouts but k = ${k}; passk needs at least k rollouts in every group`, {
          code: 'group_too_small',
          field: 'groupIds',
          index: i,
        });
      }
      let c = 0;
      for (const i of group) c += rewards[i] as number;
      const rho = 1 - binomialRatio(n - c, n, k);
      const correct = 1 - rho;
      const incorrect = 1 - rho - (n === 1 ? 1 : binomialRatio(n - c - 1, n - 1, k - 1));
      const scale = settings.normalize === 'none' ? 1 : Math.sqrt(rho * (1 - rho)) + settings.epsilon;
      for (const i of group) {
        const a = rewards[i] === 1 ? correct : incorrect;
        baselines[i] = (rewards[i] as number) - a;
        advantages[i] = a === 0 ? 0 : a / scale;
      }
    }
    return finishResult(b, rewards, { advantages, baselines, looMean: looMeans(rewards), maxSelfWeight: 0 });
  });
}
