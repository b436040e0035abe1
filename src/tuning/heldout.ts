// The held-out ratio of a tuning run: every held-out part scored by the kernel tuned without it, the batches of all
// parts pooled, with the delete-one-task jackknife interval on the log of the ratio (docs/method.md sections 4.1 and 4.3).
import seedrandom from 'seedrandom';
import { looMeansInto } from '../internal/batch.js';
import type { BaselineEngine } from '../calibration/engines.js';
import { Z_975 } from '../calibration/jackknife.js';
import type { TaskTable } from '../calibration/rows.js';
import { noiseVariance, prepare, simulate, type BatchSums } from '../calibration/simulate.js';
import { kernelBaselineFunction } from '../kernels/engine.js';
import type { Embedding } from '../kernels/weights.js';

/** One held-out part: its tasks, their index among all tasks, and the kernels to score on it (tuned without it). */
export interface HeldOutPart {
  readonly table: TaskTable;
  readonly globalIndex: Int32Array;
  /** One embedding of the part's tasks per scored kernel (the same kernels, in the same order, in every part). */
  readonly embeddings: readonly Embedding[];
}

/** A pooled held-out ratio and its interval. */
export interface HeldOutRatio {
  readonly ratio: number;
  /** The jackknife standard error of the ratio, null when it does not exist (some task in every batch of its part). */
  readonly se: number | null;
  /**
   * ratio x exp(-+1.96 se_log), se_log the jackknife standard error of ln ratio: always inside (0, inf), the range of
   * a ratio of variances; null when the jackknife does not exist or a deleted ratio is not > 0.
   */
  readonly ci95: readonly [number, number] | null;
}

/** sqrt((K - 1)/K sum_k (x_k - mean x)^2), the delete-one jackknife standard error of K deleted estimates x_k. */
function jackknifeSe(deleted: readonly number[]): number {
  const K = deleted.length;
  const mean = deleted.reduce((x, y) => x + y, 0) / K;
  return Math.sqrt(((K - 1) / K) * deleted.reduce((x, y) => x + (y - mean) ** 2, 0));
}

interface Totals {
  batches: number;
  inverse: number;
  sse: number[];
}

/**
 * Scores each part's kernels on M batches of that part (calibration's draws, seeded per part) and pools them: with
 * a_m = sigma^2 + (sse_ref,m - sigma^2 inv_m) / B and c_m the same for the kernel over every batch of every part,
 * ratio = sum a_m / sum c_m, sigma^2 (pooled) over all K tasks; the jackknife deletes one task at a time (its batches
 * and its share of sigma^2), as docs/method.md section 4.1.
 */
export function pooledHeldOut(all: TaskTable, parts: readonly HeldOutPart[], batchSize: number, batches: number, seed: string): HeldOutRatio[] {
  const global = prepare(all);
  const sigma2 = noiseVariance(global, 'pooled');
  const kernels = parts[0]?.embeddings.length ?? 0;
  const sums: BatchSums[] = parts.map((part, p) => {
    const engines: BaselineEngine[] = [
      { name: 'loo_batch_mean', compute: (_t, rewards, out) => void looMeansInto(rewards, out) },
      ...part.embeddings.map((e, i) => ({ name: `kernel${i}`, compute: kernelBaselineFunction(e) })),
    ];
    const rng = seedrandom(`${seed}/held-out/${p}`) as unknown as { quick(): number };
    return simulate(prepare(part.table), batchSize, batches, rng, engines, () => undefined);
  });
  const totals: Totals = { batches: 0, inverse: 0, sse: new Array<number>(kernels + 1).fill(0) };
  for (const s of sums) {
    totals.batches += s.inverse.length;
    for (const v of s.inverse) totals.inverse += v;
    s.sse.forEach((values, e) => values.forEach((v) => (totals.sse[e] = (totals.sse[e] as number) + v)));
  }
  const value = (sigma: number, n: number, sse: number, inverse: number) => n * sigma + (sse - sigma * inverse) / batchSize;
  return Array.from({ length: kernels }, (_, i) => {
    const e = i + 1;
    const a = value(sigma2, totals.batches, totals.sse[0] as number, totals.inverse);
    const c = value(sigma2, totals.batches, totals.sse[e] as number, totals.inverse);
    const ratio = c > 0 ? a / c : a > 0 ? Infinity : 1;
    const deleted: number[] = [];
    let exists = true;
    parts.forEach((part, p) => {
      const by = (sums[p] as BatchSums).byTask;
      part.globalIndex.forEach((k, l) => {
        const count = by.count[l] as number;
        if (totals.batches - count < 1) exists = false;
        const s = noiseVariance(global, 'pooled', k);
        const n = totals.batches - count;
        const inverse = totals.inverse - (by.inverse[l] as number);
        const ak = value(s, n, (totals.sse[0] as number) - ((by.sse[0] as Float64Array)[l] as number), inverse);
        const ck = value(s, n, (totals.sse[e] as number) - ((by.sse[e] as Float64Array)[l] as number), inverse);
        deleted.push(ck > 0 ? ak / ck : 1);
      });
    });
    if (!exists || !Number.isFinite(ratio)) return { ratio, se: null, ci95: null };
    const se = jackknifeSe(deleted);
    if (!(ratio > 0) || deleted.some((r) => !(r > 0 && Number.isFinite(r)))) return { ratio, se, ci95: null };
    const seLog = jackknifeSe(deleted.map(Math.log));
    return { ratio, se, ci95: [ratio * Math.exp(-Z_975 * seLog), ratio * Math.exp(Z_975 * seLog)] as const };
  });
}
