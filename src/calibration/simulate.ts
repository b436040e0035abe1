// The Monte-Carlo batches of a B_eff calibration (docs/method.md section 4), kept apart from the options and the
// result so that the point estimate, the Monte-Carlo error and the jackknife (jackknife.ts) share one pass.
import { RlAdvantagesError } from '../errors.js';
import type { BaselineEngine } from './engines.js';
import { drawRollout, type TaskTable } from './rows.js';

/** How the noise of the targets is estimated (docs/method.md section 4.2). */
export type NoiseModel = 'pooled' | 'per-task';

/** What every batch needs about the tasks, computed once. Internal. */
export interface Prepared {
  readonly table: TaskTable;
  readonly corrected: boolean;
  /** t of every rollout, flat like table.rewards. */
  readonly targets: Float64Array;
  /** (G_k - 1) s_k^2 of every task (0 in single-rollout mode). */
  readonly squares: Float64Array;
  /** s_k^2 / (G_k - 1) of every task: the variance of its target t (0 in single-rollout mode). */
  readonly targetNoise: Float64Array;
}

/**
 * Sums over the M batches of one simulation, per batch and per task. Per batch m: sse[e][m] = sum_i (b_i - t_i)^2,
 * inverse[m] = sum_i 1/(G_k - 1), noise[m] = sum_i s_k^2/(G_k - 1) (i over the batch's rollouts, k its task).
 * Per task k, the same sums over the batches that contain k, and how many do: what deleting task k removes.
 */
export interface BatchSums {
  readonly sse: Float64Array[];
  /** Per engine and batch: sum_i (r_i - b_i)^2, the advantages' second moment (EVPO's Var(r - b), uncentred). */
  readonly advantageSquares: Float64Array[];
  /** Per batch: sum_i (r_i - rbar)^2, rbar the batch's mean reward. */
  readonly rewardSquares: Float64Array;
  readonly inverse: Float64Array;
  readonly noise: Float64Array;
  readonly byTask: {
    readonly count: Float64Array;
    readonly sse: Float64Array[];
    readonly inverse: Float64Array;
    readonly noise: Float64Array;
  };
  /**
   * Per pair of tasks k < l (index k K + l), the same sums over the batches that contain both, and how many do:
   * with byTask, what deleting tasks k and l removes (the delete-two jackknife, jackknife-bc.ts). Only when
   * simulate() is asked for it.
   */
  readonly byPair?: PairSums;
}

/** Sums over the batches that contain both tasks of a pair k < l, at index k K + l (the rest unused). */
export interface PairSums {
  readonly count: Float64Array;
  readonly sse: Float64Array[];
  readonly inverse: Float64Array;
  readonly noise: Float64Array;
}

type Rng = { quick(): number };

/** Checks the group sizes (all 1, or all >= 2) and computes the targets and within-task sums of squares. */
export function prepare(table: TaskTable): Prepared {
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
  const targetNoise = new Float64Array(table.count);
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
    targetNoise[k] = sum2 / ((size - 1) * (size - 1));
  }
  return { table, corrected, targets, squares, targetNoise };
}

/**
 * sigma_eps^2 without task `skip` nor task `skip2` (-1: none); 0 in single-rollout mode.
 * pooled: sum_k (G_k - 1) s_k^2 / sum_k (G_k - 1); per-task: the plain mean of s_k^2 over the tasks, the noise
 * variance of a rollout of a uniformly drawn task (what a batch samples).
 */
export function noiseVariance(prepared: Prepared, noise: NoiseModel, skip = -1, skip2 = -1): number {
  if (!prepared.corrected) return 0;
  const { table, squares } = prepared;
  let numerator = 0;
  let denominator = 0;
  for (let k = 0; k < table.count; k++) {
    if (k === skip || k === skip2) continue;
    const dof = (table.sizes[k] as number) - 1;
    numerator += noise === 'pooled' ? (squares[k] as number) : (squares[k] as number) / dof;
    denominator += noise === 'pooled' ? dof : 1;
  }
  return numerator / denominator;
}

/**
 * M batches: each is B distinct tasks (a partial Fisher-Yates shuffle, uniform without replacement) and one
 * rollout of each, uniformly. Every engine scores the same batch (common random numbers). With `pairs`, the sums
 * are also accumulated per pair of tasks in a batch (`byPair`); the draws and every other sum are the same.
 */
