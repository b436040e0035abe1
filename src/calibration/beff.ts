// B_eff calibration, "the post's recipe" (docs/method.md section 4).
import seedrandom from 'seedrandom';
import { RlAdvantagesError } from '../errors.js';
import { checkPositiveInteger, describe } from '../internal/validate.js';
import { TfidfVectorizer } from '../text/tfidf.js';
import { createBaselineEngine, type BaselineEngine } from './engines.js';
import { readTasks, type CalibrationTask, type TaskTable } from './rows.js';

export { beffFromFigures, beffRatioFromFigures, type BeffRatioFigures } from './figures.js';
export { groupCalibrationRows, type CalibrationRow, type CalibrationTask } from './rows.js';

/** The GS1 arm's estimator, scored by default. */
export const DEFAULT_CALIBRATION_ESTIMATOR = 'tfidf_kernel_loo_T0.1';

/** Options of {@link calibrateBeff}. */
export interface CalibrateBeffOptions {
  /** B, the number of distinct tasks per batch; 2 <= B <= K. Default 32 (the study's rollouts per step). */
  batchSize?: number;
  /** M, the number of Monte-Carlo batches; >= 2. Default 20000. */
  batches?: number;
  /** Bootstrap replicates (tasks resampled with replacement); 0 skips the bootstrap. Default 200. */
  bootstrap?: number;
  /**
   * Batches per bootstrap replicate; >= 2. Default min(batches, 500): with common random numbers the
   * Monte-Carlo error of a ratio is tiny next to the task-resampling spread (on 64 GSM8K-like tasks, MC SE
   * about 0.001 at 500 batches against a bootstrap SD of about 0.07), so more batches buy nothing.
   */
  bootstrapBatches?: number;
  /** Estimators to score. Default [`tfidf_kernel_loo_T0.1`], the GS1 arm's kernel. */
  estimators?: readonly string[];
  /** The estimator every ratio is relative to. Default `loo_batch_mean`. */
  reference?: string;
  /** Seed of every random draw (seedrandom's ARC4): the same seed gives bit-identical results. Default 0. */
  seed?: string | number;
  /** The fitted vectorizer, needed by `tfidf_kernel_loo_T<T>` and `length_bucket_loo`. */
  vectorizer?: TfidfVectorizer;
  /** Called now and then with (batches done, total batches including the bootstrap's), last with done = total. */
  onProgress?: (done: number, total: number) => void;
}

/** The calibration figures of one estimator. */
export interface EstimatorCalibration {
  /** Mean over the M*B rollouts of (b - t)^2; in single-rollout mode t = r. */
  readonly mseRaw: number;
  /**
   * mseRaw minus the mean of sigma_eps^2 / (G_k - 1) over the same rollouts. In single-rollout mode no
   * correction exists and it equals mseRaw (= the advantage variance, the role sigma_eps^2 + MSE_corrected has
   * in corrected mode).
   */
  readonly mseCorrected: number;
  /** B sigma_eps^2 / (sigma_eps^2 + mseCorrected); null in single-rollout mode, where sigma_eps^2 is unknown. */
  readonly beff: number | null;
  /** B_eff(e) / B_eff(reference) = Var(A_ref) / Var(A_e); exactly 1 for the reference. */
  readonly ratio: number;
  /** Monte-Carlo standard error of `ratio` (delta method over the M per-batch means; 0 for the reference). */
  readonly ratioSe: number;
  /** 95% percentile bootstrap interval over the replicates; null when `bootstrap` is 0. */
  readonly ratioCi95: readonly [number, number] | null;
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
  readonly bootstrapReplicates: number;
  /** Batches per bootstrap replicate (0 when there is no bootstrap). */
  readonly bootstrapBatches: number;
  readonly seed: string | number;
  /** sigma_eps^2 = sum_k (G_k - 1) s_k^2 / sum_k (G_k - 1); null in single-rollout mode. */
  readonly sigmaEps2: number | null;
  readonly reference: string;
  /** By estimator name, the reference first (ratio 1), then the scored estimators in the order given. */
  readonly estimators: Readonly<Record<string, EstimatorCalibration>>;
}

type Rng = { quick(): number };

/** Per-batch sums of one simulation: sse[e][m] = sum_i (b_i - t_i)^2, inverse[m] = sum_i 1/(G_k - 1). */
interface BatchSums {
  readonly sse: Float64Array[];
  readonly inverse: Float64Array;
}

