// The delete-one-task jackknife interval of a B_eff ratio (docs/method.md section 4.1), from the main batches.
import { noiseVariance, type BatchSums, type NoiseModel, type Prepared } from './simulate.js';

/** z_{0.975}, the standard normal quantile of a two-sided 95% interval. */
export const Z_975 = 1.959963984540054;

/** The jackknife's figures for one estimator. */
export interface JackknifeRatio {
  /** sqrt((K - 1)/K sum_k (ratio_(-k) - mean)^2): the standard error of the ratio over draws of the K tasks. */
  readonly se: number;
  /** ratio +- z_{0.975} se. */
  readonly ci95: readonly [number, number];
}

/**
 * The delete-one-task jackknife of the ratio of estimator `e` to the reference (engine 0).
 *
 * The main batches that do not contain task k are M_k uniform batches of the other K - 1 tasks (a uniform
 * sample without replacement, conditioned on missing k), so ratio_(-k) is the calibration of those K - 1 tasks,
 * with sigma_eps^2 recomputed without task k, at no extra simulation:
 *   ratio_(-k) = sum_{m not containing k} a_m / sum_{m not containing k} c_m,
 *   a_m = sigma_(-k)^2 + (sse_ref,m - corr_m) / B, c_m the same for e.
 * Then se^2 = (K - 1)/K sum_k (ratio_(-k) - mean_k ratio_(-k))^2 and the interval is ratio +- z_{0.975} se.
 *
 * @returns null when it does not exist: some task is in every batch (B = K, or too few batches), or a deleted
 *   calibration has no finite ratio.
 */
export function jackknifeRatio(
  prepared: Prepared,
  sums: BatchSums,
  e: number,
  ratio: number,
  noise: NoiseModel,
  batchSize: number,
): JackknifeRatio | null {
  const deleted = deleteOneRatios(prepared, sums, e, noise, batchSize);
  if (deleted === null) return null;
  const se = Math.sqrt(jackknifeVariance(deleted));
  if (!Number.isFinite(se) || !Number.isFinite(ratio)) return null;
  return { se, ci95: [ratio - Z_975 * se, ratio + Z_975 * se] };
}

/** (K - 1)/K sum_k (ratio_(-k) - mean_k ratio_(-k))^2, the delete-one jackknife variance. */
export function jackknifeVariance(deleted: Float64Array): number {
  const K = deleted.length;
  let mean = 0;
  for (const v of deleted) mean += v;
  mean /= K;
  let squares = 0;
  for (const v of deleted) squares += (v - mean) * (v - mean);
  return ((K - 1) / K) * squares;
}

/** The totals over every batch that the deleted calibrations subtract from: batches, the reference's and
 * estimator e's squared errors, the sum of 1/(G - 1) and of the per-task target noise. */
export function batchTotals(sums: BatchSums, e: number): { M: number; sseRef: number; sseEst: number; inverse: number; targetNoise: number } {
  const total = (values: Float64Array): number => values.reduce((s, v) => s + v, 0);
  return {
    M: sums.inverse.length,
    sseRef: total(sums.sse[0] as Float64Array),
    sseEst: total(sums.sse[e] as Float64Array),
    inverse: total(sums.inverse),
    targetNoise: total(sums.noise),
  };
}

/**
 * ratio_(-k) for every task k, from the batches that do not contain it (see {@link jackknifeRatio}); null when
 * some task is in every batch or a deleted calibration has no finite ratio.
 */
export function deleteOneRatios(
  prepared: Prepared,
  sums: BatchSums,
  e: number,
  noise: NoiseModel,
  batchSize: number,
): Float64Array | null {
  const K = prepared.table.count;
  const { M, sseRef, sseEst, inverse, targetNoise } = batchTotals(sums, e);
  const deleted = new Float64Array(K);
  for (let k = 0; k < K; k++) {
    const batches = M - (sums.byTask.count[k] as number);
    if (batches < 1) return null;
    const sigma2 = noiseVariance(prepared, noise, k);
    let correction = 0;
    if (prepared.corrected) {
      correction =
        noise === 'pooled'
          ? sigma2 * (inverse - (sums.byTask.inverse[k] as number))
          : targetNoise - (sums.byTask.noise[k] as number);
    }
    const a = batches * sigma2 + (sseRef - ((sums.byTask.sse[0] as Float64Array)[k] as number) - correction) / batchSize;
    const c = batches * sigma2 + (sseEst - ((sums.byTask.sse[e] as Float64Array)[k] as number) - correction) / batchSize;
    const value = a / c;
    // c = 0 with a = 0: two perfect baselines, equal (as the main ratio); c = 0 alone: no finite ratio.
    if (!(c > 0)) {
      if (a > 0) return null;
      deleted[k] = 1;
    } else deleted[k] = value;
  }
  return deleted;
}
