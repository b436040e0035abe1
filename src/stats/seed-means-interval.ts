// The seed-level interval when each seed was evaluated on its own items (docs/method.md section 5.8, `per_seed`):
// a t on the per-seed mean differences.
import { RlAdvantagesError } from '../errors.js';
import { studentTUpperQuantile } from '../internal/student-t.js';
import { describe } from '../internal/validate.js';
import { checkAlpha } from './checks.js';
import type { SeedDegeneracy } from './seed-interval.js';

/** A t interval on per-seed means, each seed with its own items. */
export interface SeedMeansInterval {
  /** S, the seeds. */
  readonly seeds: number;
  /** n_s per seed. */
  readonly itemsPerSeed: readonly number[];
  /** The unweighted mean of the per-seed means. */
  readonly estimate: number;
  readonly lower: number;
  readonly upper: number;
  readonly halfWidth: number;
  readonly standardError: number;
  /** S - 1. */
  readonly df: number;
  readonly perSeed: readonly number[];
  /** The sample SD of the per-seed means (what the data show). */
  readonly perSeedDifferenceSd: number;
  /** sqrt(max(0, V - F)), V the per-seed means' sample variance and F the mean of v_s / n_s: the run-to-run SD. */
  readonly runToRunSd: number;
  /** sqrt(F): the SD a per-seed mean has from the items and noise alone. */
  readonly noiseSd: number;
  /** True when the floor F replaced a smaller V. */
  readonly floored: boolean;
  readonly degenerate: SeedDegeneracy | null;
}

function sampleVariance(x: ArrayLike<number>, mean: number): number {
  let ss = 0;
  for (let i = 0; i < x.length; i++) ss += ((x[i] as number) - mean) ** 2;
  return ss / (x.length - 1);
}

/**
 * The interval for the expected difference over training runs and items when seed s was evaluated on its own n_s items
 * (docs/method.md section 5.8, `per_seed`): m_s the seed's mean difference, estimate = (1/S) sum_s m_s, V = their
 * sample variance, F = (1/S) sum_s v_s / n_s (v_s the seed's within-seed sample variance of d; seeds with n_s = 1 add 0),
 * se^2 = max(V, F) / S (the floor: E[V] = sigma_a^2 + (1/S) sum_s tau^2 / n_s >= E[F]), interval estimate +-
 * t_{S-1, alpha/(2k)} se clipped to `extremes`. max(V, F) = 0: no interval (the whole of `extremes`), degenerate
 * `no_variation`.
 *
 * @param options.differences - S Float64Arrays, each seed's own differences (lengths may differ).
 * @throws {RlAdvantagesError} `too_few_seeds`, `length_mismatch` (an empty seed), `non_finite`, `bad_alpha`, `bad_integer`.
 * @example
 * ```ts
 * import { seedMeansInterval } from 'rl-advantages/stats';
 * const iv = seedMeansInterval({ differences: [Float64Array.of(1, 0, 0), Float64Array.of(0, 1), Float64Array.of(1, 1, 0, 0)], alpha: 0.05 });
 * console.log(iv.estimate.toFixed(3), iv.df); // "0.444" 2
 * ```
 */
export function seedMeansInterval(options: { differences: readonly Float64Array[]; alpha: number; comparisons?: number; extremes?: readonly [number, number] }): SeedMeansInterval {
  const rows = options.differences;
  if (!Array.isArray(rows) || rows.length < 2) {
    throw new RlAdvantagesError(`differences must be an array of at least 2 seeds' differences, got ${describe(rows)}`, { code: 'too_few_seeds', field: 'differences' });
  }
  rows.forEach((row: unknown, s) => {
    if (!(row instanceof Float64Array) || row.length === 0) {
      throw new RlAdvantagesError(`differences[${s}] must be a non-empty Float64Array, got ${describe(row)}`, { code: 'length_mismatch', field: 'differences', index: s });
    }
    row.forEach((v, i) => {
      if (!Number.isFinite(v)) throw new RlAdvantagesError(`differences[${s}][${i}] must be finite, got ${v}`, { code: 'non_finite', field: 'differences', index: s });
    });
  });
  const alpha = checkAlpha('alpha', options.alpha);
  const k = options.comparisons ?? 1;
  if (!Number.isInteger(k) || k < 1) throw new RlAdvantagesError(`comparisons must be an integer >= 1, got ${describe(k)}`, { code: 'bad_integer', field: 'comparisons' });
  const S = rows.length;
  const means = rows.map((row) => row.reduce((a: number, v: number) => a + v, 0) / row.length);
  const estimate = means.reduce((a, m) => a + m, 0) / S;
  const V = sampleVariance(means, estimate);
  const F = rows.reduce((a, row, s) => a + (row.length > 1 ? sampleVariance(row, means[s] as number) / row.length : 0), 0) / S;
  const [lo, hi] = options.extremes ?? [-Number.MAX_VALUE, Number.MAX_VALUE];
  // max(V, F) = 0 exactly when every difference of every seed is the same value: tested on the values, since the
  // computed V and F of such rows are only near 0 (docs/method.md section 5.8, "How M = 0 is tested").
  const first = (rows[0] as Float64Array)[0];
  const constant = rows.every((row) => row.every((v: number) => v === first));
  const degenerate: SeedDegeneracy | null = !constant && Math.max(V, F) > 0 ? null : 'no_variation';
  const se = degenerate === null ? Math.sqrt(Math.max(V, F) / S) : Number.MAX_VALUE;
  const halfWidth = degenerate === null ? studentTUpperQuantile(alpha / (2 * k), S - 1) * se : Number.MAX_VALUE;
  return {
    seeds: S,
    itemsPerSeed: rows.map((r) => r.length),
    estimate,
    lower: degenerate === null ? Math.max(lo, estimate - halfWidth) : lo,
    upper: degenerate === null ? Math.min(hi, estimate + halfWidth) : hi,
    halfWidth,
    standardError: se,
    df: S - 1,
    perSeed: means,
    perSeedDifferenceSd: constant ? 0 : Math.sqrt(V),
    runToRunSd: constant ? 0 : Math.sqrt(Math.max(0, V - F)),
    noiseSd: constant ? 0 : Math.sqrt(F),
    floored: !constant && V < F,
    degenerate,
  };
}
