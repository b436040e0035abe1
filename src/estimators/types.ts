import type { NdArrayLike } from '../internal/validate.js';

/**
 * One batch of rollouts. Parallel arrays: element i of each describes rollout i.
 * `rewards` may also be a 1-D ndarray.
 */
export interface Batch {
  /** r_i, one finite scalar reward per rollout. */
  readonly rewards: ArrayLike<number> | NdArrayLike;
  /** x_i, the prompt text of rollout i's task (kernel estimators over prompts need it). */
  readonly prompts?: readonly string[];
  /** g_i; rollouts sampled from one prompt share an id (group estimators need it). Ids compare with `===`, so `1` and `"1"` are different groups. */
  readonly groupIds?: ArrayLike<string | number>;
  /** Per-rollout feature vectors (e.g. prompt embeddings) for `kernel_loo`: an array of vectors or a 2-D ndarray of shape [B, d]. */
  readonly features?: ArrayLike<ArrayLike<number>> | NdArrayLike;
  /** Per-rollout mask, `true` = masked: the rollout enters no baseline, mean or std and gets A = 0 (its reward may then be non-finite). docs/method.md section 2.1. */
  readonly mask?: ArrayLike<boolean>;
  /** L_i > 0, the length (tokens) of each response, for `opo` and `reinforce_plus_plus_baseline`. */
  readonly lengths?: ArrayLike<number>;
  /** The reward of the greedy response to rollout i's prompt, for `remax`. */
  readonly greedyRewards?: ArrayLike<number>;
  /** K reward components per rollout (shape [B][K], each |value| <= 1e100), for `gdpo`. Wire name `reward_components`. */
  readonly rewardComponents?: ArrayLike<ArrayLike<number>>;
}

/** Counts that say how much signal a batch's advantages carry (docs/method.md section 2.1). */
export interface EstimatorDiagnostics {
  /** Distinct groups among the unmasked rollouts (group ids; else distinct prompts; else one per rollout). */
  readonly groups: number;
  /** Groups with one unmasked rollout. */
  readonly groupsOfOne: number;
  /** Groups with at least 2 unmasked rollouts whose rewards are all equal. */
  readonly zeroVarianceGroups: number;
  /** The fraction of all B rollouts (masked included) whose advantage is exactly 0. */
  readonly zeroAdvantageFraction: number;
  /** Masked rollouts. */
  readonly masked: number;
}

/** How group- or batch-centred estimators scale r_i - b_i (docs/method.md section 2.1). */
export type Normalize = 'none' | 'group' | 'batch';

/** Options every centred estimator takes. */
export interface NormalizeOptions {
  /** `'none'` (the default for most), `'group'` (divide by the group's std) or `'batch'` (by the batch's std). */
  normalize?: Normalize;
  /** Added to the std before dividing. Default 1e-6 (verl); TRL uses 1e-4, OpenRLHF 1e-9. */
  epsilon?: number;
  /** A minimum std (NeMo-RL's guard for near-constant groups). Default 0. */
  stdFloor?: number;
}

/** What every estimator returns; every array has one element per rollout, in input order. */
export interface EstimatorResult {
  /** A_i (r_i - b_i, or its std-normalised form for `group_mean_std`). */
  readonly advantages: Float64Array;
  /** b_i. */
  readonly baselines: Float64Array;
  /** The LOO batch mean of every rollout, (sum_j r_j - r_i) / (B - 1), so a log can show |b_i - looMean_i|. A batch of one reports r_0. */
  readonly looMean: Float64Array;
  /** The largest normalised self-weight w_ii / sum_j w_ij used: 0 for every leave-one-out estimator, max 1/n_g for group means. */
  readonly maxSelfWeight: number;
  /** Groups, groups of one, zero-variance groups, the fraction of exactly-zero advantages, masked rollouts. */
  readonly diagnostics: EstimatorDiagnostics;
  /** 1 where a loss should leave the row out of its denominator (a zero-variance group masked by the normalisation step); only set by steps that drop rows. */
  readonly dropped?: Uint8Array;
}

/** A named estimator, as {@link createEstimator} returns it. */
export interface Estimator {
  readonly name: string;
  compute(batch: Batch): EstimatorResult;
}
