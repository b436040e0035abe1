// The probability machinery of the exact unconditional paired test (docs/method.md section 5.4.1): the
// probability of a score region under the trinomial, and its supremum over the nuisance parameter.
import { logGamma, regularizedBeta } from '../internal/beta.js';

/** Row weights Bin(m; n, D) below this are left out (each row's mass; the total left out is below 1e-15). */
const ROW_CUTOFF = 1e-18;
/** The tail recurrence is restarted exactly (regularized beta) at least every this many rows. */
const RESTART = 32;

const factorialCache = new Map<number, Float64Array>();

/** ln x! for x = 0..n (cached per n). */
export function logFactorials(n: number): Float64Array {
  let lf = factorialCache.get(n);
  if (lf === undefined) {
    lf = new Float64Array(n + 1);
    for (let i = 2; i <= n; i++) lf[i] = logGamma(i + 1);
    if (factorialCache.size > 16) factorialCache.clear();
    factorialCache.set(n, lf);
  }
  return lf;
}

/** ln Bin(x; N, p) for 0 < p < 1. */
function logPmf(lf: Float64Array, N: number, x: number, p: number): number {
  return (lf[N] as number) - (lf[x] as number) - (lf[N - x] as number) + x * Math.log(p) + (N - x) * Math.log1p(-p);
}

/**
 * A region of the (n10, n01) lattice given row by row: for m = n10 + n01 discordant pairs it holds the cells with
 * n10 >= from[m] (from[m] = m + 1: none). A score region {Z >= z} has this form because Z increases in n10 for a
 * fixed m (docs/method.md section 5.4.1).
 */
export type RowRegion = Int32Array;

/** Tail state of one row: T = P(Bin(m, q) >= t), f = P(Bin(m, q) = t - 1). */
interface Tail {
  m: number;
  t: number;
  T: number;
  f: number;
}

function exactTail(lf: Float64Array, m: number, t: number, q: number): Tail {
  if (t <= 0) return { m, t, T: 1, f: 0 };
  if (t > m) return { m, t, T: 0, f: t === m + 1 ? Math.exp(m * Math.log(q)) : 0 };
  return { m, t, T: regularizedBeta(q, t, m - t + 1), f: Math.exp(logPmf(lf, m, t - 1, q)) };
}

/** Moves the row's threshold to t by steps of 1 (T and f follow); false when a step leaves the recurrence's range. */
function shiftThreshold(s: Tail, t: number, r: number): boolean {
  while (s.t < t) {
    if (s.t < 1 || s.t > s.m) return false;
    const pmf = (s.f * (s.m - s.t + 1) * r) / s.t; // P(B = t)
    s.T -= pmf;
    s.f = pmf;
    s.t += 1;
  }
  while (s.t > t) {
    if (s.t < 2 || s.t > s.m + 1) return false;
    s.T += s.f;
    s.f = (s.f * (s.t - 1)) / ((s.m - s.t + 2) * r); // P(B = t - 2)
    s.t -= 1;
  }
  return true;
}

/** The next row's tail (m +- 1) at threshold t from the current one, or exactly when out of range. */
function nextRow(lf: Float64Array, s: Tail, step: 1 | -1, t: number, q: number, r: number, exact: boolean): Tail {
  const m = s.m + step;
  const usable = !exact && s.f > 0 && s.t >= 1 && s.t <= Math.min(s.m, m) && Math.abs(t - s.t) <= 4;
  if (!usable) return exactTail(lf, m, t, q);
  const next: Tail = { m, t: s.t, T: s.T, f: s.f };
  if (step === 1) {
    // P(Bin(m + 1) >= t) = P(Bin(m) >= t) + q P(Bin(m) = t - 1).
    next.T = s.T + q * s.f;
    next.f = (s.f * (s.m + 1) * (1 - q)) / (s.m + 2 - s.t);
  } else {
    next.f = (s.f * (s.m - s.t + 1)) / (s.m * (1 - q));
    next.T = s.T - q * next.f;
  }
  if (!shiftThreshold(next, t, r) || !(next.f > 0)) return exactTail(lf, m, t, q);
  next.T = Math.min(1, Math.max(0, next.T));
  return next;
}

/**
 * P(region) when n10, n01 are trinomial with P(d = +1) = (D + delta0) / 2 and P(d = -1) = (D - delta0) / 2:
 * sum over m of Bin(m; n, D) P(Bin(m, q) >= from[m]), q = (D + delta0) / (2D). Rows are walked from the mode of
 * Bin(n, D) outwards with the recurrences P(Bin(m + 1, q) >= t) = P(Bin(m, q) >= t) + q P(Bin(m, q) = t - 1)
 * and P(Bin(m, q) >= t + 1) = P(Bin(m, q) >= t) - P(Bin(m, q) = t), restarted exactly every 32 rows; rows of
 * weight below 1e-18 are left out.
 */
