// The simulation behind validation/seed-decision-coverage.mjs (docs/method.md section 5.8): a population of training
// runs and test items with known parameters, its true expected difference computed here by quadrature, and the
// coverage of seed-level intervals over simulated studies of S seeds x n items. Nothing here comes from src/: the
// intervals under test are passed in.
//
// The model (logit scale). Item i has a difficulty z_i ~ N(0, 1) and an arm interaction w_i ~ N(0, 1); a training
// run (arm a, seed s) has an offset u_as ~ N(0, sigma_u^2), independent across arms and seeds. The run gets item i right
// with probability expit(mu_a + tau z_i + gamma_a w_i + u_as) (gamma_baseline = 0, gamma_treatment = gamma), drawn
// independently per (run, item): the run-by-item noise. The estimand is the expected accuracy difference over runs
// and items: Delta = G(mu_t, sqrt(tau^2 + gamma^2 + sigma_u^2)) - G(mu_b, sqrt(tau^2 + sigma_u^2)), G(mu, s) =
// E[expit(mu + s Z)], Z ~ N(0, 1). A run's accuracy over the item population is A_a(u) = G(mu_a + u, s_item,a); the
// between-seed SD of the difference is sd(A_t(u_t) - A_b(u_b)) = sqrt(Var A_t + Var A_b).

const ZQ = 1.959963984540054; // the 0.975 quantile of N(0, 1)

/** E[f(Z)], Z ~ N(0, 1), by Simpson's rule on [-10, 10] with `points` (odd) nodes; the tails beyond hold < 1e-22. */
export function normalExpectation(f, points = 801) {
  const h = 20 / (points - 1);
  let s = 0;
  for (let j = 0; j < points; j++) {
    const z = -10 + j * h;
    const w = j === 0 || j === points - 1 ? 1 : j % 2 === 1 ? 4 : 2;
    s += w * f(z) * Math.exp(-z * z / 2);
  }
  return (s * h) / 3 / Math.sqrt(2 * Math.PI);
}

const expit = (x) => 1 / (1 + Math.exp(-x));

/** G(mu, s) = E[expit(mu + s Z)]. */
export function populationAccuracy(mu, s) {
  return normalExpectation((z) => expit(mu + s * z));
}

/** The mu with G(mu, s) = p, by bisection (G increases in mu). */
export function solveMu(p, s) {
  let lo = -40;
  let hi = 40;
  for (let i = 0; i < 200 && hi - lo > 1e-13; i++) {
    const mid = (lo + hi) / 2;
    if (populationAccuracy(mid, s) < p) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

/** Var_u of A(u) = G(mu + u, sItem), u ~ N(0, sigmaU^2). */
function runVariance(mu, sItem, sigmaU) {
  if (sigmaU === 0) return 0;
  const a = (z) => normalExpectation((x) => expit(mu + sigmaU * z + sItem * x), 201);
  const m1 = normalExpectation(a, 201);
  const m2 = normalExpectation((z) => a(z) ** 2, 201);
  return Math.max(0, m2 - m1 * m1);
}

/**
 * The population of one cell: mu_b, mu_t and sigma_u such that the baseline's expected accuracy is p0, the
 * treatment's p0 + delta, and the SD of a run's difference is seedSd; and its truth Delta recomputed from them.
 */
export function population({ p0, delta, seedSd, tau, gamma }) {
  const at = (sigmaU) => {
    const sB = Math.sqrt(tau * tau + sigmaU * sigmaU);
    const sT = Math.sqrt(tau * tau + gamma * gamma + sigmaU * sigmaU);
    const muB = solveMu(p0, sB);
    const muT = solveMu(p0 + delta, sT);
    const sd = Math.sqrt(runVariance(muB, tau, sigmaU) + runVariance(muT, Math.sqrt(tau * tau + gamma * gamma), sigmaU));
    return { muB, muT, sB, sT, sd, sigmaU };
  };
  let best = at(0);
  if (seedSd > 0) {
    let lo = 0;
    let hi = 3;
    for (let i = 0; i < 40; i++) {
      const mid = (lo + hi) / 2;
      const r = at(mid);
      if (r.sd < seedSd) lo = mid;
      else hi = mid;
    }
    best = at((lo + hi) / 2);
  }
  const truth = populationAccuracy(best.muT, best.sT) - populationAccuracy(best.muB, best.sB);
  return { mu_baseline: best.muB, mu_treatment: best.muT, sigma_u: best.sigmaU, seed_sd: best.sd, truth, tau, gamma };
}

/**
 * g(x) = E_u[expit(x + u)], u ~ N(0, sigma_u^2), tabulated every 0.001 on [-25, 25] (41-point Simpson each) and read by
 * linear interpolation (error below 1e-7): an item's expected outcome over runs, for the fixed-items truth.
 */
export function runAverage(sigmaU) {
  if (sigmaU === 0) return expit;
  const lo = -25;
  const step = 0.001;
  const table = new Float64Array(50001);
  for (let j = 0; j < table.length; j++) table[j] = normalExpectation((z) => expit(lo + j * step + sigmaU * z), 41);
  return (x) => {
    const t = (x - lo) / step;
    if (t <= 0) return table[0];
    if (t >= table.length - 1) return table[table.length - 1];
    const j = Math.floor(t);
    return table[j] + (t - j) * (table[j + 1] - table[j]);
  };
}

/**
 * Delta_I of one simulated study: the expected difference over runs for its own n items,
 * mean_i [g(mu_t + tau z_i + gamma w_i) - g(mu_b + tau z_i)] (docs/method.md section 5.8).
 */
export function fixedItemsTruth(rows, pop, g) {
  const { z, w } = rows.items;
  let sum = 0;
  for (let i = 0; i < z.length; i++) sum += g(pop.mu_treatment + z[i] + w[i]) - g(pop.mu_baseline + z[i]);
  return sum / z.length;
}

/** A standard normal from two uniforms (Box-Muller, one of the pair). */
function normal(rng) {
  let u = rng();
  while (u <= 0) u = rng();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rng());
}

/** One simulated study: S rows of n paired differences d_si = y_t,si - y_b,si. */
export function simulateStudy({ S, n, pop, rng }) {
  const z = new Float64Array(n);
  const w = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    z[i] = pop.tau * normal(rng);
    w[i] = pop.gamma * normal(rng);
  }
  const rows = [];
  for (let s = 0; s < S; s++) {
    const uT = pop.mu_treatment + pop.sigma_u * normal(rng);
    const uB = pop.mu_baseline + pop.sigma_u * normal(rng);
    const d = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      const yT = rng() < 1 / (1 + Math.exp(-(uT + z[i] + w[i]))) ? 1 : 0;
      const yB = rng() < 1 / (1 + Math.exp(-(uB + z[i]))) ? 1 : 0;
      d[i] = yT - yB;
    }
    rows.push(d);
  }
  rows.items = { z, w };
  return rows;
}

