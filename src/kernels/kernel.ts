// The leave-one-out kernel engine shared by every kernel estimator (docs/method.md section 2).
//
// Rollouts are grouped into "units" whose members share every similarity (identical prompts, or
// one unit per rollout). For rollout i in unit u:
//   m_i = max over other rollouts j of s(u, unit(j))
//   w_ij = exp((s(u, unit(j)) - m_i) / T),   b_i = sum_{j != i} w_ij r_j / sum_{j != i} w_ij
// Subtracting m_i leaves the ratio unchanged and keeps every weight in (0, 1] with at least one
// weight equal to 1, so nothing overflows for any T > 0 and the denominator is >= 1.
// Units make a batch of 8 copies of each prompt cost (B/8)^2 exponentials instead of B^2.
//
// Two drivers share the per-unit sums and the final step: kernelBaselines takes any similarity row
// (feature vectors, user functions); sparseKernelBaselines is the fast path for CSR rows (TF-IDF),
// through sparse-kernel.ts (and kernel-threads.ts for large batches).
import type { CsrMatrix } from '../text/tfidf.js';
import { sumsOfOthers } from '../internal/batch.js';
import { compactAndTranspose } from './sparse.js';
import { threadedKernelSums } from './kernel-threads.js';

/**
 * Rollouts grouped into units, in compressed form: unit u's rollouts are
 * order[start[u]] .. order[start[u + 1] - 1], ascending (input order). One allocation per array
 * whatever the number of units, which matters for small batches.
 */
export interface Units {
  /** Unit index of each rollout. */
  readonly unitOf: Int32Array;
  /** Number of units U. */
  readonly count: number;
  /** U + 1 offsets into `order`. */
  readonly start: Int32Array;
  /** The rollouts grouped by unit. */
  readonly order: Int32Array;
}

/** Units from each rollout's unit index (numbered by first appearance, 0..count-1). */
function unitsFrom(unitOf: Int32Array, count: number): Units {
  const start = new Int32Array(count + 1);
  for (let i = 0; i < unitOf.length; i++) start[(unitOf[i] as number) + 1] = (start[(unitOf[i] as number) + 1] as number) + 1;
  for (let u = 0; u < count; u++) start[u + 1] = (start[u + 1] as number) + (start[u] as number);
  const order = new Int32Array(unitOf.length);
  const next = start.slice(0, count);
  for (let i = 0; i < unitOf.length; i++) {
    const u = unitOf[i] as number;
    order[next[u] as number] = i;
    next[u] = (next[u] as number) + 1;
  }
  return { unitOf, count, start, order };
}

/** Fills out[v] = similarity of unit u to unit v for every unit v (out[u] included). */
export type SimilarityRow = (u: number, out: Float64Array) => void;

export function singletonUnits(size: number): Units {
  const unitOf = new Int32Array(size);
  for (let i = 0; i < size; i++) unitOf[i] = i;
  return { unitOf, count: size, start: Int32Array.from({ length: size + 1 }, (_, i) => i), order: unitOf };
}

export function unitsByKey(keys: readonly string[]): Units {
  const index = new Map<string, number>();
  const unitOf = new Int32Array(keys.length);
  for (let i = 0; i < keys.length; i++) {
    let u = index.get(keys[i] as string);
    if (u === undefined) {
      u = index.size;
      index.set(keys[i] as string, u);
    }
    unitOf[i] = u;
  }
  return unitsFrom(unitOf, index.size);
}

/** R_v (sum of the unit's rewards) and N_v (its size) of every unit, in one array: R then N. */
function unitTotals(rewards: Float64Array, units: Units): { unitSum: Float64Array; unitSize: Float64Array } {
  const unitCount = units.count;
  const both = new Float64Array(2 * unitCount);
  const unitSum = both.subarray(0, unitCount);
  const unitSize = both.subarray(unitCount);
  const { start, order } = units;
  for (let v = 0; v < unitCount; v++) {
    const end = start[v + 1] as number;
    unitSize[v] = end - (start[v] as number);
    let sum = 0;
    for (let k = start[v] as number; k < end; k++) sum += rewards[order[k] as number] as number;
    unitSum[v] = sum;
  }
  return { unitSum, unitSize };
}

