// The seed-level intervals on a seeds x items matrix of paired differences (docs/method.md section 5.8).
import { RlAdvantagesError } from '../errors.js';
import { studentTUpperQuantile } from '../internal/student-t.js';
import { describe } from '../internal/validate.js';
import { checkAlpha } from './checks.js';
import { isSeedMethodName, SEED_METHOD_NAMES, type SeedMethodName } from './seed-method-names.js';

/** A seed-level interval for the expected difference over training runs and items. */
export interface SeedInterval {
  readonly method: SeedMethodName;
  /** S, the seeds (rows). */
  readonly seeds: number;
  /** n, the items each seed was evaluated on (columns). */
  readonly n: number;
  /** The grand mean of the differences: the mean of the per-seed means. */
  readonly estimate: number;
  readonly lower: number;
  readonly upper: number;
  /** t * standardError (before any clipping to the criterion's range). */
  readonly halfWidth: number;
  /** The estimate's standard error under the method. */
  readonly standardError: number;
  /** The t quantile's degrees of freedom (S - 1 for seed_t; Satterthwaite's for seed_item_t). */
  readonly df: number;
  /** The per-seed mean differences, in row order. */
  readonly perSeed: readonly number[];
  /** The sample SD of the per-seed mean differences (denominator S - 1): run-to-run spread plus each seed's item noise. */
  readonly betweenSeedSd: number;
  /** sqrt(max(0, (MS_seed - MS_error) / n)): the run-to-run SD with the item noise taken out (method of moments). */
  readonly seedComponentSd: number;
  /** sqrt(max(0, (MS_item - MS_error) / S)): the SD over items of an item's expected difference (method of moments). */
  readonly itemComponentSd: number;
}

/** The mean squares of the two-way (seeds x items) layout without replication (docs/method.md section 5.8). */
export interface MeanSquares {
  readonly grand: number;
  readonly rowMeans: Float64Array;
  /** n * sum_s (rowMean_s - grand)^2 / (S - 1). */
  readonly seed: number;
  /** S * sum_i (colMean_i - grand)^2 / (n - 1); NaN when n = 1. */
  readonly item: number;
  /** sum (d_si - rowMean_s - colMean_i + grand)^2 / ((S - 1)(n - 1)); NaN when n = 1. */
  readonly error: number;
}

function checkRows(rows: unknown): { S: number; n: number; rows: readonly Float64Array[] } {
  if (!Array.isArray(rows) || rows.length < 2) {
    throw new RlAdvantagesError(`differences must be an array of at least 2 seeds' differences, got ${describe(rows)}`, {
      code: 'too_few_seeds',
      field: 'differences',
    });
  }
  const n = (rows[0] as { length?: unknown }).length;
  rows.forEach((row: unknown, s) => {
    if (!(row instanceof Float64Array) || row.length !== n || row.length === 0) {
      throw new RlAdvantagesError(`differences[${s}] must be a non-empty Float64Array of the same length as differences[0] (${String(n)}), got ${describe(row)}`, {
        code: 'length_mismatch',
        field: 'differences',
        index: s,
      });
    }
    for (let i = 0; i < row.length; i++) {
      if (!Number.isFinite(row[i])) {
        throw new RlAdvantagesError(`differences[${s}][${i}] must be finite, got ${row[i]}`, { code: 'non_finite', field: 'differences', index: s });
      }
    }
  });
  return { S: rows.length, n: n as number, rows: rows as Float64Array[] };
}

/** The two-way mean squares of S rows of n differences (S >= 2). */
export function meanSquares(rows: readonly Float64Array[]): MeanSquares {
  const S = rows.length;
  const n = (rows[0] as Float64Array).length;
  const rowMeans = new Float64Array(S);
  const colMeans = new Float64Array(n);
  rows.forEach((row, s) => {
    let sum = 0;
    for (let i = 0; i < n; i++) {
      sum += row[i] as number;
      colMeans[i] = (colMeans[i] as number) + (row[i] as number) / S;
    }
    rowMeans[s] = sum / n;
  });
  let grand = 0;
  for (const m of rowMeans) grand += m / S;
  let ssSeed = 0;
  for (const m of rowMeans) ssSeed += (m - grand) ** 2;
  let ssItem = 0;
  for (const m of colMeans) ssItem += (m - grand) ** 2;
  let ssError = 0;
  rows.forEach((row, s) => {
    const r = (rowMeans[s] as number) - grand;
    for (let i = 0; i < n; i++) ssError += ((row[i] as number) - r - (colMeans[i] as number)) ** 2;
  });
  return {
    grand,
    rowMeans,
    seed: (n * ssSeed) / (S - 1),
    item: n > 1 ? (S * ssItem) / (n - 1) : NaN,
    error: n > 1 ? ssError / ((S - 1) * (n - 1)) : NaN,
  };
}