export function simulate(
  prepared: Prepared,
  batchSize: number,
  batches: number,
  rng: Rng,
  engines: readonly BaselineEngine[],
  progress: (batchesDone: number) => void,
  pairs = false,
): BatchSums {
  const { table, targets, corrected, targetNoise } = prepared;
  const size = table.count;
  const positions = new Int32Array(size);
  for (let p = 0; p < size; p++) positions[p] = p;
  const taskOf = new Int32Array(batchSize);
  const rewards = new Float64Array(batchSize);
  const target = new Float64Array(batchSize);
  const baselines = new Float64Array(batchSize);
  const sse = engines.map(() => new Float64Array(batches));
  const advantageSquares = engines.map(() => new Float64Array(batches));
  const rewardSquares = new Float64Array(batches);
  const inverse = new Float64Array(batches);
  const noise = new Float64Array(batches);
  const byTask = {
    count: new Float64Array(size),
    sse: engines.map(() => new Float64Array(size)),
    inverse: new Float64Array(size),
    noise: new Float64Array(size),
  };
  const byPair: PairSums | undefined = pairs
    ? {
        count: new Float64Array(size * size),
        sse: engines.map(() => new Float64Array(size * size)),
        inverse: new Float64Array(size * size),
        noise: new Float64Array(size * size),
      }
    : undefined;
  const batchSse = new Float64Array(engines.length);
  for (let m = 0; m < batches; m++) {
    let inv = 0;
    let tn = 0;
    for (let i = 0; i < batchSize; i++) {
      // The shuffle continues from the previous batch's arrangement: from any arrangement, a partial
      // Fisher-Yates shuffle gives a uniformly random ordered sample without replacement.
      const at = drawRollout(rng, positions, i, size, table);
      const k = positions[i] as number;
      taskOf[i] = k;
      rewards[i] = table.rewards[at] as number;
      target[i] = targets[at] as number;
      if (corrected) {
        inv += 1 / ((table.sizes[k] as number) - 1);
        tn += targetNoise[k] as number;
      }
    }
    inverse[m] = inv;
    noise[m] = tn;
    let rbar = 0;
    for (let i = 0; i < batchSize; i++) rbar += rewards[i] as number;
    rbar /= batchSize;
    let rs = 0;
    for (let i = 0; i < batchSize; i++) rs += ((rewards[i] as number) - rbar) ** 2;
    rewardSquares[m] = rs;
    for (let i = 0; i < batchSize; i++) {
      const k = taskOf[i] as number;
      byTask.count[k] = (byTask.count[k] as number) + 1;
      byTask.inverse[k] = (byTask.inverse[k] as number) + inv;
      byTask.noise[k] = (byTask.noise[k] as number) + tn;
    }
    for (let e = 0; e < engines.length; e++) {
      (engines[e] as BaselineEngine).compute(taskOf, rewards, baselines);
      let s = 0;
      let a = 0;
      for (let i = 0; i < batchSize; i++) {
        const d = (baselines[i] as number) - (target[i] as number);
        s += d * d;
        const advantage = (rewards[i] as number) - (baselines[i] as number);
        a += advantage * advantage;
      }
      (sse[e] as Float64Array)[m] = s;
      batchSse[e] = s;
      (advantageSquares[e] as Float64Array)[m] = a;
      const perTask = byTask.sse[e] as Float64Array;
      for (let i = 0; i < batchSize; i++) perTask[taskOf[i] as number] = (perTask[taskOf[i] as number] as number) + s;
    }
    if (byPair !== undefined) addPairs(byPair, taskOf, size, batchSse, inv, tn);
    if ((m + 1) % 1000 === 0 || m + 1 === batches) progress(m + 1);
  }
  return { sse, advantageSquares, rewardSquares, inverse, noise, byTask, ...(byPair === undefined ? {} : { byPair }) };
}

/** Adds one batch's sums (sse per engine, inverse, noise) to every pair of its tasks. */
function addPairs(byPair: PairSums, taskOf: Int32Array, size: number, sse: Float64Array, inv: number, tn: number): void {
  const B = taskOf.length;
  for (let i = 0; i < B; i++) {
    for (let j = i + 1; j < B; j++) {
      const k = taskOf[i] as number;
      const l = taskOf[j] as number;
      const at = k < l ? k * size + l : l * size + k;
      byPair.count[at] = (byPair.count[at] as number) + 1;
      byPair.inverse[at] = (byPair.inverse[at] as number) + inv;
      byPair.noise[at] = (byPair.noise[at] as number) + tn;
      for (let e = 0; e < sse.length; e++) {
        const perPair = byPair.sse[e] as Float64Array;
        perPair[at] = (perPair[at] as number) + (sse[e] as number);
      }
    }
  }
}

/** Sum of the values. */
export function sum(values: Float64Array): number {
  let s = 0;
  for (const v of values) s += v;
  return s;
}

/**
 * Per-batch corrections sum_i of the target noise: sigma^2 * inverse[m] (pooled) or noise[m] (per-task); 0 in
 * single-rollout mode.
 */
export function corrections(sums: BatchSums, noise: NoiseModel, sigma2: number, corrected: boolean): Float64Array {
  const out = new Float64Array(sums.inverse.length);
  if (!corrected) return out;
  for (let m = 0; m < out.length; m++) {
    out[m] = noise === 'pooled' ? sigma2 * (sums.inverse[m] as number) : (sums.noise[m] as number);
  }
  return out;
}

/**
 * Ratio (sigma^2 + MSEc_ref) / (sigma^2 + MSEc_e) and its delta-method Monte-Carlo standard error over the
 * batches: with a_m, c_m the per-batch sigma^2 + MSEc of the reference and the estimator, ratio = mean(a) / mean(c)
 * and SE = sqrt(sum_m (a_m - ratio c_m)^2 / (M (M - 1))) / mean(c).
 */
export function ratioWithSe(
  sseRef: Float64Array,
  sseEst: Float64Array,
  correction: Float64Array,
  sigma2: number,
  batchSize: number,
): { ratio: number; se: number } {
  const batches = sseRef.length;
  const perBatch = (sse: Float64Array, m: number): number =>
    sigma2 + ((sse[m] as number) - (correction[m] as number)) / batchSize;
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
