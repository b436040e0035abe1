// B_eff calibration, "the post's recipe" (docs/method.md section 4).
import seedrandom from 'seedrandom';
import { RlAdvantagesError } from '../errors.js';
import { checkPositiveInteger, describe } from '../internal/validate.js';
import type { LoadedKernel } from '../kernels/kernel-file.js';
import { inSampleTasks, inSampleWarning, type InSampleTasks } from './in-sample.js';
import { TfidfVectorizer } from '../text/tfidf.js';
import { createBaselineEngine } from './engines.js';
import { jackknifeRatio } from './jackknife.js';
import { readTasks, type CalibrationTask } from './rows.js';
import { corrections, noiseVariance, prepare, ratioWithSe, simulate, sum, type NoiseModel } from './simulate.js';

export { beffFromFigures, beffRatioFromFigures, type BeffRatioFigures } from './figures.js';
export { groupCalibrationRows, type CalibrationRow, type CalibrationTask } from './rows.js';
export type { NoiseModel } from './simulate.js';

/** The GS1 arm's estimator, scored by default. */
export const DEFAULT_CALIBRATION_ESTIMATOR = 'tfidf_kernel_loo_T0.1';

/** The uncertainty interval a calibration reports for each ratio (docs/method.md section 4.1). */
export type CalibrationInterval = 'jackknife' | 'none';

/** Options of {@link calibrateBeff}. */
export interface CalibrateBeffOptions {
  /** B, the number of distinct tasks per batch; 2 <= B <= K. Default 32 (the study's rollouts per step). */
  batchSize?: number;
  /** M, the number of Monte-Carlo batches; >= 2. Default 20000. */
  batches?: number;
  /**
   * The 95% interval of every ratio: `jackknife` (default), the delete-one-task jackknife built from the main
   * batches (docs/method.md section 4.1; no extra simulation), or `none`.
   */
  interval?: CalibrationInterval;
  /**
   * How the noise of the targets is estimated (docs/method.md section 4.2): `pooled` (default, the recipe):
   * sigma_eps^2 pooled over tasks and sigma_eps^2/(G_k - 1) subtracted per rollout; `per-task`: task k's own
   * s_k^2/(G_k - 1) subtracted and sigma_eps^2 = the plain mean of s_k^2. They agree when every G_k is equal;
   * with unequal G_k the pooled figures are biased and `per-task` is not.
   */
  noise?: NoiseModel;
  /**
   * @deprecated The percentile bootstrap was removed: it put one task twice in a batch and its interval was
   * about 5 times too wide and off-centre (docs/method.md section 4.1). Kept so that old callers still run:
   * 0 means `interval: 'none'`; any other value is ignored (the interval is the jackknife).
   */
  bootstrap?: number;
  /** @deprecated Ignored (see `bootstrap`). */
  bootstrapBatches?: number;
  /** Estimators to score. Default [`tfidf_kernel_loo_T0.1`], the GS1 arm's kernel. */
  estimators?: readonly string[];
  /** The estimator every ratio is relative to. Default `loo_batch_mean`. */
  reference?: string;
  /** Seed of every random draw (seedrandom's ARC4): the same seed gives bit-identical results. Default 0. */
  seed?: string | number;
  /** The fitted vectorizer, needed by `tfidf_kernel_loo_T<T>` and `length_bucket_loo`. */
  vectorizer?: TfidfVectorizer;
  /**
   * Loaded kernel files by estimator name: an estimator named `kernel:PATH` (or any name listed here) is scored with
   * the kernel given for it (docs/method.md section 2.4); a `kernel:PATH` not listed is read relative to the current
   * directory. See `loadKernel` and `resolveKernelEstimatorName`.
   */
  kernels?: Readonly<Record<string, LoadedKernel>>;
  /** Called now and then with (batches done, total batches), last with done = total. */
  onProgress?: (done: number, total: number) => void;
  /**
   * Called with each warning, e.g. a kernel scored on tasks it was tuned on (`inSample`). Default: Node's
   * `process.emitWarning` (code `RL_ADV_IN_SAMPLE`).
   */
  onWarning?: (message: string) => void;
}