/**
 * Baselines of unit u's rollouts from the sums over the other units (numerator, denominator) and
 * the weight of u's own other copies (selfWeight): rollout k of u adds its copies' rewards but
 * never its own (prefix + suffix sums, so b_i is exactly independent of r_i).
 */
function finishUnit(
  rewards: Float64Array,
  units: Units,
  u: number,
  numerator: number,
  denominator: number,
  selfWeight: number,
  baselines: Float64Array,
): void {
  const first = units.start[u] as number;
  const end = units.start[u + 1] as number;
  if (end - first === 1) {
    baselines[units.order[first] as number] = numerator / denominator;
    return;
  }
  const own = units.order.subarray(first, end);
  const others = sumsOfOthers(rewards, own);
  const denominatorWithOwn = denominator + selfWeight * (own.length - 1);
  for (let k = 0; k < own.length; k++) {
    baselines[own[k] as number] = (numerator + selfWeight * (others[k] as number)) / denominatorWithOwn;
  }
}

/** Kernel LOO baselines; needs rewards.length >= 2 and temperature > 0 (checked by callers). */
export function kernelBaselines(
  rewards: Float64Array,
  units: Units,
  similarityRow: SimilarityRow,
  temperature: number,
): Float64Array {
  const unitCount = units.count;
  const { unitSum, unitSize } = unitTotals(rewards, units);
  const baselines = new Float64Array(rewards.length);
  const similarity = new Float64Array(unitCount);
  for (let u = 0; u < unitCount; u++) {
    similarityRow(u, similarity);
    const hasCopies = (unitSize[u] as number) > 1;
    let max = -Infinity;
    for (let v = 0; v < unitCount; v++) {
      if (v === u && !hasCopies) continue;
      const s = similarity[v] as number;
      if (s > max) max = s;
    }
    let numerator = 0;
    let denominator = 0;
    for (let v = 0; v < unitCount; v++) {
      if (v === u) continue;
      const w = Math.exp(((similarity[v] as number) - max) / temperature);
      numerator += w * (unitSum[v] as number);
      denominator += w * (unitSize[v] as number);
    }
    const selfWeight = hasCopies ? Math.exp(((similarity[u] as number) - max) / temperature) : 0;
    finishUnit(rewards, units, u, numerator, denominator, selfWeight, baselines);
  }
  return baselines;
}

/**
 * Kernel LOO baselines with s_uv = <x_u, x_v> over the rows of a CSR matrix, one row per unit
 * (L2-normalised TF-IDF rows give cosines). Time O(sum over terms of df_t^2 + U^2) for U units and
 * batch document frequencies df_t; memory O(nnz + U), never U x U. Needs
 * rewards.length >= 2 and temperature > 0 (checked by callers).
 */
export function sparseKernelBaselines(
  rewards: Float64Array,
  units: Units,
  x: CsrMatrix,
  temperature: number,
): Float64Array {
  const unitCount = units.count;
  const { unitSum, unitSize } = unitTotals(rewards, units);
  // Only the batch's own terms matter: renumbering them keeps the transpose O(nnz + terms used)
  // rather than O(vocabulary), which is most of the cost of a batch of 32.
  const compact = compactAndTranspose(x);
  const sums = threadedKernelSums(compact.x, compact.xt, unitSum, unitSize, temperature);
  const baselines = new Float64Array(rewards.length);
  for (let u = 0; u < unitCount; u++) {
    finishUnit(
      rewards,
      units,
      u,
      sums[u] as number,
      sums[unitCount + u] as number,
      sums[2 * unitCount + u] as number,
      baselines,
    );
  }
  return baselines;
}
