// The leave-one-out kernel engine shared by every kernel estimator (METHOD.md section 2).
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
// through sparse-kernel.ts.
import type { CsrMatrix } from '../text/tfidf.js';
import { sumsOfOthers } from './batch.js';
import { compactColumns, transposeCsr } from './sparse.js';
import { sparseKernelSums } from './sparse-kernel.js';

export interface Units {
  /** Unit index of each rollout. */
  readonly unitOf: Int32Array;
  /** Rollout indices of each unit, in input order. */
  readonly members: Int32Array[];
}

/** Fills out[v] = similarity of unit u to unit v for every unit v (out[u] included). */
export type SimilarityRow = (u: number, out: Float64Array) => void;

export function singletonUnits(size: number): Units {
  const unitOf = new Int32Array(size);
  const members: Int32Array[] = [];
  for (let i = 0; i < size; i++) {
    unitOf[i] = i;
    members.push(Int32Array.of(i));
  }
  return { unitOf, members };
}

export function unitsByKey(keys: readonly string[]): Units {
  const index = new Map<string, number>();
  const unitOf = new Int32Array(keys.length);
  const lists: number[][] = [];
  for (let i = 0; i < keys.length; i++) {
    let u = index.get(keys[i] as string);
    if (u === undefined) {
      u = lists.length;
      index.set(keys[i] as string, u);
      lists.push([]);
    }
    unitOf[i] = u;
    (lists[u] as number[]).push(i);
  }
  return { unitOf, members: lists.map((list) => Int32Array.from(list)) };
}

/** R_v (sum of the unit's rewards) and N_v (its size) of every unit. */
function unitTotals(rewards: Float64Array, units: Units): { unitSum: Float64Array; unitSize: Float64Array } {
  const unitCount = units.members.length;
  const unitSum = new Float64Array(unitCount);
  const unitSize = new Float64Array(unitCount);
  for (let v = 0; v < unitCount; v++) {
    const list = units.members[v] as Int32Array;
    unitSize[v] = list.length;
    let sum = 0;
    for (const i of list) sum += rewards[i] as number;
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
  own: Int32Array,
  numerator: number,
  denominator: number,
  selfWeight: number,
  baselines: Float64Array,
): void {
  if (own.length === 1) {
    baselines[own[0] as number] = numerator / denominator;
    return;
  }
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
  const unitCount = units.members.length;
  const { unitSum, unitSize } = unitTotals(rewards, units);
  const baselines = new Float64Array(rewards.length);
  const similarity = new Float64Array(unitCount);
  for (let u = 0; u < unitCount; u++) {
    similarityRow(u, similarity);
    const own = units.members[u] as Int32Array;
    const hasCopies = own.length > 1;
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
    finishUnit(rewards, own, numerator, denominator, selfWeight, baselines);
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
  const unitCount = units.members.length;
  const { unitSum, unitSize } = unitTotals(rewards, units);
  // Only the batch's own terms matter: renumbering them keeps the transpose O(nnz + terms used)
  // rather than O(vocabulary), which is most of the cost of a batch of 32.
  const compact = compactColumns(x);
  const sums = sparseKernelSums(compact, transposeCsr(compact), unitSum, unitSize, temperature);
  const baselines = new Float64Array(rewards.length);
  for (let u = 0; u < unitCount; u++) {
    finishUnit(
      rewards,
      units.members[u] as Int32Array,
      sums[u] as number,
      sums[unitCount + u] as number,
      sums[2 * unitCount + u] as number,
      baselines,
    );
  }
  return baselines;
}