interface Prepared {
  readonly table: TaskTable;
  readonly corrected: boolean;
  /** t of every rollout, flat like table.rewards. */
  readonly targets: Float64Array;
  /** (G_k - 1) s_k^2 of every task (0 in single-rollout mode). */
  readonly squares: Float64Array;
}

function prepare(table: TaskTable): Prepared {
  let singles = -1;
  let multiples = -1;
  for (let k = 0; k < table.count; k++) {
    if (table.sizes[k] === 1) {
      if (singles < 0) singles = k;
    } else if (multiples < 0) multiples = k;
  }
  if (singles >= 0 && multiples >= 0) {
    throw new RlAdvantagesError(
      `tasks mix single-rollout and multi-rollout tasks: tasks[${singles}] (${JSON.stringify(table.ids[singles])}) has 1 reward but tasks[${multiples}] (${JSON.stringify(table.ids[multiples])}) has ${table.sizes[multiples]}; give every task G >= 2 rewards (corrected mode) or exactly 1 (single-rollout mode)`,
      { code: 'mixed_group_sizes', field: 'rewards', index: singles },
    );
  }
  const corrected = multiples >= 0;
  const targets = new Float64Array(table.rewards.length);
  const squares = new Float64Array(table.count);
  for (let k = 0; k < table.count; k++) {
    const start = table.offsets[k] as number;
    const size = table.sizes[k] as number;
    if (!corrected) {
      targets[start] = table.rewards[start] as number;
      continue;
    }
    // t_kg = mean of the task's other rewards, as prefix plus suffix sums (never touching r_kg).
    let prefix = 0;
    for (let g = 0; g < size; g++) {
      targets[start + g] = prefix;
      prefix += table.rewards[start + g] as number;
    }
    const mean = prefix / size;
    let suffix = 0;
    let sum2 = 0;
    for (let g = size - 1; g >= 0; g--) {
      const r = table.rewards[start + g] as number;
      targets[start + g] = ((targets[start + g] as number) + suffix) / (size - 1);
      suffix += r;
      sum2 += (r - mean) * (r - mean);
    }
    squares[k] = sum2;
  }
  return { table, corrected, targets, squares };
}

/** sigma_eps^2 over a pool of task indices (a task drawn twice counts twice); 0 in single-rollout mode. */
function pooledVariance(prepared: Prepared, pool: Int32Array): number {
  if (!prepared.corrected) return 0;
  let numerator = 0;
  let denominator = 0;
  for (const k of pool) {
    numerator += prepared.squares[k] as number;
    denominator += (prepared.table.sizes[k] as number) - 1;
  }
  return numerator / denominator;
}

/**
 * M batches from `pool` (task indices; duplicates allowed in a bootstrap pool): each batch is B distinct
 * POSITIONS of the pool (a partial Fisher-Yates shuffle, uniform without replacement) and one rollout of
 * each, uniformly. Every engine scores the same batch (common random numbers).
 */
function simulate(
  prepared: Prepared,
  pool: Int32Array,
  batchSize: number,
  batches: number,
  rng: Rng,
  engines: readonly BaselineEngine[],
  progress: (batchesDone: number) => void,
): BatchSums {
  const { table, targets, corrected } = prepared;
  const positions = new Int32Array(pool.length);
  for (let p = 0; p < pool.length; p++) positions[p] = p;
  const taskOf = new Int32Array(batchSize);
  const rewards = new Float64Array(batchSize);
  const target = new Float64Array(batchSize);
  const baselines = new Float64Array(batchSize);
  const sse = engines.map(() => new Float64Array(batches));
  const inverse = new Float64Array(batches);
  const size = pool.length;
  for (let m = 0; m < batches; m++) {
    let inv = 0;
    for (let i = 0; i < batchSize; i++) {
      // The shuffle continues from the previous batch's arrangement: from any arrangement, a partial
      // Fisher-Yates shuffle gives a uniformly random ordered sample without replacement.
      const j = i + Math.floor(rng.quick() * (size - i));
      const p = positions[j] as number;
      positions[j] = positions[i] as number;
      positions[i] = p;
      const k = pool[p] as number;
      const g = Math.floor(rng.quick() * (table.sizes[k] as number));
      const at = (table.offsets[k] as number) + g;
      taskOf[i] = k;
      rewards[i] = table.rewards[at] as number;
      target[i] = targets[at] as number;
      if (corrected) inv += 1 / ((table.sizes[k] as number) - 1);
    }
    inverse[m] = inv;
    for (let e = 0; e < engines.length; e++) {
      (engines[e] as BaselineEngine).compute(taskOf, rewards, baselines);
      let sum = 0;
      for (let i = 0; i < batchSize; i++) {
        const d = (baselines[i] as number) - (target[i] as number);
        sum += d * d;
      }
      (sse[e] as Float64Array)[m] = sum;
    }
    if ((m + 1) % 1000 === 0 || m + 1 === batches) progress(m + 1);
  }
  return { sse, inverse };
}