/** The calibration figures of one estimator. */
export interface EstimatorCalibration {
  /** Mean over the M*B rollouts of (b - t)^2; in single-rollout mode t = r. */
  readonly mseRaw: number;
  /**
   * mseRaw minus the mean of the target noise over the same rollouts: sigma_eps^2 / (G_k - 1) (`pooled`) or
   * s_k^2 / (G_k - 1) (`per-task`). In single-rollout mode no correction exists and it equals mseRaw (= the
   * advantage variance, the role sigma_eps^2 + MSE_corrected has in corrected mode).
   */
  readonly mseCorrected: number;
  /** B sigma_eps^2 / (sigma_eps^2 + mseCorrected); null in single-rollout mode, where sigma_eps^2 is unknown. */
  readonly beff: number | null;
  /** B_eff(e) / B_eff(reference) = Var(A_ref) / Var(A_e); exactly 1 for the reference. */
  readonly ratio: number;
  /** Monte-Carlo standard error of `ratio` (delta method over the M per-batch means; 0 for the reference). */
  readonly ratioSe: number;
  /**
   * Standard error of `ratio` over draws of the K tasks (the delete-one-task jackknife, which includes the
   * Monte-Carlo error); null without an interval.
   */
  readonly ratioTaskSe?: number | null;
  /** 95% interval ratio +- 1.96 ratioTaskSe (docs/method.md section 4.1); null without an interval. */
  readonly ratioCi95: readonly [number, number] | null;
  /**
   * EVPO's explained variance (arXiv:2604.19485), 1 - sum (r - b)^2 / sum (r - rbar)^2 over the same batches
   * (rbar each batch's mean reward): > 0 when the baseline beats none. ratio(e) = (1 - EV_ref) / (1 - EV_e) in
   * expectation, exactly in single-rollout mode (docs/method.md section 4.4). Absent from results written before it.
   */
  readonly explainedVariance?: number;
}

/** What {@link calibrateBeff} returns. */
export interface BeffCalibration {
  /** `corrected`: every task has G >= 2; `single_rollout`: every task has exactly one reward. */
  readonly mode: 'corrected' | 'single_rollout';
  /** K. */
  readonly tasks: number;
  /** Sum of G_k. */
  readonly rollouts: number;
  /** Mean reward over every rollout. */
  readonly meanReward: number;
  readonly batchSize: number;
  readonly batches: number;
  /** How `ratioCi95` was built: `jackknife` (delete-one-task, from the main batches) or `none`. */
  readonly intervalMethod: CalibrationInterval;
  /** The noise model of sigma_eps^2 and the correction. */
  readonly noise: NoiseModel;
  /** @deprecated Always 0: no bootstrap runs any more (see {@link CalibrateBeffOptions.bootstrap}). */
  readonly bootstrapReplicates: number;
  /** @deprecated Always 0. */
  readonly bootstrapBatches: number;
  readonly seed: string | number;
  /**
   * sigma_eps^2: sum_k (G_k - 1) s_k^2 / sum_k (G_k - 1) (`pooled`) or the mean of s_k^2 (`per-task`); null in
   * single-rollout mode.
   */
  readonly sigmaEps2: number | null;
  readonly reference: string;
  /** By estimator name, the reference first (ratio 1), then the scored estimators in the order given. */
  readonly estimators: Readonly<Record<string, EstimatorCalibration>>;
  /**
   * Kernel files scored on tasks they were tuned on (by estimator name; present only then): their ratio is
   * in-sample, optimistic (see {@link inSampleTasks}).
   */
  readonly inSample?: Readonly<Record<string, InSampleTasks>>;
}

