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

// ---------------------------------------------------------------------------------------------------------------
// Refined coverage (docs/method.md section 5.7): the lowest coverage over the true difference delta and the
// discordance D, from a fine grid with local refinement, for per-row miss regions.

/**
 * P(n10 >= from[m]) + P(n10 <= to[m]) under the trinomial (delta, D): for each m = n10 + n01 with
 * Bin(m; n, D) >= 1e-17, the pmf of Bin(m, q), q = (D + delta)/(2D), is walked from its mode outwards until it
 * falls below 1e-17 of the mode (one exp per row, ratios after). Independent of src/stats/unconditional-core.ts.
 *
 * @param {number} n @param {number} delta @param {number} D
 * @param {Int32Array} from per m: the smallest n10 missed from below (m + 1: none)
 * @param {Int32Array} to per m: the largest n10 missed from above (-1: none)
 * @param {Float64Array} lf ln x! for x = 0..n
 * @param {Map<number, Uint8Array>} [rows] rows whose missed cells are not a threshold: a flag per n10 (from/to unused)
 */
export function missProbability(n, delta, D, from, to, lf, rows = undefined) {
  if (D <= 0) return rows?.has(0) ? rows.get(0)[0] : (from[0] <= 0 ? 1 : 0) + (to[0] >= 0 ? 1 : 0);
  const q = Math.min(1, Math.max(0, (D + delta) / (2 * D)));
  let total = 0;
  const rowMiss = (m) => {
    const f = rows?.get(m);
    if (f !== undefined && (q <= 0 || q >= 1)) return f[q <= 0 ? 0 : m];
    if (q <= 0) return (from[m] <= 0 ? 1 : 0) + (to[m] >= 0 ? 1 : 0);
    if (q >= 1) return (from[m] <= m ? 1 : 0) + (to[m] >= m ? 1 : 0);
    const mode = Math.min(m, Math.floor((m + 1) * q));
    const p0 = Math.exp(lf[m] - lf[mode] - lf[m - mode] + mode * Math.log(q) + (m - mode) * Math.log1p(-q));
    const r = q / (1 - q);
    let s = 0;
    const flags = rows?.get(m);
    const add =
      flags === undefined
        ? (b, p) => {
            if (b >= from[m]) s += p;
            if (b <= to[m]) s += p;
          }
        : (b, p) => {
            if (flags[b]) s += p;
          };
    add(mode, p0);
    let p = p0;
    for (let b = mode + 1; b <= m && p > 1e-17 * p0; b++) {
      p *= ((m - b + 1) / b) * r;
      add(b, p);
    }
    p = p0;
    for (let b = mode - 1; b >= 0 && p > 1e-17 * p0; b--) {
      p *= (b + 1) / ((m - b) * r);
      add(b, p);
    }
    return s;
  };
  if (D >= 1) return rowMiss(n);
  const mode = Math.min(n, Math.floor((n + 1) * D));
  const w0 = Math.exp(lf[n] - lf[mode] - lf[n - mode] + mode * Math.log(D) + (n - mode) * Math.log1p(-D));
  const odds = D / (1 - D);
  let w = w0;
  for (let m = mode; m <= n && w > 1e-17; m++) {
    total += w * rowMiss(m);
    w *= ((n - m) / (m + 1)) * odds;
  }
  w = w0;
  for (let m = mode - 1; m >= 0; m--) {
    w *= (m + 1) / ((n - m) * odds);
    if (w <= 1e-17) break;
    total += w * rowMiss(m);
  }
  return total;
}

/** G values of D in [lo, 1] evenly spaced in arcsin(sqrt(D)), both ends included. */
export function arcsineGrid(lo, points) {
  const a = Math.asin(Math.sqrt(lo));
  return Array.from({ length: points }, (_, i) => (i === 0 ? lo : i === points - 1 ? 1 : Math.sin(a + ((Math.PI / 2 - a) * i) / (points - 1)) ** 2));
}

