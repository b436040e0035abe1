// Scoring many candidate kernels on one set of tasks with common random batches (docs/method.md sections 4 and
// 4.3): the batches are drawn once, each candidate's K x K weights are computed once, and a batch then costs
// B (B - 1) / 2 table reads.
import { looMeansInto } from '../../internal/batch.js';
import { noiseVariance, prepare } from '../../calibration/simulate.js';
import type { TaskTable } from '../../calibration/rows.js';
import { expNonPositive } from '../../internal/fast-exp.js';
import { batchEnergiesInto, energyBaselinesInto, type Embedding } from '../weights.js';

type Rng = { quick(): number };

/** Below this, a weight sum may have lost every weight to underflow: the batch is recomputed exactly. */
const TINY = 1e-250;

/** M batches of B distinct tasks of one task set, one rollout each, with their rewards and targets. */
export interface BatchPlan {
  readonly tasks: number;
  readonly batchSize: number;
  readonly batches: number;
  /** Task of rollout i of batch m: taskOf[m * B + i]. */
  readonly taskOf: Int32Array;
  readonly rewards: Float64Array;
  readonly targets: Float64Array;
  /** sigma_eps^2 (pooled; 0 in single-rollout mode). */
  readonly sigma2: number;
  /** Sum over every drawn rollout of its target noise sigma_eps^2 / (G_k - 1) (0 in single-rollout mode). */
  readonly correction: number;
  /** Sum over every drawn rollout of (b_loo - t)^2. */
  readonly referenceSse: number;
}

/**
 * Draws the batches as the calibration does (a partial Fisher-Yates shuffle per batch, then one rollout of each task
 * uniformly; docs/method.md section 4) and scores the LOO batch mean on them.
 */
export function planBatches(table: TaskTable, batchSize: number, batches: number, rng: Rng): BatchPlan {
  const prepared = prepare(table);
  const size = table.count;
  const positions = Int32Array.from({ length: size }, (_, p) => p);
  const taskOf = new Int32Array(batches * batchSize);
  const rewards = new Float64Array(batches * batchSize);
  const targets = new Float64Array(batches * batchSize);
  const sigma2 = noiseVariance(prepared, 'pooled');
  let correction = 0;
  for (let m = 0; m < batches; m++) {
    for (let i = 0; i < batchSize; i++) {
      const j = i + Math.floor(rng.quick() * (size - i));
      const k = positions[j] as number;
      positions[j] = positions[i] as number;
      positions[i] = k;
      const g = Math.floor(rng.quick() * (table.sizes[k] as number));
      const at = (table.offsets[k] as number) + g;
      taskOf[m * batchSize + i] = k;
      rewards[m * batchSize + i] = table.rewards[at] as number;
      targets[m * batchSize + i] = prepared.targets[at] as number;
      if (prepared.corrected) correction += sigma2 / ((table.sizes[k] as number) - 1);
    }
    sortBatch(taskOf, rewards, targets, m * batchSize, batchSize);
  }
  const plan = { tasks: size, batchSize, batches, taskOf, rewards, targets, sigma2, correction, referenceSse: 0 };
  const out = new Float64Array(batchSize);
  let sse = 0;
  for (let m = 0; m < batches; m++) {
    looMeansInto(rewards.subarray(m * batchSize, (m + 1) * batchSize), out);
    for (let i = 0; i < batchSize; i++) sse += ((out[i] as number) - (targets[m * batchSize + i] as number)) ** 2;
  }
  return { ...plan, referenceSse: sse };
}

/**
 * Orders one batch's rollouts by task (insertion sort; the order within a batch changes no sum of squares but the
 * summation order), so that the weight reads of a batch walk each table row forwards.
 */
function sortBatch(taskOf: Int32Array, rewards: Float64Array, targets: Float64Array, o: number, size: number): void {
  for (let i = o + 1; i < o + size; i++) {
    const k = taskOf[i] as number;
    const r = rewards[i] as number;
    const t = targets[i] as number;
    let j = i - 1;
    while (j >= o && (taskOf[j] as number) > k) {
      taskOf[j + 1] = taskOf[j] as number;
      rewards[j + 1] = rewards[j] as number;
      targets[j + 1] = targets[j] as number;
      j--;
    }
    taskOf[j + 1] = k;
    rewards[j + 1] = r;
    targets[j + 1] = t;
  }
}

