// Weighted two-pass statistics of a set of rows, for the normalisation step (docs/method.md section 2.6).
import type { Variance } from './spec.js';

/** Weighted mean of x over `rows`, exactly the common value when every x is equal. */
export function weightedMean(x: Float64Array, w: Float64Array, rows: ArrayLike<number>): number {
  const first = x[rows[0] as number] as number;
  let constant = true;
  let sum = 0;
  let weight = 0;
  for (let k = 0; k < rows.length; k++) {
    const i = rows[k] as number;
    const v = x[i] as number;
    if (v !== first) constant = false;
    sum += (w[i] as number) * v;
    weight += w[i] as number;
  }
  return constant ? first : sum / weight;
}

/** Total weight of `rows`. */
export function totalWeight(w: Float64Array, rows: ArrayLike<number>): number {
  let weight = 0;
  for (let k = 0; k < rows.length; k++) weight += w[rows[k] as number] as number;
  return weight;
}

/** Whether every x over `rows` is equal. */
export function isConstant(x: Float64Array, rows: ArrayLike<number>): boolean {
  const first = x[rows[0] as number] as number;
  for (let k = 1; k < rows.length; k++) if (x[rows[k] as number] !== first) return false;
  return true;
}

/**
 * For each position k of `rows`, the weighted mean of x over the other rows, formed from prefix and suffix
 * sums so that it never touches row k (w_ii = 0 exactly). A constant set gives its value exactly.
 */
export function leaveOneOutMeans(x: Float64Array, w: Float64Array, rows: ArrayLike<number>): Float64Array {
  const n = rows.length;
  const sums = new Float64Array(n);
  const weights = new Float64Array(n);
  let ps = 0;
  let pw = 0;
  for (let k = 0; k < n; k++) {
    const i = rows[k] as number;
    sums[k] = ps;
    weights[k] = pw;
    ps += (w[i] as number) * (x[i] as number);
    pw += w[i] as number;
  }
  let ss = 0;
  let sw = 0;
  for (let k = n - 1; k >= 0; k--) {
    const i = rows[k] as number;
    sums[k] = (sums[k] as number) + ss;
    weights[k] = (weights[k] as number) + sw;
    ss += (w[i] as number) * (x[i] as number);
    sw += w[i] as number;
  }
  const constant = isConstant(x, rows);
  const out = new Float64Array(n);
  for (let k = 0; k < n; k++) out[k] = constant ? (x[rows[0] as number] as number) : (sums[k] as number) / (weights[k] as number);
  return out;
}

/**
 * The weighted variance of x over `rows` around centre(i): the sum of w_i (x_i - centre(i))^2 over the
 * total weight W (biased) or over W, times W / (W - 1) (unbiased, as torch's unbiased masked variance and
 * TRL's nanstd form it). Undefined (returned as undefined) when the unbiased form has W <= 1.
 */
export function weightedVariance(
  x: Float64Array,
  w: Float64Array,
  rows: ArrayLike<number>,
  centre: (i: number) => number,
  variance: Variance,
  countEpsilon = 0,
): number | undefined {
  let weight = 0;
  let squares = 0;
  for (let k = 0; k < rows.length; k++) {
    const i = rows[k] as number;
    const d = (x[i] as number) - centre(i);
    weight += w[i] as number;
    squares += (w[i] as number) * d * d;
  }
  if (variance === 'biased') return weight > 0 ? squares / (weight + countEpsilon) : undefined;
  if (!(weight > 1)) return undefined;
  return (squares / (weight + countEpsilon)) * (weight / (weight - 1));
}
