// Power of the paired decision for 0/1 outcomes, by exact enumeration over the trinomial counts
// (docs/method.md section 5.6).
import { RlAdvantagesError } from '../errors.js';
import { clopperPearson, logGamma, regularizedBeta } from '../internal/beta.js';
import { checkPositiveInteger, describe } from '../internal/validate.js';
import { checkAlpha, checkFiniteNumber } from './checks.js';
import type { DecisionMethodName } from './method-names.js';
import { decisionMethod } from './methods.js';
import { criterionVerdict } from './verdict.js';
import { ASSUMED_CONTROL_ACCURACY, checkControlAccuracy, fourCellObservedThresholds, fourCells, fourCellVerdictProbabilities, type FourCells } from './four-cell-power.js';

/** Probability mass the enumeration may leave out, per binomial (docs/method.md section 5.6). */
const EPS = 1e-13;

/** The design whose power is computed: n paired 0/1 items at discordance D, k criteria at alpha, one margin. */
export interface PowerDesign {
  /** Paired items, an integer >= 1. */
  readonly n: number;
  /** D, the probability that the two arms disagree on an item, in (0, 1]. */
  readonly discordance: number;
  /** Family-wise alpha in (0, 1). */
  readonly alpha: number;
  /** k, the number of criteria (Bonferroni; default 1). */
  readonly comparisons?: number;
  /** The criterion's margin m. */
  readonly margin: number;
  /** The decision method. */
  readonly method: DecisionMethodName;
  /**
   * p2, the expected accuracy of the control arm (the arm with weight -1 in the difference: the baseline under
   * weights (1, -1)), in [0, 1]; default 0.5. Only the methods whose verdict depends on the concordant split
   * (`paired_newcombe`) use it: with D and delta it fixes the 2x2 cells p11 = p2 - (D - delta)/2, p00 = 1 - D - p11.
   */
  readonly controlAccuracy?: number;
}

/** The probability of each verdict at one true difference. */
export interface VerdictProbabilities {
  readonly validated: number;
  readonly failed: number;
}

interface Checked {
  n: number;
  d: number;
  alpha: number;
  k: number;
  margin: number;
  method: DecisionMethodName;
  p2: number;
}

function checkDesign(design: PowerDesign): Checked {
  const n = checkPositiveInteger('n', design.n);
  const d = design.discordance;
  if (typeof d !== 'number' || !Number.isFinite(d) || d <= 0 || d > 1) {
    throw new RlAdvantagesError(`discordance must be a number in (0, 1], got ${describe(d)}`, { code: 'bad_discordance', field: 'discordance' });
  }
  return {
    n,
    d,
    alpha: checkAlpha('alpha', design.alpha),
    k: checkPositiveInteger('comparisons', design.comparisons ?? 1),
    margin: checkFiniteNumber('margin', design.margin),
    method: decisionMethod(design.method).name,
    p2: checkControlAccuracy(design.controlAccuracy ?? ASSUMED_CONTROL_ACCURACY),
  };
}

/**
 * The 2x2 cells of (D, delta, p2) for a method that needs them.
 *
 * @throws {RlAdvantagesError} `bad_control_accuracy` when no 2x2 table has them (p2 outside [(D - delta)/2, 1 - (D + delta)/2]).
 */
function cellsOf(c: Checked, difference: number): FourCells {
  const cells = fourCells(c.d, difference, c.p2);
  if (cells === null) {
    throw new RlAdvantagesError(
      `controlAccuracy ${c.p2} is impossible with discordance ${c.d} and difference ${difference}: it must lie in [${(c.d - difference) / 2}, ${1 - (c.d + difference) / 2}] (the 2x2 cells must be >= 0)`,
      { code: 'bad_control_accuracy', field: 'controlAccuracy' },
    );
  }
  return cells;
}

/** ln C(N, x) + x ln p + (N - x) ln(1 - p), with ln x! from the table. */
function logBinom(lf: Float64Array, N: number, x: number, p: number): number {
  if (p <= 0) return x === 0 ? 0 : -Infinity;
  if (p >= 1) return x === N ? 0 : -Infinity;
  return (lf[N] as number) - (lf[x] as number) - (lf[N - x] as number) + x * Math.log(p) + (N - x) * Math.log1p(-p);
}

