// The bias-corrected (delete-two) jackknife variance of a B_eff ratio (docs/method.md section 4.1), from the main
// batches: the calibration without tasks i and j is the batches that contain neither.
import { batchTotals, deleteOneRatios, jackknifeVariance, Z_975 } from './jackknife.js';
import { noiseVariance, type BatchSums, type NoiseModel, type Prepared } from './simulate.js';

/** The bias-corrected jackknife's figures for one estimator. */
export interface BiasCorrectedJackknife {
  /** v_J = (K - 1)/K sum_k (ratio_(-k) - mean)^2, the delete-one jackknife variance. */
  readonly varianceJackknife: number;
  /** (1/(K (K - 1))) sum_{i<j} (Q_ij - Qbar)^2, the estimate of v_J's upward bias. */
  readonly biasEstimate: number;
  /** v_BC = v_J - biasEstimate; may be negative. */
  readonly varianceCorrected: number;
  /** sqrt(v_BC) when v_BC > 0, else sqrt(v_J) (the fallback). */
  readonly se: number;
  /** True when v_BC <= 0 and the interval fell back to the delete-one jackknife's. */
  readonly fellBack: boolean;
  /** ratio +- z_{0.975} se. */
  readonly ci95: readonly [number, number];
}

/**
 * ratio_(-i,-j) for every pair i < j (at index i K + j; the rest 0): the calibration of the other K - 2 tasks on
 * the batches that contain neither i nor j (M - n_i - n_j + n_ij of them; their sums are the totals minus the
 * per-task sums of i and of j plus the per-pair sums of i and j), with sigma_eps^2 recomputed without both.
 *
 * @returns null when `sums` has no per-pair sums, some pair is in every batch (B > K - 2), or a deleted
 *   calibration has no finite ratio.
 */
export function deleteTwoRatios(
  prepared: Prepared,
  sums: BatchSums,
  e: number,
  noise: NoiseModel,
  batchSize: number,
): Float64Array | null {
  const pairs = sums.byPair;
  if (pairs === undefined) return null;
  const K = prepared.table.count;
  const { M, sseRef, sseEst, inverse, targetNoise } = batchTotals(sums, e);
  const task = sums.byTask;
  const without = (all: number, perTask: Float64Array, perPair: Float64Array, i: number, j: number, at: number): number =>
    all - (perTask[i] as number) - (perTask[j] as number) + (perPair[at] as number);
  const deleted = new Float64Array(K * K);
  for (let i = 0; i < K; i++) {
    for (let j = i + 1; j < K; j++) {
      const at = i * K + j;
      const batches = without(M, task.count, pairs.count, i, j, at);
      if (batches < 1) return null;
      const sigma2 = noiseVariance(prepared, noise, i, j);
      let correction = 0;
      if (prepared.corrected) {
        correction =
          noise === 'pooled'
            ? sigma2 * without(inverse, task.inverse, pairs.inverse, i, j, at)
            : without(targetNoise, task.noise, pairs.noise, i, j, at);
      }
      const refSse = without(sseRef, task.sse[0] as Float64Array, pairs.sse[0] as Float64Array, i, j, at);
      const estSse = without(sseEst, task.sse[e] as Float64Array, pairs.sse[e] as Float64Array, i, j, at);
      const a = batches * sigma2 + (refSse - correction) / batchSize;
      const c = batches * sigma2 + (estSse - correction) / batchSize;
      // As the delete-one ratios: c = 0 with a = 0 is two perfect baselines (1); c = 0 alone has no finite ratio.
      if (!(c > 0)) {
        if (a > 0) return null;
        deleted[at] = 1;
      } else deleted[at] = a / c;
    }
  }
  return deleted;
}

/**
 * The bias-corrected delete-one jackknife variance (Efron and Stein 1981, Ann. Statist. 9:586-596,
 * https://doi.org/10.1214/aos/1176345462; Efron 1982, "The Jackknife, the Bootstrap and Other Resampling Plans",
 * ch. 4) of a statistic `theta` of K units, from its delete-one values `one` (length K) and delete-two values `two`
 * (theta without units i < j at index i K + j):
 *   Q_ij = K theta - (K - 1) (theta_(i) + theta_(j)) + (K - 2) theta_(ij),
 *   v_BC = v_J - (1/(K (K - 1))) sum_{i<j} (Q_ij - Qbar)^2,
 * v_J = (K - 1)/K sum_i (theta_(i) - mean)^2 and Qbar the mean of the K (K - 1)/2 Q_ij. Q_ij is 0 for a statistic
 * linear in the units (the mean), so v_BC = v_J there; for a quadratic one (the sample variance) it removes v_J's
 * upward bias to first order (checked in test/calibration/jackknife-bc.test.ts).
 */
export function biasCorrectedVariance(
  theta: number,
  one: Float64Array,
  two: Float64Array,
): { varianceJackknife: number; biasEstimate: number; varianceCorrected: number } {
  const K = one.length;
  const q = new Float64Array((K * (K - 1)) / 2);
  let n = 0;
  for (let i = 0; i < K; i++) {
    for (let j = i + 1; j < K; j++) {
      q[n++] = K * theta - (K - 1) * ((one[i] as number) + (one[j] as number)) + (K - 2) * (two[i * K + j] as number);
    }
  }
  let mean = 0;
  for (const v of q) mean += v;
  mean /= q.length;
  let squares = 0;
  for (const v of q) squares += (v - mean) * (v - mean);
  const varianceJackknife = jackknifeVariance(one);
  const biasEstimate = squares / (K * (K - 1));
  return { varianceJackknife, biasEstimate, varianceCorrected: varianceJackknife - biasEstimate };
}

/**
 * The bias-corrected jackknife interval of the ratio of estimator `e` to the reference (engine 0), from the main
 * batches' per-task and per-pair sums ({@link deleteTwoRatios}, {@link biasCorrectedVariance}). When
 * v_BC <= 0 the interval falls back to v_J's (docs/method.md section 4.1).
 *
 * @returns null when it does not exist: `sums` has no per-pair sums, some pair of tasks is in every batch
 *   (B > K - 2), or a deleted calibration has no finite ratio.
 */
export function biasCorrectedJackknife(
  prepared: Prepared,
  sums: BatchSums,
  e: number,
  ratio: number,
  noise: NoiseModel,
  batchSize: number,
): BiasCorrectedJackknife | null {
  const one = deleteOneRatios(prepared, sums, e, noise, batchSize);
  const two = one === null ? null : deleteTwoRatios(prepared, sums, e, noise, batchSize);
  if (one === null || two === null || !Number.isFinite(ratio)) return null;
  const { varianceJackknife, biasEstimate, varianceCorrected } = biasCorrectedVariance(ratio, one, two);
  const fellBack = !(varianceCorrected > 0);
  const se = Math.sqrt(fellBack ? varianceJackknife : varianceCorrected);
  if (!Number.isFinite(se)) return null;
  return { varianceJackknife, biasEstimate, varianceCorrected, se, fellBack, ci95: [ratio - Z_975 * se, ratio + Z_975 * se] };
}
