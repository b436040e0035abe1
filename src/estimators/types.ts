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
}

/** A named estimator, as {@link createEstimator} returns it. */
export interface Estimator {
  readonly name: string;
  compute(batch: Batch): EstimatorResult;
}