/** [lo, hi]: the counts of Binomial(N, p) within sqrt(N ln(2/eps) / 2) of N p (Hoeffding: the rest has mass <= eps). */
function window(N: number, p: number): [number, number] {
  const t = Math.sqrt((N * Math.log(2 / EPS)) / 2);
  return [Math.max(0, Math.floor(N * p - t)), Math.min(N, Math.ceil(N * p + t))];
}

/** P(Binomial(m, q) >= t), exact at the ends. */
function upperTail(m: number, q: number, t: number): number {
  if (t <= 0) return 1;
  if (t > m) return 0;
  return regularizedBeta(q, t, m - t + 1);
}

/**
 * For `paired_exact_binomial` at m discordant pairs: the smallest n10 that validates and the largest that fails
 * (m + 1 and -1 when none). Uses the equivalences of docs/method.md section 5.6: qL > c iff
 * P(Bin(m, c) >= n10) < a/2, qU < c iff P(Bin(m, c) <= n10) < a/2, with a = alpha/(2k).
 */
function exactThresholds(c: Checked, m: number): { validFrom: number; failTo: number } {
  const a = c.alpha / (2 * c.k);
  const [pL, pU] = clopperPearson(m, c.n, a);
  // validated iff qL > cv; failed iff qU < cf (see the docs for the cases of the margin's sign).
  const cv = c.margin < 0 ? (1 + c.margin / pU) / 2 : pL > 0 ? (1 + c.margin / pL) / 2 : Infinity;
  const cf = c.margin > 0 ? (1 + c.margin / pU) / 2 : pL > 0 ? (1 + c.margin / pL) / 2 : -Infinity;
  const validated = (x: number): boolean => (x === 0 ? cv < 0 : cv < 0 || (cv < 1 && upperTail(m, cv, x) < a / 2));
  // P(Bin(m, cf) <= x) = P(Bin(m, 1 - cf) >= m - x).
  const failed = (x: number): boolean => (x === m ? cf > 1 : cf > 1 || (cf > 0 && upperTail(m, 1 - cf, m - x) < a / 2));
  let lo = 0;
  let hi = m + 1; // smallest validating x in [lo, hi]; validated is monotone increasing in x
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (validated(mid)) hi = mid;
    else lo = mid + 1;
  }
  const validFrom = lo;
  lo = -1;
  hi = m; // largest failing x in [lo, hi]; failed is monotone decreasing in x
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (failed(mid)) lo = mid;
    else hi = mid - 1;
  }
  return { validFrom, failTo: lo };
}

function factorials(n: number): Float64Array {
  const lf = new Float64Array(n + 1);
  for (let i = 2; i <= n; i++) lf[i] = logGamma(i + 1);
  return lf;
}

/** The verdict thresholds per m of a 0/1 method: its regions when it has them, else the exact binomial's. */
function thresholdsOf(c: Checked, wantFailed = true): (m: number) => { validFrom: number; failTo: number } {
  const method = decisionMethod(c.method);
  if (method.thresholds === undefined) return (m) => exactThresholds(c, m);
  const t = method.thresholds(c.n, c.alpha, c.k, c.margin);
  return (m) => ({ validFrom: t.validFrom[m] as number, failTo: wantFailed ? (t.failTo[m] as number) : -1 });
}

/** P(validated) and P(failed) at a true difference; with wantFailed false P(failed) is not computed (0). */
function probabilities(c: Checked, difference: number, lf: Float64Array, wantFailed = true): VerdictProbabilities {
  if (decisionMethod(c.method).needsConcordantSplit) {
    return fourCellVerdictProbabilities({ n: c.n, cells: cellsOf(c, difference), alpha: c.alpha, comparisons: c.k, margin: c.margin }, lf);
  }
  const q0 = Math.min(1, Math.max(0, (c.d + difference) / (2 * c.d)));
  const method = decisionMethod(c.method);
  const [m0, m1] = window(c.n, c.d);
  const thresholdsAt = method.binaryOnly ? thresholdsOf(c, wantFailed) : undefined;
  let validated = 0;
  let failed = 0;
  for (let m = m0; m <= m1; m++) {
    const pm = Math.exp(logBinom(lf, c.n, m, c.d));
    if (pm === 0) continue;
    if (thresholdsAt !== undefined) {
      const { validFrom, failTo } = thresholdsAt(m);
      validated += pm * upperTail(m, q0, validFrom);
      failed += pm * upperTail(m, 1 - q0, m - failTo);
      continue;
    }
    const [x0, x1] = window(m, q0);
    for (let x = x0; x <= x1; x++) {
      const p = pm * Math.exp(logBinom(lf, m, x, q0));
      if (p === 0) continue;
      const iv = method.fromCounts({ n10: x, n01: m - x, n: c.n, alpha: c.alpha, comparisons: c.k });
      const v = criterionVerdict({ lower: iv.lower, upper: iv.upper, margin: c.margin });
      if (v === 'validated') validated += p;
      else if (v === 'failed') failed += p;
    }
  }
  return { validated: Math.min(1, validated), failed: Math.min(1, failed) };
}

