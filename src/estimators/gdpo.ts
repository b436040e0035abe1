import { RlAdvantagesError } from '../errors.js';
import { looMeans } from '../internal/batch.js';
import { checkRewardBound, readRewards } from './batch.js';
import { finishResult } from './diagnostics.js';
import { runMasked } from './mask.js';
import { readSingleton, type Singleton } from './normalize.js';
import { checkLength, describe, toFiniteFloat64 } from '../internal/validate.js';
import { readNormalization, type NormalizationSpec } from './normalization/spec.js';
import { normalizeWith } from './normalization/step.js';
import type { Batch, EstimatorResult } from './types.js';

/** Whose GDPO: verl's `compute_gdpo_outcome_advantage`, TRL's `normalize_then_sum`, or NeMo-RL's `GDPOAdvantageEstimator`. */
export type GdpoFlavour = 'verl' | 'trl' | 'nemo';

/** Options of {@link gdpo}. */
export interface GdpoOptions {
  /** w_k, one weight per reward component. Default 1 each. */
  componentWeights?: readonly number[];
  /** Default `'verl'`. */
  flavour?: GdpoFlavour;
  /** A group of one: `'zero'` (the default: its component advantages are 0), `'error'`, or `'raw'` (verl: mean 0, std 1). */
  singleton?: Singleton;
}

/** Each flavour's per-component step and final whitening (docs/method.md section 2.2, `gdpo`). */
const FLAVOURS: Record<GdpoFlavour, { component: NormalizationSpec; final: NormalizationSpec }> = {
  // verl: compute_grpo_outcome_advantage per component (eps 1e-6), then masked_whiten over tokens.
  verl: { component: {}, final: { centre: 'none', scale: 'none', whiten: true, whitenWeights: 'tokens', whitenCountEpsilon: 1e-8 } },
  // TRL: (x - mean_k) / (nanstd_k + 1e-4) per component, weighted sum, (A - mean) / (nanstd + 1e-4) over the batch.
  trl: { component: { epsilon: 1e-4 }, final: { centre: 'none', scale: 'none', whiten: true, whitenEpsilon: 1e-4, whitenEpsilonMode: 'add_std' } },
  // NeMo-RL: leave-one-out baseline and std per component (divide when std > 0), then (A - mean) / std when std > 0.
  nemo: {
    component: { leaveOneOut: true, scale: 'loo', zeroStd: 'skip' },
    final: { centre: 'none', scale: 'none', whiten: true, whitenEpsilon: 0, whitenEpsilonMode: 'add_std', whitenZeroStd: 'skip' },
  },
};

function readComponents(batch: Batch, size: number): Float64Array[] {
  const rows = batch.rewardComponents;
  if (rows === undefined || rows === null) {
    throw new RlAdvantagesError('rewardComponents is required: gdpo normalises each reward component within its group', {
      code: 'missing_field',
      field: 'rewardComponents',
    });
  }
  if (typeof rows !== 'object' || typeof rows.length !== 'number') {
    throw new RlAdvantagesError(`rewardComponents must be an array of arrays of numbers, got ${describe(rows)}`, { code: 'bad_type', field: 'rewardComponents' });
  }
  checkLength('rewardComponents', rows.length, size);
  const parsed = Array.from({ length: size }, (_, i) => checkRewardBound(`rewardComponents[${i}]`, toFiniteFloat64(`rewardComponents[${i}]`, rows[i])));
  const k = parsed[0]?.length ?? 0;
  parsed.forEach((row, i) => {
    if (row.length !== k || k === 0) {
      throw new RlAdvantagesError(`rewardComponents[${i}] has ${row.length} components; every rollout needs the same number (>= 1), ${k} in rewardComponents[0]`, {
        code: 'length_mismatch',
        field: 'rewardComponents',
        index: i,
      });
    }
  });
  return Array.from({ length: k }, (_, c) => Float64Array.from(parsed, (row) => row[c] as number));
}

/**
 * GDPO (group reward-decoupled normalisation, arXiv:2601.05242): each reward component is normalised within its
 * group, the results are summed with weights w_k, and the sum is whitened over the batch.
 * A_k,i = (x_k,i - mean_g(x_k)) / (std_g(x_k) + eps); S_i = sum_k w_k A_k,i; A_i = whiten(S)_i, as the flavour
 * says (verl: eps 1e-6, token-weighted masked_whiten; TRL `normalize_then_sum`: eps 1e-4 and (S - mean) / (std + 1e-4);
 * NeMo-RL: leave-one-out baseline and std). `baselines` are 0 (no single baseline is subtracted from r). Without `lengths`, verl's whitening weighs each rollout 1.
 * docs/method.md section 2.2; verl `compute_gdpo_outcome_advantage` (verl-project/verl@1dda039b9c6311889a9c9a26040677e1254814f9),
 * TRL `grpo_trainer.py` (huggingface/trl@f2cd57710ae345ea6428ae95363267fcf38a3dc8), NeMo-RL
 * `nemo_rl/algorithms/advantage_estimator.py` (NVIDIA-NeMo/RL@7ea279abfbeb698b092856d0dab61e7cf39bc909).
 *
 * @throws {@link RlAdvantagesError} if `rewardComponents` is missing, ragged, not finite or beyond 1e100; for
 *   `componentWeights` of the wrong length or not finite; as the normalisation step (groupIds, lengths for verl).
 * @example
 * ```ts
 * gdpo({ rewards: [1, 0, 1, 1], groupIds: [0, 0, 1, 1], rewardComponents: [[1, 0], [0, 0], [1, 1], [1, 0]] }, { flavour: 'trl' });
 * ```
 */
export function gdpo(batch: Batch, options: GdpoOptions = {}): EstimatorResult {
  const flavour = options?.flavour ?? 'verl';
  if (!Object.hasOwn(FLAVOURS, flavour)) {
    throw new RlAdvantagesError(`flavour must be 'verl', 'trl' or 'nemo', got ${describe(flavour)}`, { code: 'bad_option', field: 'flavour' });
  }
  const singleton = readSingleton(options?.singleton, 'zero');
  const component = readNormalization({ ...FLAVOURS[flavour].component, singleton });
  const final = readNormalization(FLAVOURS[flavour].final);
  const finalByRollout = readNormalization({ ...FLAVOURS[flavour].final, whitenWeights: 'rollout', whitenCountEpsilon: 0 });
  const weights = options?.componentWeights === undefined ? undefined : toFiniteFloat64('componentWeights', options.componentWeights);
  return runMasked(batch, (b) => {
    const rewards = readRewards(b, 1, 'gdpo');
    const components = readComponents(b, rewards.length);
    if (weights !== undefined) checkLength('componentWeights', weights.length, components.length, 'the reward components');
    const sum = new Float64Array(rewards.length);
    const common = { ...(b.groupIds === undefined ? {} : { groupIds: b.groupIds }), ...(b.lengths === undefined ? {} : { lengths: b.lengths }) };
    components.forEach((values, k) => {
      const a = normalizeWith({ values, ...common }, component).advantages;
      const w = weights === undefined ? 1 : (weights[k] as number);
      for (let i = 0; i < sum.length; i++) sum[i] = (sum[i] as number) + w * (a[i] as number);
    });
    // verl whitens over tokens; without lengths every rollout weighs 1.
    const advantages = normalizeWith({ values: sum, ...common }, b.lengths === undefined ? finalByRollout : final).advantages;
    return finishResult(b, rewards, { advantages, baselines: new Float64Array(rewards.length), looMean: looMeans(rewards), maxSelfWeight: 0 });
  });
}
