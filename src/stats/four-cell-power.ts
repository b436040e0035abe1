// Power of a decision method whose verdict depends on the whole 2x2 table (paired_newcombe), by exact enumeration
// over the 4-cell multinomial as nested binomials (docs/method.md section 5.6).
import { RlAdvantagesError } from '../errors.js';
import { normalUpperQuantile } from '../internal/normal.js';
import { describe } from '../internal/validate.js';
import { newcombeEnds, wilsonInterval } from './newcombe.js';

/** The expected accuracy of the control arm assumed when none is given (docs/method.md section 5.6). */
export const ASSUMED_CONTROL_ACCURACY = 0.5;

/** Cells whose probability is below this are left out of the sums (docs/method.md section 5.6). */
const TINY = 1e-18;

/** The cell probabilities of a 2x2 paired table from (D, delta, p2). */
export interface FourCells {
  /** P(both outcomes 1). */
  readonly bothRight: number;
  /** P(treatment 1, control 0) = (D + delta) / 2. */
  readonly treatmentOnly: number;
  /** P(treatment 0, control 1) = (D - delta) / 2. */
  readonly controlOnly: number;
  /** P(both outcomes 0). */
  readonly bothWrong: number;
}

/**
 * The 2x2 cell probabilities with discordance D, true difference delta and control accuracy p2:
 * p10 = (D + delta)/2, p01 = (D - delta)/2, p11 = p2 - p01, p00 = 1 - D - p11; null when one is negative (beyond
 * 1e-12), i.e. no 2x2 table has (D, delta, p2).
 */
export function fourCells(discordance: number, difference: number, controlAccuracy: number): FourCells | null {
  const treatmentOnly = (discordance + difference) / 2;
  const controlOnly = (discordance - difference) / 2;
  const bothRight = controlAccuracy - controlOnly;
  const bothWrong = 1 - discordance - bothRight;
  if (treatmentOnly < -1e-12 || controlOnly < -1e-12 || bothRight < -1e-12 || bothWrong < -1e-12) return null;
  return {
    bothRight: Math.max(0, bothRight),
    treatmentOnly: Math.max(0, treatmentOnly),
    controlOnly: Math.max(0, controlOnly),
    bothWrong: Math.max(0, bothWrong),
  };
}

/**
 * The control accuracy checked: a number in [0, 1].
 *
 * @throws {RlAdvantagesError} `bad_control_accuracy`.
 */
export function checkControlAccuracy(value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > 1) {
    throw new RlAdvantagesError(`controlAccuracy must be a number in [0, 1], got ${describe(value)}`, { code: 'bad_control_accuracy', field: 'controlAccuracy' });
  }
  return value;
}

/** ln Bin(x; N, p) with ln x! from the table lf. */
function logBinomial(lf: Float64Array, N: number, x: number, p: number): number {
  if (p <= 0) return x === 0 ? 0 : -Infinity;
  if (p >= 1) return x === N ? 0 : -Infinity;
  return (lf[N] as number) - (lf[x] as number) - (lf[N - x] as number) + x * Math.log(p) + (N - x) * Math.log1p(-p);
}

/** Bin(x; N, p) for x = 0..N, from the mode outwards until below `floor` (the rest 0), and the kept range. */
function binomialRow(lf: Float64Array, N: number, p: number, floor: number, into: Float64Array): [number, number] {
  const mode = Math.min(N, Math.max(0, Math.floor((N + 1) * p)));
  into.fill(0, 0, N + 1);
  let lo = mode;
  let hi = mode;
  into[mode] = Math.exp(logBinomial(lf, N, mode, p));
  for (let x = mode - 1; x >= 0; x--) {
    const v = Math.exp(logBinomial(lf, N, x, p));
    if (v < floor) break;
    into[x] = v;
    lo = x;
  }
  for (let x = mode + 1; x <= N; x++) {
    const v = Math.exp(logBinomial(lf, N, x, p));
    if (v < floor) break;
    into[x] = v;
    hi = x;
  }
  return [lo, hi];
}

/** The design of {@link fourCellVerdictProbabilities}: n items, the cells, alpha, k and the margin. */
export interface FourCellDesign {
  readonly n: number;
  readonly cells: FourCells;
  readonly alpha: number;
  readonly comparisons: number;
  readonly margin: number;
}

/** Verdict thresholds in b per (m, a), filled as needed: validated iff b >= validFrom, failed iff b <= failTo. */
interface ThresholdCache {
  readonly key: string;
  readonly validFrom: Int32Array;
  readonly failTo: Int32Array;
}
let cache: ThresholdCache | undefined;

function thresholdCache(n: number, alpha: number, k: number, margin: number): ThresholdCache {
  const key = `${n}/${alpha}/${k}/${margin}`;
  if (cache?.key !== key) {
    const size = (n + 1) * (n + 1);
    cache = { key, validFrom: new Int32Array(size).fill(-2), failTo: new Int32Array(size).fill(-2) };
  }
  return cache;
}

