// Student's t upper quantile, for the seed-level intervals (docs/method.md section 5.8).
import { betaQuantile } from './beta.js';

/**
 * The t with P(T_df > t) = p for Student's t with df > 0 degrees of freedom (df need not be an integer), p in
 * (0, 1/2]: from P(|T| > t) = I_x(df/2, 1/2) with x = df / (df + t^2) (Abramowitz and Stegun 26.7.1), so
 * x = Beta^{-1}(2p; df/2, 1/2) and t = sqrt(df (1 - x) / x). Exact to the bisection's float64 resolution of x
 * (checked against the closed forms df = 1: tan(pi (1/2 - p)), df = 2: (1 - 2p) / sqrt(2p (1 - p))).
 */
export function studentTUpperQuantile(p: number, df: number): number {
  if (!(p > 0 && p <= 0.5) || !(df > 0)) return NaN;
  if (p === 0.5) return 0;
  const x = betaQuantile(2 * p, df / 2, 0.5);
  return Math.sqrt((df * (1 - x)) / x);
}