export function regionProbability(n: number, delta0: number, D: number, from: RowRegion, lf = logFactorials(n)): number {
  if (D <= 0) return (from[0] as number) <= 0 ? 1 : 0;
  const q = Math.min(1, Math.max(0, (D + delta0) / (2 * D)));
  if (D >= 1) return exactTail(lf, n, from[n] as number, q).T;
  const inRow = (m: number): number => {
    const t = from[m] as number;
    if (q <= 0) return t <= 0 ? 1 : 0;
    if (q >= 1) return t <= m ? 1 : 0;
    return NaN;
  };
  const mode = Math.min(n, Math.floor((n + 1) * D));
  const w0 = Math.exp(logPmf(lf, n, mode, D));
  const odds = D / (1 - D);
  const r = q / (1 - q);
  let total = 0;
  for (const step of [1, -1] as const) {
    let w = w0;
    let m = mode;
    let s: Tail | undefined;
    let rows = 0;
    if (step === -1) {
      if (mode === 0) break;
      w = (w0 * mode) / ((n - mode + 1) * odds);
      m = mode - 1;
    }
    while (m >= 0 && m <= n && w >= ROW_CUTOFF) {
      const fixed = inRow(m);
      if (!Number.isNaN(fixed)) total += w * fixed;
      else {
        const t = from[m] as number;
        s = s === undefined ? exactTail(lf, m, t, q) : nextRow(lf, s, step, t, q, r, rows % RESTART === 0);
        total += w * s.T;
      }
      rows += 1;
      if (step === 1) w = (w * (n - m) * odds) / (m + 1);
      else w = (w * m) / ((n - m + 1) * odds);
      m += step;
    }
  }
  return Math.min(1, total);
}

/**
 * The nuisance grid: G points on D in [|delta0|, 1], both ends included, evenly spaced in arcsin(sqrt(D)) (the
 * scale on which Bin(n, D) moves by equal steps: the grid is dense near D = 0, where the probability of a region
 * changes fastest).
 */
export function nuisanceGrid(delta0: number, points: number): Float64Array {
  const lo = Math.asin(Math.sqrt(Math.abs(delta0)));
  const hi = Math.PI / 2;
  const g = new Float64Array(points);
  for (let i = 0; i < points; i++) {
    const s = Math.sin(lo + ((hi - lo) * i) / (points - 1));
    g[i] = i === 0 ? Math.abs(delta0) : i === points - 1 ? 1 : Math.min(1, Math.max(Math.abs(delta0), s * s));
  }
  return g;
}

/** The grid the method uses at n pairs: 200 points (docs/method.md section 5.4.1 measures it against 20000). */
export function methodGridPoints(n: number): number {
  return n > 0 ? 200 : 200;
}

/** Golden-section maximisation of f on [a, b] (24 steps: the bracket shrinks by 0.618^24 ~ 1e-5). */
function goldenMax(f: (x: number) => number, a: number, b: number): number {
  const g = (Math.sqrt(5) - 1) / 2;
  let x1 = b - g * (b - a);
  let x2 = a + g * (b - a);
  let f1 = f(x1);
  let f2 = f(x2);
  let best = Math.max(f1, f2);
  for (let i = 0; i < 24; i++) {
    if (f1 < f2) {
      a = x1;
      x1 = x2;
      f1 = f2;
      x2 = a + g * (b - a);
      f2 = f(x2);
    } else {
      b = x2;
      x2 = x1;
      f2 = f1;
      x1 = b - g * (b - a);
      f1 = f(x1);
    }
    best = Math.max(best, f1, f2);
  }
  return best;
}

const lastArgmax = { n: -1, delta0: NaN, D: NaN };

/**
 * sup over the nuisance D of P(region): the maximum over the grid, then golden-section refinement between the
 * neighbours of the `refine` highest local maxima of the grid. With `stopAbove`, returns as soon as a value above
 * it is seen (the caller only needs to know that the supremum exceeds it).
 */
export function supremum(
  n: number,
  delta0: number,
  from: RowRegion,
  options: { points: number; refine?: number; stopAbove?: number },
): number {
  const lf = logFactorials(n);
  const grid = nuisanceGrid(delta0, options.points);
  const stop = options.stopAbove ?? Infinity;
  // The last maximiser often exceeds the level again: try it first.
  if (stop < Infinity && lastArgmax.delta0 === delta0 && lastArgmax.n === n) {
    const v = regionProbability(n, delta0, lastArgmax.D, from, lf);
    if (v > stop) return v;
  }
  const values = new Float64Array(grid.length);
  let best = 0;
  for (let i = 0; i < grid.length; i++) {
    const v = regionProbability(n, delta0, grid[i] as number, from, lf);
    values[i] = v;
    if (v > best) best = v;
    if (best > stop) {
      Object.assign(lastArgmax, { n, delta0, D: grid[i] as number });
      return best;
    }
  }
  const peaks: number[] = [];
  for (let i = 0; i < grid.length; i++) {
    const v = values[i] as number;
    if ((i === 0 || v >= (values[i - 1] as number)) && (i === grid.length - 1 || v >= (values[i + 1] as number))) peaks.push(i);
  }
  peaks.sort((a, b) => (values[b] as number) - (values[a] as number));
  for (const i of peaks.slice(0, options.refine ?? 3)) {
    const a = grid[Math.max(0, i - 1)] as number;
    const b = grid[Math.min(grid.length - 1, i + 1)] as number;
    best = Math.max(best, goldenMax((D) => regionProbability(n, delta0, D, from, lf), a, b));
    if (best > stop) return best;
  }
  return best;
}