/**
 * For a = n11 and m = b + c fixed, the smallest b whose interval validates (lower > margin; m + 1 when none) and
 * the largest that fails (upper < margin; -1 when none), by bisection: both ends increase with b (checked for every
 * table up to n = 100 and on samples at n = 1319, test/stats/newcombe.test.ts).
 */
function thresholdsAt(n: number, m: number, a: number, margin: number, wilson: readonly (readonly [number, number])[], t: ThresholdCache): void {
  const i = m * (n + 1) + a;
  if ((t.validFrom[i] as number) !== -2) return;
  const ends = (b: number): [number, number] => newcombeEnds(a, b, m - b, n, wilson[a + b] as [number, number], wilson[a + m - b] as [number, number]);
  let lo = 0;
  let hi = m + 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (ends(mid)[0] > margin) hi = mid;
    else lo = mid + 1;
  }
  t.validFrom[i] = lo;
  lo = -1;
  hi = m;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (ends(mid)[1] < margin) lo = mid;
    else hi = mid - 1;
  }
  t.failTo[i] = lo;
}

/**
 * P(validated) and P(failed) of `paired_newcombe` under a 2x2 table of cell probabilities: the counts
 * (a, b, c, d) are multinomial, summed as nested binomials m = b + c ~ Bin(n, D), a | m ~ Bin(n - m, p11 / (1 - D)),
 * b | m ~ Bin(m, p10 / D). For fixed (m, a) the verdict is a threshold in b (validated iff b >= validFrom, failed
 * iff b <= failTo: both ends increase with b), so each (m, a) adds one binomial tail of b. The binomials of m and a
 * are walked from their modes outwards while the weight is >= 1e-18 (the mass left out is below 1e-12 for
 * n <= 100000). The thresholds are cached per (n, alpha, k, margin). `lf` holds ln x! for x = 0..n.
 */
export function fourCellVerdictProbabilities(design: FourCellDesign, lf: Float64Array): { validated: number; failed: number } {
  const { n, cells, margin } = design;
  const D = cells.treatmentOnly + cells.controlOnly;
  const q = D > 0 ? cells.treatmentOnly / D : 0.5;
  const r = D < 1 ? cells.bothRight / (1 - D) : 0.5;
  const z = normalUpperQuantile(design.alpha / (2 * design.comparisons));
  const t = thresholdCache(n, design.alpha, design.comparisons, margin);
  const wilson: [number, number][] = [];
  for (let x = 0; x <= n; x++) wilson.push(wilsonInterval(x, n, z));
  const pm = new Float64Array(n + 1);
  const pb = new Float64Array(n + 1);
  const pa = new Float64Array(n + 1);
  const atLeast = new Float64Array(n + 2); // atLeast[b] = P(Bin(m, q) >= b)
  const [m0, m1] = binomialRow(lf, n, Math.min(1, Math.max(0, D)), TINY, pm);
  let validated = 0;
  let failed = 0;
  for (let m = m0; m <= m1; m++) {
    const wm = pm[m] as number;
    binomialRow(lf, m, q, 0, pb);
    atLeast[m + 1] = 0;
    for (let b = m; b >= 0; b--) atLeast[b] = (atLeast[b + 1] as number) + (pb[b] as number);
    const [a0, a1] = binomialRow(lf, n - m, r, TINY / wm, pa);
    for (let a = a0; a <= a1; a++) {
      const wa = wm * (pa[a] as number);
      if (wa < TINY) continue;
      thresholdsAt(n, m, a, margin, wilson, t);
      const i = m * (n + 1) + a;
      const from = t.validFrom[i] as number;
      const to = t.failTo[i] as number;
      validated += wa * (atLeast[from] as number);
      if (to >= 0) failed += wa * Math.max(0, (atLeast[0] as number) - (atLeast[to + 1] as number));
    }
  }
  return { validated: Math.min(1, validated), failed: Math.min(1, failed) };
}

/**
 * For `paired_newcombe`, the observed differences (b - c)/n needed for each verdict at m = round(nD) discordant
 * pairs and a = round((n - m) p11 / (1 - D)) both-right items (the expected split at a true difference of 0): the
 * smallest that validates and the largest that fails, or null.
 */
export function fourCellObservedThresholds(design: FourCellDesign): { discordant: number; validatesAt: number | null; failsAt: number | null } {
  const { n, cells, margin } = design;
  const D = cells.treatmentOnly + cells.controlOnly;
  const m = Math.round(n * D);
  const a = Math.min(n - m, Math.round(D < 1 ? ((n - m) * cells.bothRight) / (1 - D) : 0));
  const z = normalUpperQuantile(design.alpha / (2 * design.comparisons));
  let validatesAt: number | null = null;
  let failsAt: number | null = null;
  for (let b = 0; b <= m; b++) {
    const [lower, upper] = newcombeEnds(a, b, m - b, n, wilsonInterval(a + b, n, z), wilsonInterval(a + m - b, n, z));
    if (lower > margin && validatesAt === null) validatesAt = (2 * b - m) / n;
    if (upper < margin) failsAt = (2 * b - m) / n;
  }
  return { discordant: m, validatesAt, failsAt };
}