/** The checked options of {@link calibrateBeff} with their defaults. Internal (also jackknife-bc.ts). */
export function readOptions(options: CalibrateBeffOptions | undefined, taskCount: number) {
  const o = options ?? {};
  if (typeof o !== 'object') {
    throw new RlAdvantagesError(`options must be an object, got ${describe(o)}`, { code: 'bad_option', field: 'options' });
  }
  const batchSize = checkPositiveInteger('batchSize', o.batchSize ?? 32, 2);
  if (batchSize > taskCount) {
    throw new RlAdvantagesError(
      `batchSize ${batchSize} exceeds the number of tasks (${taskCount}); a batch holds B distinct tasks, so give at least ${batchSize} tasks or a smaller batchSize`,
      { code: 'batch_too_large', field: 'batchSize' },
    );
  }
  const batches = checkPositiveInteger('batches', o.batches ?? 20000, 2);
  // The deprecated bootstrap options are still checked (a typo should not pass silently); 0 means no interval.
  if (o.bootstrap !== undefined && o.bootstrap !== 0) checkPositiveInteger('bootstrap', o.bootstrap, 1);
  if (o.bootstrapBatches !== undefined) checkPositiveInteger('bootstrapBatches', o.bootstrapBatches, 2);
  const interval = o.interval ?? (o.bootstrap === 0 ? 'none' : 'jackknife');
  if (interval !== 'jackknife' && interval !== 'none') {
    throw new RlAdvantagesError(`interval must be "jackknife" or "none", got ${describe(interval)}`, {
      code: 'bad_option',
      field: 'interval',
    });
  }
  const noise = o.noise ?? 'pooled';
  if (noise !== 'pooled' && noise !== 'per-task') {
    throw new RlAdvantagesError(`noise must be "pooled" or "per-task", got ${describe(noise)}`, {
      code: 'bad_option',
      field: 'noise',
    });
  }
  const seed = o.seed ?? 0;
  if (!(typeof seed === 'string' || (typeof seed === 'number' && Number.isFinite(seed)))) {
    throw new RlAdvantagesError(`seed must be a string or a finite number, got ${describe(seed)}`, {
      code: 'bad_option',
      field: 'seed',
    });
  }
  const reference = o.reference ?? 'loo_batch_mean';
  if (typeof reference !== 'string') {
    throw new RlAdvantagesError(`reference must be an estimator name, got ${describe(reference)}`, {
      code: 'bad_option',
      field: 'reference',
    });
  }
  const estimators = o.estimators ?? [DEFAULT_CALIBRATION_ESTIMATOR];
  if (!Array.isArray(estimators)) {
    throw new RlAdvantagesError(`estimators must be an array of estimator names, got ${describe(estimators)}`, {
      code: 'bad_option',
      field: 'estimators',
    });
  }
  estimators.forEach((name: unknown, i) => {
    if (typeof name !== 'string') {
      throw new RlAdvantagesError(`estimators[${i}] must be an estimator name, got ${describe(name)}`, {
        code: 'bad_option',
        field: 'estimators',
        index: i,
      });
    }
  });
  if (o.vectorizer !== undefined && !(o.vectorizer instanceof TfidfVectorizer)) {
    throw new RlAdvantagesError(`vectorizer must be a fitted TfidfVectorizer, got ${describe(o.vectorizer)}`, {
      code: 'bad_option',
      field: 'vectorizer',
    });
  }
  if (o.onProgress !== undefined && typeof o.onProgress !== 'function') {
    throw new RlAdvantagesError(`onProgress must be a function (done, total) => void, got ${describe(o.onProgress)}`, {
      code: 'bad_option',
      field: 'onProgress',
    });
  }
  const names = [reference, ...estimators.filter((name) => name !== reference)].filter(
    (name, i, all) => all.indexOf(name) === i,
  );
  const kernels = o.kernels ?? {};
  if (typeof kernels !== 'object' || kernels === null || Array.isArray(kernels)) {
    throw new RlAdvantagesError(`kernels must be an object of loaded kernels by estimator name, got ${describe(kernels)}`, {
      code: 'bad_option',
      field: 'kernels',
    });
  }
  return { batchSize, batches, interval, noise, seed, reference, names, vectorizer: o.vectorizer, kernels, onProgress: o.onProgress, onWarning: o.onWarning };
}

