// Scoring many candidate kernels on one set of tasks with common random batches (docs/method.md sections 4 and
// 4.3): the batches are drawn once, each candidate's K x K weights are computed once, and a batch then costs
// B (B - 1) / 2 table reads.
import { looMeansInto } from '../internal/batch.js';
import { noiseVariance, prepare } from '../calibration/simulate.js';
import { drawRollout, type TaskTable } from '../calibration/rows.js';
import { expNonPositive } from '../internal/fast-exp.js';
import { batchEnergiesInto, energyBaselinesInto, type Embedding } from '../kernels/weights.js';

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
      const at = drawRollout(rng, positions, i, size, table);
      const k = positions[i] as number;
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

/** Candidates scored together: their weights of one pair of tasks share a cache line (16 x 4 bytes). */
export const BLOCK = 16;

/**
 * w_ab = exp(c - g_ab) of every candidate for every pair a < b of the plan's tasks, c the candidate's smallest
 * energy (so every weight is in [0, 1]), interleaved: pair a < b (number a (2K - a - 1) / 2 + b - a - 1 in row order)
 * at that number times C, one weight per candidate. Stored as float32 (relative error 6e-8 per weight, which moves a ratio by about 1e-8: a ranking figure;
 * the held-out figures use the exact float64 engine). All 0 for a candidate whose energies are all +Infinity.
 */
function weightTable(embeddings: readonly Embedding[], K: number): Float32Array {
  const C = embeddings.length;
  const pairs = (K * (K - 1)) / 2;
  const w = new Float32Array(pairs * C);
  // Pass 1: each candidate's smallest energy (unless the family knows it). Pass 2, K rows at a time: the energies of a row for every candidate,
  // then its weights written in pair order (so the writes walk the table forwards).
  const shifts = embeddings.map((embedding) => {
    if (embedding.minEnergy !== undefined) return embedding.minEnergy;
    let shift = Infinity;
    for (let a = 0; a < K; a++) for (let b = a + 1; b < K; b++) shift = Math.min(shift, embedding.energy(a, b));
    return shift;
  });
  const row = new Float64Array(K * C);
  let p = 0;
  for (let a = 0; a < K; a++) {
    embeddings.forEach((embedding, c) => {
      const shift = shifts[c] as number;
      for (let b = a + 1; b < K; b++) row[b * C + c] = shift === Infinity ? 0 : expNonPositive(shift - embedding.energy(a, b));
    });
    for (let b = a + 1; b < K; b++) {
      for (let c = 0; c < C; c++) w[p * C + c] = row[b * C + c] as number;
      p++;
    }
  }
  return w;
}

/**
 * Sum over the plan's rollouts of (b - t)^2 for each kernel of `embeddings` (over the plan's tasks, at most
 * {@link BLOCK} of them): b_i as the kernel_file estimator computes it (docs/method.md section 2.4), from
 * w_kl = exp(c - g_kl) with one shift c per kernel (its smallest energy), which gives the same ratio as the
 * per-rollout shift up to rounding unless weights underflow; a batch in which some rollout's weights all underflow
 * (or are all 0) is recomputed exactly for that kernel. A batch's tasks are in ascending order (planBatches), so
 * each pair is read once, from the upper triangle.
 */
export function scoreEmbeddings(plan: BatchPlan, embeddings: readonly Embedding[]): number[] {
  const K = plan.tasks;
  const B = plan.batchSize;
  const C = embeddings.length;
  // Pair (a, b), a < b, is number a (2K - a - 1) / 2 + (b - a - 1) of the upper triangle in row order.
  const rowStart = Int32Array.from({ length: K }, (_, a) => (a * (2 * K - a - 1)) / 2 - a - 1);
  const w = weightTable(embeddings, K);
  const tasks = new Int32Array(B);
  const r = new Float64Array(B);
  const t = new Float64Array(B);
  // idx[i B + j] = where the weights of the pair of rollouts i and j start in the table (either order).
  const idx = new Int32Array(B * B);
  const sse = new Array<number>(C).fill(0);
  const exact = new Float64Array(B);
  const scratch = new Float64Array(B * B);
  const { taskOf, rewards, targets } = plan;
  for (let m = 0; m < plan.batches; m++) {
    const o = m * B;
    for (let i = 0; i < B; i++) {
      tasks[i] = taskOf[o + i] as number;
      r[i] = rewards[o + i] as number;
      t[i] = targets[o + i] as number;
    }
    for (let i = 0; i < B; i++) {
      const rs = rowStart[tasks[i] as number] as number;
      for (let j = i + 1; j < B; j++) {
        const p = (rs + (tasks[j] as number)) * C;
        idx[i * B + j] = p;
        idx[j * B + i] = p;
      }
    }
    // One kernel at a time: the first reads the batch's pairs into the cache, the others find them there.
    for (let c = 0; c < C; c++) {
      let batchSse = 0;
      let fallback = false;
      for (let i = 0; i < B && !fallback; i++) {
        const row = i * B;
        let n = 0;
        let d = 0;
        for (let j = 0; j < i; j++) {
          const x = w[(idx[row + j] as number) + c] as number;
          n += x * (r[j] as number);
          d += x;
        }
        for (let j = i + 1; j < B; j++) {
          const x = w[(idx[row + j] as number) + c] as number;
          n += x * (r[j] as number);
          d += x;
        }
        if (!(d > TINY)) fallback = true;
        const e = n / d - (t[i] as number);
        batchSse += e * e;
      }
      if (fallback) {
        batchEnergiesInto(embeddings[c] as Embedding, tasks, scratch);
        energyBaselinesInto(scratch, r, exact);
        batchSse = 0;
        for (let i = 0; i < B; i++) batchSse += ((exact[i] as number) - (t[i] as number)) ** 2;
      }
      sse[c] = (sse[c] as number) + batchSse;
    }
  }
  return sse;
}