function sum(values: Float64Array): number {
  let s = 0;
  for (const v of values) s += v;
  return s;
}

/**
 * Ratio (sigma^2 + MSEc_ref) / (sigma^2 + MSEc_e) and its delta-method standard error over the batches:
 * with a_m, c_m the per-batch sigma^2 + MSEc of the reference and the estimator, ratio = mean(a) / mean(c)
 * and SE = sqrt(sum_m (a_m - ratio c_m)^2 / (M (M - 1))) / mean(c).
 */
function ratioWithSe(
  sseRef: Float64Array,
  sseEst: Float64Array,
  inverse: Float64Array,
  sigma2: number,
  batchSize: number,
): { ratio: number; se: number } {
  const batches = sseRef.length;
  const perBatch = (sse: Float64Array, m: number): number =>
    sigma2 + ((sse[m] as number) - sigma2 * (inverse[m] as number)) / batchSize;
  let a = 0;
  let c = 0;
  for (let m = 0; m < batches; m++) {
    a += perBatch(sseRef, m);
    c += perBatch(sseEst, m);
  }
  a /= batches;
  c /= batches;
  // Var(A) is >= 0 by construction; both 0 means two perfect baselines on a noiseless set: equal.
  if (!(c > 0)) return a > 0 ? { ratio: Infinity, se: Infinity } : { ratio: 1, se: 0 };
  const ratio = a / c;
  let squares = 0;
  for (let m = 0; m < batches; m++) {
    const d = perBatch(sseRef, m) - ratio * perBatch(sseEst, m);
    squares += d * d;
  }
  return { ratio, se: Math.sqrt(squares / (batches * (batches - 1))) / c };
}

/** numpy's default (linear) percentile of sorted values, q in [0, 1]. */
function percentile(sorted: Float64Array, q: number): number {
  const h = (sorted.length - 1) * q;
  const lo = Math.floor(h);
  const frac = h - lo;
  const x0 = sorted[lo] as number;
  const x1 = sorted[Math.min(lo + 1, sorted.length - 1)] as number;
  if (frac === 0 || x0 === x1) return x0;
  return x0 + frac * (x1 - x0);
}