/**
 * Calibrates the effective batch size B_eff of advantage estimators on a set of tasks with rewards
 * sampled from the starting policy ("the post's recipe", docs/method.md section 4).
 *
 * Corrected mode (every task has G_k >= 2 rewards):
 * - sigma_eps^2 = sum_k (G_k - 1) s_k^2 / sum_k (G_k - 1), s_k^2 the unbiased within-task variance.
 * - M batches, each B distinct tasks drawn uniformly without replacement and one rollout of each drawn
 *   uniformly; every estimator computes b on the same batches (common random numbers).
 * - The target of rollout (k, g) is t = the mean of the task's other G_k - 1 rewards.
 * - MSE_raw = mean over the M*B rollouts of (b - t)^2; MSE_corrected = MSE_raw - mean of sigma_eps^2/(G_k - 1).
 * - B_eff = B sigma_eps^2 / (sigma_eps^2 + MSE_corrected); ratio = (sigma_eps^2 + MSE_corrected(ref)) /
 *   (sigma_eps^2 + MSE_corrected(e)) = Var(A_ref) / Var(A_e).
 *
 * Single-rollout mode (every task has exactly one reward): t = r, so the ratio is
 * mean (r - b_ref)^2 / mean (r - b_e)^2; `mseRaw` = `mseCorrected` = mean (r - b)^2, `beff` and
 * `sigmaEps2` are null (no replicate rollouts, so the noise variance cannot be separated).
 *
 * Uncertainty: `ratioSe` is the Monte-Carlo standard error by the delta method over the M per-batch means
 * (batches are independent given the tasks); it says how far the figure is from its M -> infinity value on
 * THESE tasks. `ratioCi95` is the delete-one-task jackknife interval over draws of the K tasks
 * (docs/method.md section 4.1): the main batches without task k are uniform batches of the other K - 1 tasks, so
 * ratio_(-k) (sigma_eps^2 recomputed without task k) needs no extra simulation; with
 * se^2 = (K - 1)/K sum_k (ratio_(-k) - mean ratio_(-k))^2 (`ratioTaskSe`), the interval is ratio +- 1.96 se.
 * It is valid but conservative on null populations (se about 1.3x the estimate's spread, section 4.1; the
 * bias-corrected delete-two variance was measured and covers 0.81 and 0.93, below 0.95, so it is not offered); none
 * with `interval: 'none'`, and none when B = K (every batch holds every task). All draws come from
 * seedrandom(String(seed)).
 *
 * Estimators: `loo_batch_mean`, `tfidf_kernel_loo_T<T>`, `length_bucket_loo` (each gives what
 * `createEstimator(name, { vectorizer }).compute({ rewards, prompts })` gives on the batch, up to rounding
 * (tested within 1e-12); task TF-IDF rows and pairwise cosines are computed once per call, so a batch
 * costs O(B^2) arithmetic and no allocation: 20000 batches x 2 estimators at B = 32 take about 0.35 s).
 *
 * @param tasks - `{ taskId, prompt, rewards }` per task (see {@link groupCalibrationRows} for JSONL rows).
 * @param options - see {@link CalibrateBeffOptions}.
 * @returns a {@link BeffCalibration}; the reference appears in `estimators` with ratio 1.
 * @throws `RlAdvantagesError` for malformed or duplicate tasks, a non-finite reward, tasks that mix
 *   G = 1 with G >= 2 (naming one of each), batchSize < 2 or above the number of tasks, batches < 2, an
 *   unknown or uncalibratable estimator, or a kernel estimator without `vectorizer`.
 * @example
 * ```ts
 * const vectorizer = TfidfVectorizer.fit(trainQuestions);
 * const tasks = groupCalibrationRows(rows); // calibration.jsonl: 64 tasks x 8 rollouts
 * const result = calibrateBeff(tasks, { vectorizer, seed: 1 });
 * result.estimators['tfidf_kernel_loo_T0.1']?.ratio; // e.g. 0.976: below the gate's 1.03
 * ```
 */
