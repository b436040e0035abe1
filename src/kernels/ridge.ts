// Ridge regression with an unpenalised intercept (docs/method.md section 2.4), as scikit-learn's Ridge(alpha).
import { RlAdvantagesError } from '../errors.js';

/** A fitted ridge: f(z) = intercept + weights . z. */
export interface RidgeFit {
  readonly weights: readonly number[];
  readonly intercept: number;
}

/**
 * Fits y ~ c + Z w minimising |y - c - Z w|^2 + alpha |w|^2 (scikit-learn `Ridge(alpha, fit_intercept=True)`):
 * with the column means zbar and ybar of the rows used, w = (Zc' Zc + alpha I)^-1 Zc' (y - ybar), Zc = Z - zbar,
 * and c = ybar - zbar . w. Solved by Cholesky (the matrix is positive definite for alpha > 0).
 *
 * @param z - row-major [n, d] features.
 * @param rows - the row indices to fit on (n of them).
 * @param y - the target of every row of z (indexed like z's rows).
 * @throws {@link RlAdvantagesError} if alpha is not a finite number > 0 or no row is given.
 * @example
 * ```ts
 * fitRidge(Float64Array.from([0, 1, 2]), 1, Int32Array.from([0, 1, 2]), Float64Array.from([1, 3, 5]), 1e-9);
 * // { weights: [≈2], intercept: ≈1 }
 * ```
 */
export function fitRidge(z: Float64Array, dimension: number, rows: Int32Array, y: Float64Array, alpha: number): RidgeFit {
  if (!(alpha > 0) || !Number.isFinite(alpha)) {
    throw new RlAdvantagesError(`alpha must be a finite number > 0, got ${alpha}`, { code: 'bad_option', field: 'alpha' });
  }
  const n = rows.length;
  if (n < 1) throw new RlAdvantagesError('a ridge needs at least one row', { code: 'bad_option', field: 'rows' });
  const d = dimension;
  const zbar = new Float64Array(d);
  let ybar = 0;
  for (const r of rows) {
    ybar += y[r] as number;
    for (let c = 0; c < d; c++) zbar[c] = (zbar[c] as number) + (z[r * d + c] as number);
  }
  ybar /= n;
  for (let c = 0; c < d; c++) zbar[c] = (zbar[c] as number) / n;
  const a = new Float64Array(d * d);
  const b = new Float64Array(d);
  const centred = new Float64Array(d);
  for (const r of rows) {
    for (let c = 0; c < d; c++) centred[c] = (z[r * d + c] as number) - (zbar[c] as number);
    const yc = (y[r] as number) - ybar;
    for (let p = 0; p < d; p++) {
      const cp = centred[p] as number;
      b[p] = (b[p] as number) + cp * yc;
      for (let q = 0; q <= p; q++) a[p * d + q] = (a[p * d + q] as number) + cp * (centred[q] as number);
    }
  }
  for (let p = 0; p < d; p++) a[p * d + p] = (a[p * d + p] as number) + alpha;
  const w = choleskySolve(a, b, d);
  let intercept = ybar;
  for (let c = 0; c < d; c++) intercept -= (zbar[c] as number) * (w[c] as number);
  return { weights: Array.from(w), intercept };
}

/** Solves A x = b for a symmetric positive definite A whose lower triangle (row-major) is given. */
function choleskySolve(a: Float64Array, b: Float64Array, d: number): Float64Array {
  const l = new Float64Array(d * d);
  for (let i = 0; i < d; i++) {
    for (let j = 0; j <= i; j++) {
      let s = a[i * d + j] as number;
      for (let k = 0; k < j; k++) s -= (l[i * d + k] as number) * (l[j * d + k] as number);
      l[i * d + j] = i === j ? Math.sqrt(s) : s / (l[j * d + j] as number);
    }
  }
  const x = new Float64Array(d);
  for (let i = 0; i < d; i++) {
    let s = b[i] as number;
    for (let k = 0; k < i; k++) s -= (l[i * d + k] as number) * (x[k] as number);
    x[i] = s / (l[i * d + i] as number);
  }
  for (let i = d - 1; i >= 0; i--) {
    let s = x[i] as number;
    for (let k = i + 1; k < d; k++) s -= (l[k * d + i] as number) * (x[k] as number);
    x[i] = s / (l[i * d + i] as number);
  }
  return x;
}

/**
 * f = intercept + weights . z for every row of row-major z.
 *
 * @example
 * ```ts
 * predictRidge({ weights: [2], intercept: 1 }, Float64Array.from([0, 3]), 1); // Float64Array [1, 7]
 * ```
 */
export function predictRidge(fit: RidgeFit, z: Float64Array, dimension: number): Float64Array {
  const rows = z.length / dimension;
  const out = new Float64Array(rows);
  for (let r = 0; r < rows; r++) {
    let f = fit.intercept;
    for (let c = 0; c < dimension; c++) f += (fit.weights[c] as number) * (z[r * dimension + c] as number);
    out[r] = f;
  }
  return out;
}
