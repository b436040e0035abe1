// Exact coverage of a paired-difference interval for 0/1 outcomes (docs/method.md section 5.5): no simulation.
// Pure functions; validation/decision-coverage.mjs runs them on the built library, test/validation a small version.

/** ln x! for x = 0..n. */
export function logFactorials(n) {
  const lf = new Float64Array(n + 1);
  for (let i = 2; i <= n; i++) lf[i] = lf[i - 1] + Math.log(i);
  return lf;
}

/** Counts of Binomial(N, p) within sqrt(N ln(2/eps)/2) of Np (Hoeffding: the mass outside is <= eps); all when full. */
function range(N, p, eps, full) {
  if (full) return [0, N];
  const t = Math.sqrt((N * Math.log(2 / eps)) / 2);
  return [Math.max(0, Math.floor(N * p - t)), Math.min(N, Math.ceil(N * p + t))];
}

/**
 * Coverage of `interval(n10, n01)` for the true difference delta when (n10, n01, rest) is trinomial with
 * P(+1) = (D + delta)/2, P(-1) = (D - delta)/2, P(0) = 1 - D: the sum of the probability of every (n10, n01) whose
 * interval holds delta, and the expected width. Enumerates every cell when `full` (n up to a few hundred), else the
 * cells within the Hoeffding windows (mass left out <= 2 eps, reported as `omitted_mass_bound`).
 *
 * @param {{ n: number, discordance: number, difference: number, interval: (n10: number, n01: number) => { lower: number, upper: number }, full?: boolean, eps?: number }} o
 * @returns {{ coverage: number, mean_width: number, mass: number, omitted_mass_bound: number }}
 */
export function exactCoverage(o) {
  const { n, discordance: D, difference: delta, interval } = o;
  const full = o.full ?? true;
  const eps = o.eps ?? 1e-13;
  const lf = logFactorials(n);
  const q0 = (D + delta) / (2 * D);
  const logOr = (count, p) => (count === 0 ? 0 : p <= 0 ? -Infinity : count * Math.log(p));
  let coverage = 0;
  let width = 0;
  let mass = 0;
  const [m0, m1] = range(n, D, eps, full);
  for (let m = m0; m <= m1; m++) {
    const logPm = lf[n] - lf[m] - lf[n - m] + logOr(m, D) + logOr(n - m, 1 - D);
    if (logPm === -Infinity) continue;
    const [x0, x1] = range(m, q0, eps, full);
    for (let x = x0; x <= x1; x++) {
      const p = Math.exp(logPm + lf[m] - lf[x] - lf[m - x] + logOr(x, q0) + logOr(m - x, 1 - q0));
      if (p === 0) continue;
      const iv = interval(x, m - x);
      mass += p;
      width += p * (iv.upper - iv.lower);
      if (iv.lower <= delta && delta <= iv.upper) coverage += p;
    }
  }
  return { coverage, mean_width: width, mass, omitted_mass_bound: full ? 0 : 2 * eps };
}

/** An interval function of (n10, n01) that computes each cell once. */
export function cached(fn) {
  const memo = new Map();
  return (a, b) => {
    const key = a * 1e7 + b;
    let v = memo.get(key);
    if (v === undefined) {
      v = fn(a, b);
      memo.set(key, v);
    }
    return v;
  };
}