/**
 * P(validated) and P(failed) of one criterion at a true difference delta, for 0/1 outcomes: the counts
 * (n10, n01) are trinomial with P(+1) = (D + delta)/2, P(-1) = (D - delta)/2, P(0) = 1 - D, and the verdict of
 * each (n10, n01) is the method's. Summed exactly over m = n10 + n01 and n10 in log space, leaving out mass
 * below 2e-13 (docs/method.md section 5.6).
 *
 * @param design - n, D, alpha, k, margin and method.
 * @param difference - delta, with |delta| <= D.
 * @throws {RlAdvantagesError} `bad_integer`, `bad_discordance`, `bad_alpha`, `non_finite`, `unknown_method`, and
 *   `bad_difference` when |delta| > D (no trinomial has it).
 * @example
 * ```ts
 * import { verdictProbabilities } from 'rl-advantages/stats';
 * // The spec at D = 0.2: if GS1 and GRPO are truly equal, Hoeffding validates with probability about 0.023.
 * const p = verdictProbabilities({ n: 1319, discordance: 0.2, alpha: 0.05, margin: -0.05, method: 'paired_hoeffding' }, 0);
 * console.log(p.validated.toFixed(3)); // "0.023"
 * ```
 */
export function verdictProbabilities(design: PowerDesign, difference: number): VerdictProbabilities {
  const c = checkDesign(design);
  const delta = checkFiniteNumber('difference', difference);
  if (Math.abs(delta) > c.d + 1e-12) {
    throw new RlAdvantagesError(`difference ${delta} is larger in size than the discordance ${c.d}: no paired 0/1 outcomes have it`, {
      code: 'bad_difference',
      field: 'difference',
    });
  }
  return probabilities(c, delta, factorials(c.n));
}

/** One row of a power table (`plan --json` `power[]`). */
export interface PowerTableRow {
  readonly method: DecisionMethodName;
  readonly difference: number;
  readonly p_validated: number;
  readonly p_failed: number;
}

/**
 * The power table: for each method and each true difference (default -0.05 to +0.05 in steps of 0.01), P(validated)
 * and P(failed) by {@link verdictProbabilities}. Differences larger in size than D are left out.
 *
 * @throws {RlAdvantagesError} as {@link verdictProbabilities}.
 * @example
 * ```ts
 * import { powerTable } from 'rl-advantages/stats';
 * const rows = powerTable({ n: 200, discordance: 0.2, alpha: 0.05, margin: -0.05 }, ['paired_exact_binomial'], [0, 0.05]);
 * console.log(rows.length); // 2
 * ```
 */
export function powerTable(
  design: Omit<PowerDesign, 'method'>,
  methods: readonly DecisionMethodName[],
  differences: readonly number[] = POWER_DIFFERENCES,
): PowerTableRow[] {
  const rows: PowerTableRow[] = [];
  for (const method of methods) {
    const c = checkDesign({ ...design, method });
    const lf = factorials(c.n);
    for (const difference of differences) {
      if (Math.abs(difference) > c.d + 1e-12) continue;
      // A method that needs the 2x2 cells: a difference no table has with this control accuracy is left out too.
      if (decisionMethod(method).needsConcordantSplit && fourCells(c.d, difference, c.p2) === null) continue;
      const p = probabilities(c, difference, lf);
      rows.push({ method, difference, p_validated: p.validated, p_failed: p.failed });
    }
  }
  return rows;
}