/** The naive interval: all S n differences pooled as if independent, mean +- z sd / sqrt(S n). */
export function pooledInterval(rows) {
  let sum = 0;
  let sq = 0;
  let N = 0;
  for (const row of rows) {
    for (const v of row) {
      sum += v;
      sq += v * v;
    }
    N += row.length;
  }
  const mean = sum / N;
  const sd = Math.sqrt(Math.max(0, (sq - N * mean * mean) / (N - 1)));
  return { lower: mean - (ZQ * sd) / Math.sqrt(N), upper: mean + (ZQ * sd) / Math.sqrt(N) };
}

/** One seed alone (the first row), mean +- z sd / sqrt(n): what a one-seed paired decision's interval is about. */
export function singleSeedInterval(rows) {
  return pooledInterval([rows[0]]);
}

/**
 * The coverage of each interval over `replicates` simulated studies of one cell: `intervals(rows)` returns
 * { name: { lower, upper } }. Returns per name { covered, coverage, mc_error, mean_width }; with `fixedItems`, also the
 * coverage of each study's own Delta_I (coverage_fixed_items, mc_error_fixed_items).
 */
export function cellCoverage({ S, n, pop, rng, replicates, intervals, fixedItems = false }) {
  const g = fixedItems ? runAverage(pop.sigma_u) : undefined;
  const tally = {};
  for (let r = 0; r < replicates; r++) {
    const rows = simulateStudy({ S, n, pop, rng });
    const truthI = fixedItems ? fixedItemsTruth(rows, pop, g) : undefined;
    for (const [name, iv] of Object.entries(intervals(rows))) {
      const t = (tally[name] ??= { covered: 0, coveredFixed: 0, width: 0 });
      if (iv.lower <= pop.truth && pop.truth <= iv.upper) t.covered++;
      if (fixedItems && iv.lower <= truthI && truthI <= iv.upper) t.coveredFixed++;
      t.width += iv.upper - iv.lower;
    }
  }
  const out = {};
  for (const [name, t] of Object.entries(tally)) {
    const c = t.covered / replicates;
    const f = t.coveredFixed / replicates;
    out[name] = {
      covered: t.covered,
      coverage: c,
      mc_error: Math.sqrt((c * (1 - c)) / replicates),
      mean_width: t.width / replicates,
      ...(fixedItems ? { coverage_fixed_items: f, mc_error_fixed_items: Math.sqrt((f * (1 - f)) / replicates) } : {}),
    };
  }
  return out;
}