function readOptions(options: CalibrateBeffOptions | undefined, taskCount: number) {
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
  const bootstrap = o.bootstrap === 0 ? 0 : checkPositiveInteger('bootstrap', o.bootstrap ?? 200, 1);
  const bootstrapBatches =
    bootstrap === 0 ? 0 : checkPositiveInteger('bootstrapBatches', o.bootstrapBatches ?? Math.min(batches, 500), 2);
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
  return { batchSize, batches, bootstrap, bootstrapBatches, seed, reference, names, vectorizer: o.vectorizer, onProgress: o.onProgress };
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
 * THESE tasks. `ratioCi95` is the 95% percentile interval (numpy's linear percentiles) of the ratio over
 * `bootstrap` replicates that resample the K tasks with replacement (sigma_eps^2 recomputed per replicate,
 * a task drawn twice counting twice) and run `bootstrapBatches` batches each; a batch takes B distinct
 * POSITIONS of the resampled list, so it can hold one task twice, as two independent draws, exactly as if
 * it were two tasks with the same prompt and rewards. The replicates' smaller M adds a little Monte-Carlo
 * spread, which only widens the interval. All draws come from seedrandom(String(seed)), the main batches
 * first, so the main figures do not depend on the bootstrap options.
 *
 * Estimators: `loo_batch_mean`, `tfidf_kernel_loo_T<T>`, `length_bucket_loo` (each gives what
 * `createEstimator(name, { vectorizer }).compute({ rewards, prompts })` gives on the batch, up to rounding
 * (tested within 1e-12); task TF-IDF rows and pairwise cosines are computed once per call, so a batch
 * costs O(B^2) arithmetic and no allocation: 20000 batches x 2 estimators at B = 32 take about 0.35 s).
 *
 * @param tasks - `{ taskId, prompt, rewards }` per task (see {@link groupCalibrationRows} for JSONL rows).
 * @param options - see {@link CalibrateBeffOptions}.
 * @returns a {@link BeffCalibration}; the reference appears in `estimators` with ratio 1.
 * @throws {@link RlAdvantagesError} for malformed or duplicate tasks, a non-finite reward, tasks that mix
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
export function calibrateBeff(tasks: readonly CalibrationTask[], options?: CalibrateBeffOptions): BeffCalibration {
  const table = readTasks(tasks);
  if (table.count < 2) {
    throw new RlAdvantagesError(`tasks has ${table.count} task${table.count === 1 ? '' : 's'}; a calibration batch needs at least 2`, {
      code: 'batch_too_small',
      field: 'tasks',
    });
  }
  const o = readOptions(options, table.count);
  const prepared = prepare(table);
  const engines = o.names.map((name, i) =>
    createBaselineEngine(name, table.prompts, o.vectorizer, i === 0 ? 'reference' : 'estimator'),
  );
  const rng = seedrandom(String(o.seed)) as Rng;
  const total = o.batches + o.bootstrap * o.bootstrapBatches;
  const report = o.onProgress ?? (() => undefined);

  const identity = new Int32Array(table.count);
  for (let k = 0; k < table.count; k++) identity[k] = k;
  const sigma2 = pooledVariance(prepared, identity);
  const main = simulate(prepared, identity, o.batchSize, o.batches, rng, engines, (done) => report(done, total));

  const replicates = o.names.map(() => new Float64Array(o.bootstrap));
  const pool = new Int32Array(table.count);
  for (let r = 0; r < o.bootstrap; r++) {
    for (let k = 0; k < table.count; k++) pool[k] = Math.floor(rng.quick() * table.count);
    const s2 = pooledVariance(prepared, pool);
    const sums = simulate(prepared, pool, o.batchSize, o.bootstrapBatches, rng, engines, (done) =>
      report(o.batches + r * o.bootstrapBatches + done, total),
    );
    for (let e = 0; e < engines.length; e++) {
      (replicates[e] as Float64Array)[r] = ratioWithSe(
        sums.sse[0] as Float64Array,
        sums.sse[e] as Float64Array,
        sums.inverse,
        s2,
        o.batchSize,
      ).ratio;
    }
  }

  const rolloutsDrawn = o.batches * o.batchSize;
  const correction = (sigma2 * sum(main.inverse)) / rolloutsDrawn;
  const estimators: Record<string, EstimatorCalibration> = {};
  o.names.forEach((name, e) => {
    const mseRaw = sum(main.sse[e] as Float64Array) / rolloutsDrawn;
    const mseCorrected = mseRaw - correction;
    const variance = sigma2 + mseCorrected;
    let beff: number | null = null;
    if (prepared.corrected) beff = variance > 0 ? (o.batchSize * sigma2) / variance : o.batchSize;
    const { ratio, se } = ratioWithSe(main.sse[0] as Float64Array, main.sse[e] as Float64Array, main.inverse, sigma2, o.batchSize);
    let ratioCi95: [number, number] | null = null;
    if (o.bootstrap > 0) {
      const sorted = (replicates[e] as Float64Array).slice().sort();
      ratioCi95 = [percentile(sorted, 0.025), percentile(sorted, 0.975)];
    }
    estimators[name] = { mseRaw, mseCorrected, beff, ratio, ratioSe: se, ratioCi95 };
  });

  return {
    mode: prepared.corrected ? 'corrected' : 'single_rollout',
    tasks: table.count,
    rollouts: table.rewards.length,
    meanReward: sum(table.rewards) / table.rewards.length,
    batchSize: o.batchSize,
    batches: o.batches,
    bootstrapReplicates: o.bootstrap,
    bootstrapBatches: o.bootstrapBatches,
    seed: o.seed,
    sigmaEps2: prepared.corrected ? sigma2 : null,
    reference: o.reference,
    estimators,
  };
}