function goldenMin(f, a, b, steps) {
  const g = (Math.sqrt(5) - 1) / 2;
  let x1 = b - g * (b - a);
  let x2 = a + g * (b - a);
  let f1 = f(x1);
  let f2 = f(x2);
  let best = f1 < f2 ? { x: x1, v: f1 } : { x: x2, v: f2 };
  for (let i = 0; i < steps; i++) {
    if (f1 > f2) {
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
    if (f1 < best.v) best = { x: x1, v: f1 };
    if (f2 < best.v) best = { x: x2, v: f2 };
  }
  return best;
}

/**
 * The lowest coverage over D in [|delta|, 1] at one delta: `points` values of D on the arcsine grid, then
 * golden-section refinement (40 steps) between the neighbours of the 3 lowest local minima.
 *
 * @returns {{ coverage: number, D: number }}
 */
export function worstOverD(n, delta, regions, lf, points = 200) {
  const lo = Math.abs(delta);
  if (lo >= 1) return { coverage: 1 - missProbability(n, delta, 1, regions.from, regions.to, lf, regions.rows), D: 1 };
  const grid = arcsineGrid(lo, points);
  const cov = (D) => 1 - missProbability(n, delta, D, regions.from, regions.to, lf, regions.rows);
  const values = grid.map(cov);
  let best = { coverage: Infinity, D: NaN };
  values.forEach((v, i) => {
    if (v < best.coverage) best = { coverage: v, D: grid[i] };
  });
  const minima = values
    .map((v, i) => i)
    .filter((i) => (i === 0 || values[i] <= values[i - 1]) && (i === values.length - 1 || values[i] <= values[i + 1]))
    .sort((a, b) => values[a] - values[b])
    .slice(0, 3);
  for (const i of minima) {
    const r = goldenMin(cov, grid[Math.max(0, i - 1)], grid[Math.min(grid.length - 1, i + 1)], 40);
    if (r.v < best.coverage) best = { coverage: r.v, D: r.x };
  }
  return best;
}

/**
 * Miss regions of an interval given per count: from[m] = the smallest n10 with lower > delta, to[m] = the largest
 * n10 with upper < delta. Needs lower and upper nondecreasing in n10 for each m (checked: throws if not).
 *
 * @param {number} n @param {number} delta
 * @param {(n10: number, n01: number) => { lower: number, upper: number }} interval (cached)
 */
export function regionsFromIntervals(n, delta, interval) {
  const from = new Int32Array(n + 1);
  const to = new Int32Array(n + 1);
  for (let m = 0; m <= n; m++) {
    let f = m + 1;
    let t = -1;
    let prevL = -Infinity;
    let prevU = -Infinity;
    for (let b = 0; b <= m; b++) {
      const iv = interval(b, m - b);
      if (iv.lower < prevL - 1e-12 || iv.upper < prevU - 1e-12) throw new Error(`interval not monotone in n10 at n = ${n}, m = ${m}, n10 = ${b}`);
      prevL = iv.lower;
      prevU = iv.upper;
      if (iv.lower > delta && f > m) f = b;
      if (iv.upper < delta) t = b;
    }
    from[m] = f;
    to[m] = t;
  }
  return { from, to };
}

/**
 * Every count's interval, row by row (m = n10 + n01). In a row where lower and upper are nondecreasing in n10 the
 * miss regions at any delta are thresholds found by binary search; other rows (empirical Bernstein's, where the
 * variance term can outweigh the mean) are flagged cell by cell ({@link regionsAtDelta}).
 */
export function intervalTable(n, interval) {
  const offset = new Int32Array(n + 2);
  for (let m = 0; m <= n; m++) offset[m + 1] = offset[m] + m + 1;
  const lower = new Float64Array(offset[n + 1]);
  const upper = new Float64Array(offset[n + 1]);
  const monotone = new Uint8Array(n + 1).fill(1);
  for (let m = 0; m <= n; m++) {
    for (let b = 0; b <= m; b++) {
      const iv = interval(b, m - b);
      const i = offset[m] + b;
      lower[i] = iv.lower;
      upper[i] = iv.upper;
      if (b > 0 && (iv.lower < lower[i - 1] || iv.upper < upper[i - 1])) monotone[m] = 0;
    }
  }
  return { n, offset, lower, upper, monotone };
}

/** The miss regions at delta: from[m] = the first n10 with lower > delta, to[m] = the last with upper < delta. */
export function regionsAtDelta(table, delta) {
  const { n, offset, lower, upper, monotone } = table;
  const from = new Int32Array(n + 1);
  const to = new Int32Array(n + 1);
  const rows = new Map();
  for (let m = 0; m <= n; m++) {
    const base = offset[m];
    if (!monotone[m]) {
      const flags = new Uint8Array(m + 1);
      for (let b = 0; b <= m; b++) flags[b] = lower[base + b] > delta || upper[base + b] < delta ? 1 : 0;
      rows.set(m, flags);
      continue;
    }
    let lo = 0;
    let hi = m + 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (lower[base + mid] > delta) hi = mid;
      else lo = mid + 1;
    }
    from[m] = lo;
    lo = 0;
    hi = m + 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (upper[base + mid] < delta) lo = mid + 1;
      else hi = mid;
    }
    to[m] = lo - 1;
  }
  return { from, to, rows };
}

/**
 * The lowest coverage over delta in [-1, 1] and D: the delta grid (`step`), the worst over D at each (see
 * {@link worstOverD}), then a sub-grid of 40 deltas within one step of each of the 3 worst grid points.
 *
 * @param {number} n
 * @param {(delta: number) => { from: Int32Array, to: Int32Array }} regionsAt the miss regions at delta
 * @param {{ step: number, points?: number }} o
 * @returns {{ coverage: number, difference: number, discordance: number, evaluations: number }}
 */
export function refinedMinimum(n, regionsAt, o) {
  const lf = logFactorials(n);
  const points = o.points ?? 200;
  const steps = Math.round(2 / o.step);
  const at = (delta) => ({ delta, ...worstOverD(n, delta, regionsAt(delta), lf, points) });
  const grid = [];
  for (let i = 0; i <= steps; i++) grid.push(at(-1 + (2 * i) / steps));
  let evaluations = grid.length;
  const worst = [...grid].sort((a, b) => a.coverage - b.coverage).slice(0, 3);
  let best = worst[0];
  for (const w of worst) {
    for (let j = -20; j <= 20; j++) {
      const delta = w.delta + (j * o.step) / 20;
      if (j === 0 || delta < -1 || delta > 1) continue;
      const r = at(delta);
      evaluations++;
      if (r.coverage < best.coverage) best = r;
    }
  }
  return { coverage: best.coverage, difference: best.delta, discordance: best.D, evaluations };
}