/** The ratio of section 4 from the reference's and a candidate's total squared errors over the plan. */
export function planRatio(plan: BatchPlan, sse: number): number {
  const n = plan.batches * plan.batchSize;
  const a = plan.sigma2 + (plan.referenceSse - plan.correction) / n;
  const c = plan.sigma2 + (sse - plan.correction) / n;
  if (!(c > 0)) return a > 0 ? Infinity : 1;
  return a / c;
}

/**
 * w_ab = exp(c - g_ab) for every pair of the plan's tasks, c the smallest off-diagonal energy (so every weight is in
 * [0, 1]), stored as float32 (relative error 6e-8 per weight, which moves a ratio by about 1e-8: a ranking figure; the
 * held-out figures use the exact float64 engine); the diagonal is never read. All 0 when every energy is +Infinity.
 */
function weightTable(embedding: Embedding): Float32Array {
  const K = embedding.size;
  const g = new Float64Array((K * (K - 1)) / 2);
  let shift = Infinity;
  let at = 0;
  for (let a = 0; a < K; a++) {
    for (let b = a + 1; b < K; b++) {
      const e = embedding.energy(a, b);
      g[at++] = e;
      if (e < shift) shift = e;
    }
  }
  const w = new Float32Array(K * K);
  at = 0;
  for (let a = 0; a < K; a++) {
    for (let b = a + 1; b < K; b++) {
      const x = shift === Infinity ? 0 : expNonPositive(shift - (g[at++] as number));
      w[a * K + b] = x;
      w[b * K + a] = x;
    }
  }
  return w;
}

/**
 * Sum over the plan's rollouts of (b - t)^2 for the kernel of `embedding` (over the plan's tasks): b_i as the
 * kernel_file estimator computes it (docs/method.md section 2.4), from w_kl = exp(c - g_kl) with one shift c (the
 * smallest off-diagonal energy), which gives the same ratio as the per-rollout shift up to rounding unless weights
 * underflow; a batch in which some rollout's weights all underflow (or are all 0) is recomputed exactly.
 */
export function scoreEmbedding(plan: BatchPlan, embedding: Embedding): number {
  const K = plan.tasks;
  const B = plan.batchSize;
  const w = weightTable(embedding);
  const rows = new Int32Array(B);
  const tasks = new Int32Array(B);
  const r = new Float64Array(B);
  const exact = new Float64Array(B);
  const scratch = new Float64Array(B * B);
  const { taskOf, rewards, targets } = plan;
  let sse = 0;
  for (let m = 0; m < plan.batches; m++) {
    const o = m * B;
    for (let i = 0; i < B; i++) {
      const k = taskOf[o + i] as number;
      tasks[i] = k;
      rows[i] = k * K;
      r[i] = rewards[o + i] as number;
    }
    let batchSse = 0;
    let fallback = false;
    for (let i = 0; i < B; i++) {
      const row = rows[i] as number;
      let n = 0;
      let d = 0;
      for (let j = 0; j < i; j++) {
        const x = w[row + (tasks[j] as number)] as number;
        n += x * (r[j] as number);
        d += x;
      }
      for (let j = i + 1; j < B; j++) {
        const x = w[row + (tasks[j] as number)] as number;
        n += x * (r[j] as number);
        d += x;
      }
      if (!(d > TINY)) {
        fallback = true;
        break;
      }
      const e = n / d - (targets[o + i] as number);
      batchSse += e * e;
    }
    if (fallback) {
      batchEnergiesInto(embedding, tasks, scratch);
      energyBaselinesInto(scratch, r, exact);
      batchSse = 0;
      for (let i = 0; i < B; i++) batchSse += ((exact[i] as number) - (targets[o + i] as number)) ** 2;
    }
    sse += batchSse;
  }
  return sse;
}
