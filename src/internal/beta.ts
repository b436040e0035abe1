// The regularized incomplete beta function and its inverse, for Clopper-Pearson limits and binomial tails
// (docs/method.md sections 5.4 and 5.6). Checked against exact rational binomial sums (test/fixtures/beta_reference.py).

const LANCZOS = [
  0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
  12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
];

/** ln Gamma(x) for x > 0 (Lanczos, g = 7, n = 9; relative error about 1e-15). */
export function logGamma(x: number): number {
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  const z = x - 1;
  let s = LANCZOS[0] as number;
  for (let i = 1; i < 9; i++) s += (LANCZOS[i] as number) / (z + i);
  const t = z + 7.5;
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(s);
}

/** ln B(a, b) = ln Gamma(a) + ln Gamma(b) - ln Gamma(a + b). */
export function logBeta(a: number, b: number): number {
  return logGamma(a) + logGamma(b) - logGamma(a + b);
}

/** Continued fraction of I_x(a, b) (modified Lentz), valid for x < (a + 1) / (a + b + 2). */
function betaFraction(x: number, a: number, b: number): number {
  const tiny = 1e-300;
  let c = 1;
  let d = 1 - ((a + b) * x) / (a + 1);
  if (Math.abs(d) < tiny) d = tiny;
  d = 1 / d;
  let h = d;
  for (let m = 1; m <= 10000; m++) {
    const m2 = 2 * m;
    let aa = (m * (b - m) * x) / ((a + m2 - 1) * (a + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    h *= d * c;
    aa = (-(a + m) * (a + b + m) * x) / ((a + m2) * (a + m2 + 1));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const delta = d * c;
    h *= delta;
    if (Math.abs(delta - 1) < 1e-16) break;
  }
  return h;
}

/**
 * I_x(a, b), the regularized incomplete beta function, for a, b > 0 and x in [0, 1]. For integers,
 * I_p(k, n - k + 1) = P(Bin(n, p) >= k).
 */
export function regularizedBeta(x: number, a: number, b: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const front = Math.exp(a * Math.log(x) + b * Math.log1p(-x) - logBeta(a, b));
  if (x < (a + 1) / (a + b + 2)) return (front * betaFraction(x, a, b)) / a;
  return 1 - (front * betaFraction(1 - x, b, a)) / b;
}

/**
 * The p-quantile of Beta(a, b): the x with I_x(a, b) = p, by bisection to the float64 resolution of x (I is
 * increasing in x, so bisection cannot fail; 1100 halvings at most reach every float64 in [0, 1]).
 */
export function betaQuantile(p: number, a: number, b: number): number {
  if (p <= 0) return 0;
  if (p >= 1) return 1;
  let lo = 0;
  let hi = 1;
  for (let i = 0; i < 1100; i++) {
    const mid = lo + (hi - lo) / 2;
    if (mid === lo || mid === hi) break;
    if (regularizedBeta(mid, a, b) < p) lo = mid;
    else hi = mid;
  }
  return lo + (hi - lo) / 2;
}

/**
 * The two-sided Clopper-Pearson interval of a binomial proportion at confidence 1 - alpha (alpha/2 per tail):
 * lower = Beta^{-1}(alpha/2; x, n - x + 1) (0 when x = 0), upper = Beta^{-1}(1 - alpha/2; x + 1, n - x) (1 when
 * x = n). Every limit is exact: P(p < lower) <= alpha/2 and P(p > upper) <= alpha/2 for every p.
 */
export function clopperPearson(x: number, n: number, alpha: number): [number, number] {
  if (n === 0) return [0, 1];
  const lower = x === 0 ? 0 : betaQuantile(alpha / 2, x, n - x + 1);
  const upper = x === n ? 1 : betaQuantile(1 - alpha / 2, x + 1, n - x);
  return [lower, upper];
}