/** The standard error and degrees of freedom of each method (docs/method.md section 5.8). */
function spread(method: SeedMethodName, ms: MeanSquares, S: number, n: number): { se: number; df: number } {
  if (method === 'seed_t' || n === 1) return { se: Math.sqrt(ms.seed / (S * n)), df: S - 1 };
  // seed_item_t: V = (MS_seed + MS_item) / (S n) = var(seed means) / S + var(item means) / n, both terms >= 0, with
  // Satterthwaite's df for a positive combination (between min(S - 1, n - 1) and S + n - 2).
  const total = ms.seed + ms.item;
  if (!(total > 0)) return { se: 0, df: S - 1 };
  const df = (total * total) / (ms.seed ** 2 / (S - 1) + ms.item ** 2 / (n - 1));
  return { se: Math.sqrt(total / (S * n)), df };
}

/**
 * The seed-level interval for the expected difference over training runs and test items (docs/method.md section
 * 5.8) from S >= 2 rows (seeds) of the n paired differences d_si (the same items, in the same order, in every row),
 * two-sided at level 1 - alpha / k: estimate = the grand mean; `seed_t`: se^2 = MS_seed / (S n) (the sample variance
 * of the per-seed means over S), df = S - 1; `seed_item_t`: se^2 = (MS_seed + MS_item) / (S n) (the variance
 * of the per-seed means over S plus the variance of the per-item means over n), Satterthwaite's df. Interval estimate +- t_{df, alpha/(2k)} se, clipped to
 * `extremes` when given.
 *
 * @param options.differences - S Float64Arrays of n differences each.
 * @param options.alpha - family-wise alpha in (0, 1).
 * @param options.comparisons - k criteria (Bonferroni), default 1.
 * @param options.method - `seed_item_t` or `seed_t`.
 * @param options.extremes - [smallest, largest] a difference can be (the interval is clipped to it).
 * @throws {RlAdvantagesError} `too_few_seeds` (fewer than 2 rows), `length_mismatch`, `non_finite`, `bad_alpha`,
 *   `unknown_method`.
 * @example
 * ```ts
 * import { seedInterval } from 'rl-advantages/stats';
 * const differences = [Float64Array.of(1, 0, 0, -1), Float64Array.of(1, 1, 0, 0), Float64Array.of(0, 0, 1, 0)];
 * const iv = seedInterval({ differences, alpha: 0.05, method: 'seed_t' });
 * console.log(iv.estimate.toFixed(3), iv.df); // "0.250" 2
 * ```
 */
export function seedInterval(options: {
  differences: readonly Float64Array[];
  alpha: number;
  comparisons?: number;
  method: SeedMethodName;
  extremes?: readonly [number, number];
}): SeedInterval {
  const { S, n, rows } = checkRows(options.differences);
  const alpha = checkAlpha('alpha', options.alpha);
  const k = options.comparisons ?? 1;
  if (!Number.isInteger(k) || k < 1) throw new RlAdvantagesError(`comparisons must be an integer >= 1, got ${describe(k)}`, { code: 'bad_integer', field: 'comparisons' });
  if (!isSeedMethodName(options.method)) {
    throw new RlAdvantagesError(`method must be one of ${SEED_METHOD_NAMES.join(', ')}, got ${describe(options.method)}`, { code: 'unknown_method', field: 'method' });
  }
  const ms = meanSquares(rows);
  const { se, df } = spread(options.method, ms, S, n);
  const halfWidth = se > 0 ? studentTUpperQuantile(alpha / (2 * k), df) * se : 0;
  const [lo, hi] = options.extremes ?? [-Infinity, Infinity];
  return {
    method: options.method,
    seeds: S,
    n,
    estimate: ms.grand,
    lower: Math.max(lo, ms.grand - halfWidth),
    upper: Math.min(hi, ms.grand + halfWidth),
    halfWidth,
    standardError: se,
    df,
    perSeed: [...ms.rowMeans],
    betweenSeedSd: Math.sqrt(ms.seed / n),
    seedComponentSd: Math.sqrt(Math.max(0, (ms.seed - (Number.isNaN(ms.error) ? 0 : ms.error)) / n)),
    itemComponentSd: Number.isNaN(ms.item) ? 0 : Math.sqrt(Math.max(0, (ms.item - ms.error) / S)),
  };
}