/** The true differences of a power table: -0.05 to +0.05 in steps of 0.01 (exact decimals). */
export const POWER_DIFFERENCES: readonly number[] = Object.freeze([-5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5].map((i) => i / 100));

/**
 * The observed differences (n10 - n01)/n needed for each verdict at m = round(nD) discordant pairs: the smallest
 * that validates and the largest that fails, or null when no count at that m reaches the verdict.
 *
 * @throws {RlAdvantagesError} as {@link verdictProbabilities}.
 * @example
 * ```ts
 * import { observedThresholds } from 'rl-advantages/stats';
 * const t = observedThresholds({ n: 1319, discordance: 0.2, alpha: 0.05, margin: -0.05, method: 'paired_hoeffding' });
 * console.log(t.validatesAt?.toFixed(4)); // "0.0258": 34 / 1319, the first count difference above margin + 0.0748
 * ```
 */
export function observedThresholds(design: PowerDesign): { discordant: number; validatesAt: number | null; failsAt: number | null } {
  const c = checkDesign(design);
  const m = Math.round(c.n * c.d);
  const method = decisionMethod(c.method);
  if (method.needsConcordantSplit) {
    return fourCellObservedThresholds({ n: c.n, cells: cellsOf(c, 0), alpha: c.alpha, comparisons: c.k, margin: c.margin });
  }
  let validatesAt: number | null = null;
  let failsAt: number | null = null;
  if (method.thresholds !== undefined) {
    const { validFrom, failTo } = thresholdsOf(c)(m);
    if (validFrom <= m) validatesAt = (2 * validFrom - m) / c.n;
    if (failTo >= 0) failsAt = (2 * failTo - m) / c.n;
    return { discordant: m, validatesAt, failsAt };
  }
  for (let x = 0; x <= m; x++) {
    const iv = method.fromCounts({ n10: x, n01: m - x, n: c.n, alpha: c.alpha, comparisons: c.k });
    const v = criterionVerdict({ lower: iv.lower, upper: iv.upper, margin: c.margin });
    if (v === 'validated' && validatesAt === null) validatesAt = iv.estimate;
    if (v === 'failed') failsAt = iv.estimate;
  }
  return { discordant: m, validatesAt, failsAt };
}

/** The cap of {@link nForPower}'s search. */
export const POWER_N_CAP = 100000;

/**
 * The n at which P(validated) reaches `target` (default 0.8) at a true difference (default 0), by doubling from 16
 * and then bisection; null when not reached at n = 100000, and at once when the difference is not above the margin
 * (a valid interval then validates with probability <= alpha/k < target whatever n).
 * Power is not exactly monotone in n for discrete counts: the result is the first n the search finds.
 *
 * @throws {RlAdvantagesError} as {@link verdictProbabilities}; `bad_target` for a target outside (0, 1).
 * @example
 * ```ts
 * import { nForPower } from 'rl-advantages/stats';
 * console.log(nForPower({ discordance: 0.2, alpha: 0.05, margin: -0.05, method: 'paired_exact_binomial' })); // 1025
 * ```
 */
export function nForPower(design: Omit<PowerDesign, 'n'>, options: { target?: number; difference?: number } = {}): number | null {
  const target = options.target ?? 0.8;
  if (typeof target !== 'number' || !(target > 0 && target < 1)) {
    throw new RlAdvantagesError(`target must be a number in (0, 1), got ${describe(target)}`, { code: 'bad_target', field: 'target' });
  }
  const difference = options.difference ?? 0;
  const c = checkDesign({ ...design, n: 1 });
  if (difference <= c.margin && target > c.alpha / c.k) return null;
  const power = (n: number): number => {
    const at = checkDesign({ ...design, n });
    return probabilities(at, difference, factorials(n), false).validated;
  };
  let hi = 16;
  while (power(hi) < target) {
    if (hi >= POWER_N_CAP) return null;
    hi = Math.min(POWER_N_CAP, hi * 2);
  }
  let lo = hi === 16 ? 0 : hi / 2; // power(lo) < target (or lo = 0)
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (power(mid) >= target) hi = mid;
    else lo = mid;
  }
  return hi;
}
