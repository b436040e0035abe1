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
  /** The t quantile's degrees of freedom, S - 1 for both methods. */
  readonly df: number;
  /** The per-seed mean differences, in row order. */
  readonly perSeed: readonly number[];
  /** The sample SD of the per-seed mean differences (denominator S - 1): run-to-run spread plus each seed's item noise (what the data show). */
  readonly perSeedDifferenceSd: number;
  /** sqrt(max(0, (MS_seed - MS_error) / n)): the run-to-run SD sigma_a, item noise taken out (method of moments; what `plan --between-seed-sd` takes). */
  readonly runToRunSd: number;
  /** @deprecated the same as {@link SeedInterval.perSeedDifferenceSd}. */
  readonly betweenSeedSd: number;
  /** @deprecated the same as {@link SeedInterval.runToRunSd}. */
  readonly seedComponentSd: number;
  /** sqrt(MS_error / n) (0 when n = 1): the SD a per-seed mean has from the run-by-item noise alone. */
  readonly noiseSd: number;
  /** True when MS_error replaced a smaller MS_seed in the standard error (the floor of docs/method.md section 5.8). */
  readonly floored: boolean;
  /**
   * Why the variance could not be estimated, when it could not (the interval is then the whole range of d, or
   * unbounded without `extremes`, and the verdict inconclusive): `no_variation` (every seed's differences agree
   * and no run-by-item noise is left), `one_item` (n = 1: seed_item_t's item term cannot be estimated).
   */
  readonly degenerate: SeedDegeneracy | null;
  /** sqrt(max(0, (MS_item - MS_error) / S)): the SD over items of an item's expected difference (method of moments). */
  readonly itemComponentSd: number;
}

/** Why a seed-level variance could not be estimated (docs/method.md section 5.8). */
export type SeedDegeneracy = 'no_variation' | 'one_item';

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

/**
 * Whether every row holds exactly the same values (`===`, value by value). In exact arithmetic this is MS_seed =
 * MS_error = 0; the computed mean squares of identical rows are only near 0 (about 1e-33: the grand and item means are
 * sums of rounded terms), so the identity is what decides (docs/method.md section 5.8, "How M = 0 is tested").
 */
export function identicalRows(rows: readonly ArrayLike<number>[]): boolean {
  const first = rows[0] as ArrayLike<number>;
  return rows.every((row) => {
    if (row.length !== first.length) return false;
    for (let i = 0; i < row.length; i++) if (row[i] !== first[i]) return false;
    return true;
  });
}

/** The two-way mean squares of S rows of n differences (S >= 2); MS_seed and MS_error exactly 0 for identical rows. */
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
  // Identical rows: MS_seed = MS_error = 0 exactly (rounding would leave about 1e-33 and a zero-width interval).
  const same = identicalRows(rows);
  return {
    grand,
    rowMeans,
    seed: same ? 0 : (n * ssSeed) / (S - 1),
    item: n > 1 ? (S * ssItem) / (n - 1) : NaN,
    error: n > 1 ? (same ? 0 : ssError / ((S - 1) * (n - 1))) : NaN,
  };
}

/**
 * The standard error and degrees of freedom of each method (docs/method.md section 5.8), or why the variance cannot be
 * estimated. MS_seed is floored at MS_error: E[MS_seed] = n sigma_a^2 + sigma_e^2 >= sigma_e^2 = E[MS_error], so a
 * smaller MS_seed (per-seed means that agree more closely than the run-by-item noise allows, e.g. exact ties of 0/1
 * means) is replaced by the better-determined lower bound; the interval only widens.
 */
function spread(method: SeedMethodName, ms: MeanSquares, S: number, n: number): { se: number; df: number; floored: boolean; degenerate: SeedDegeneracy | null } {
  if (n === 1 && method === 'seed_item_t') return { se: Number.MAX_VALUE, df: S - 1, floored: false, degenerate: 'one_item' };
  const error = Number.isNaN(ms.error) ? 0 : ms.error;
  const floored = ms.seed < error;
  const seedTerm = Math.max(ms.seed, error);
  // M = 0 exactly when the rows are identical (meanSquares tests that identity): no variance, for both methods.
  if (!(seedTerm > 0)) return { se: Number.MAX_VALUE, df: S - 1, floored, degenerate: 'no_variation' };
  // seed_item_t adds the items' sampling variance, (MS_item - MS_error) / (S n) = estimated sigma_b^2 / n (0 when
  // negative), to seed_t's and keeps S - 1 df: the smaller df of the two terms, as in Hsu's conservative solution of the
  // Behrens-Fisher problem (Satterthwaite's df under-covered at S = 3: docs/method.md section 5.8).
  const extra = method === 'seed_item_t' ? Math.max(0, ms.item - ms.error) : 0;
  return { se: Math.sqrt((seedTerm + extra) / (S * n)), df: S - 1, floored, degenerate: null };
}

/**
 * The seed-level interval for the expected difference over training runs and test items (docs/method.md section
 * 5.8) from S >= 2 rows (seeds) of the n paired differences d_si (the same items, in the same order, in every row),
 * two-sided at level 1 - alpha / k: estimate = the grand mean; with M = max(MS_seed, MS_error) (the floor; MS_error
 * taken as 0 when n = 1), `seed_t`: se^2 = M / (S n), df = S - 1; `seed_item_t`: se^2 = (M + max(0, MS_item -
 * MS_error)) / (S n) (plus the estimated item-sampling variance sigma_b^2 / n), df = S - 1. Interval estimate +-
 * t_{df, alpha/(2k)} se, clipped to `extremes` when given. When the variance cannot be estimated (M = 0, or n = 1 for
 * seed_item_t) the interval is the whole of `extremes` (+-Number.MAX_VALUE without; standardError and halfWidth
 * Number.MAX_VALUE) and `degenerate` says why.
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
  const { se, df, floored, degenerate } = spread(options.method, ms, S, n);
  // No variance, no interval: the whole range (Number.MAX_VALUE, finite, stands for "unbounded" without extremes).
  const halfWidth = degenerate === null ? studentTUpperQuantile(alpha / (2 * k), df) * se : Number.MAX_VALUE;
  const [lo, hi] = options.extremes ?? [-Infinity, Infinity];
  const runToRun = Math.sqrt(Math.max(0, (ms.seed - (Number.isNaN(ms.error) ? 0 : ms.error)) / n));
  return {
    method: options.method,
    seeds: S,
    n,
    estimate: ms.grand,
    lower: degenerate === null ? Math.max(lo, ms.grand - halfWidth) : Math.max(lo, -Number.MAX_VALUE),
    upper: degenerate === null ? Math.min(hi, ms.grand + halfWidth) : Math.min(hi, Number.MAX_VALUE),
    halfWidth,
    standardError: se,
    df,
    perSeed: [...ms.rowMeans],
    perSeedDifferenceSd: Math.sqrt(ms.seed / n),
    runToRunSd: runToRun,
    betweenSeedSd: Math.sqrt(ms.seed / n),
    seedComponentSd: runToRun,
    noiseSd: Number.isNaN(ms.error) ? 0 : Math.sqrt(ms.error / n),
    floored,
    degenerate,
    itemComponentSd: Number.isNaN(ms.item) ? 0 : Math.sqrt(Math.max(0, (ms.item - ms.error) / S)),
  };
}