/** 1 - sum (r - b)^2 / sum (r - rbar)^2 over the batches; 0 when every batch's rewards are equal (nothing to explain). */
function explainedVariance(advantageSquares: Float64Array, rewardSquares: Float64Array): number {
  const total = sum(rewardSquares);
  return total > 0 ? 1 - sum(advantageSquares) / total : 0;
}

export function calibrateBeff(tasks: readonly CalibrationTask[], options?: CalibrateBeffOptions): BeffCalibration {
  const table = readTasks(tasks);
  if (table.count < 2) {
    throw new RlAdvantagesError(`tasks has ${table.count} task${table.count === 1 ? '' : 's'}; a calibration batch needs at least 2`, {
      code: 'batch_too_small',
      field: 'tasks',
    });
  }
  const o = readOptions(options, table.count);
  const inSample = inSampleTasks(tasks, o.kernels);
  const warn = o.onWarning ?? ((message: string) => process.emitWarning(message, { code: 'RL_ADV_IN_SAMPLE' }));
  for (const [name, shared] of Object.entries(inSample)) warn(inSampleWarning(name, shared));
  const prepared = prepare(table);
  const engines = o.names.map((name, i) =>
    createBaselineEngine(name, table.prompts, o.vectorizer, i === 0 ? 'reference' : 'estimator', undefined, o.kernels),
  );
  const rng = seedrandom(String(o.seed)) as { quick(): number };
  const report = o.onProgress ?? (() => undefined);
  const sigma2 = noiseVariance(prepared, o.noise);
  const main = simulate(prepared, o.batchSize, o.batches, rng, engines, (done) => report(done, o.batches));
  const correction = corrections(main, o.noise, sigma2, prepared.corrected);

  const rolloutsDrawn = o.batches * o.batchSize;
  const meanCorrection = sum(correction) / rolloutsDrawn;
  const estimators: Record<string, EstimatorCalibration> = {};
  o.names.forEach((name, e) => {
    const mseRaw = sum(main.sse[e] as Float64Array) / rolloutsDrawn;
    const mseCorrected = mseRaw - meanCorrection;
    const variance = sigma2 + mseCorrected;
    let beff: number | null = null;
    if (prepared.corrected) beff = variance > 0 ? (o.batchSize * sigma2) / variance : o.batchSize;
    const { ratio, se } = ratioWithSe(main.sse[0] as Float64Array, main.sse[e] as Float64Array, correction, sigma2, o.batchSize);
    const jackknife = o.interval === 'jackknife' ? jackknifeRatio(prepared, main, e, ratio, o.noise, o.batchSize) : null;
    estimators[name] = {
      mseRaw,
      mseCorrected,
      beff,
      ratio,
      ratioSe: se,
      ratioTaskSe: jackknife === null ? null : jackknife.se,
      ratioCi95: jackknife === null ? null : jackknife.ci95,
      explainedVariance: explainedVariance(main.advantageSquares[e] as Float64Array, main.rewardSquares),
    };
  });

  return {
    mode: prepared.corrected ? 'corrected' : 'single_rollout',
    tasks: table.count,
    rollouts: table.rewards.length,
    meanReward: sum(table.rewards) / table.rewards.length,
    batchSize: o.batchSize,
    batches: o.batches,
    intervalMethod: o.interval,
    noise: o.noise,
    bootstrapReplicates: 0,
    bootstrapBatches: 0,
    seed: o.seed,
    sigmaEps2: prepared.corrected ? sigma2 : null,
    reference: o.reference,
    estimators,
    ...(Object.keys(inSample).length === 0 ? {} : { inSample }),
  };
}
