// The populations of validation/seed-robustness.mjs (docs/method.md section 5.8, Robustness): run laws off the
// normal model (skewed, collapsing), their truths by quadrature, and simulated studies. Nothing here comes from src/.
import { normalExpectation, population, populationAccuracy, solveMu } from './seed-decision-coverage-core.mjs';

/** The margin, and the truth of every cell (the true difference is set at the margin). */
export const MARGIN = -0.05;
/** The items' difficulty SD on the logit scale. */
export const TAU = 1.5;
/** A collapsed run's loss of population accuracy. */
export const DROP = 0.14;
const expit = (x) => 1 / (1 + Math.exp(-x));

function normal(rng) {
  let u = rng();
  while (u <= 0) u = rng();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rng());
}

/** The mu with f(mu) = target for an increasing f, by bisection. */
function solve(f, target) {
  let lo = -40;
  let hi = 40;
  for (let i = 0; i < 100 && hi - lo > 1e-12; i++) {
    const mid = (lo + hi) / 2;
    if (f(mid) < target) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

const EXP_NODES = Array.from({ length: 400 }, (_, j) => -Math.log(1 - (j + 0.5) / 400));

/** The treatment's population accuracy E_u[G(mu + u, .)] under a run law, and the law's sampler. */
export function runLaw(law, sigmaU, sT0) {
  const sTu = Math.sqrt(sT0 * sT0 + sigmaU * sigmaU);
  if (law === 'normal') return { accuracy: (mu) => populationAccuracy(mu, sTu), draw: (rng) => sigmaU * normal(rng) };
  if (law === 'skewed') {
    return {
      accuracy: (mu) => EXP_NODES.reduce((a, e) => a + normalExpectation((z) => expit(mu + sigmaU * (e - 1) + sT0 * z), 201), 0) / EXP_NODES.length,
      draw: (rng) => sigmaU * (-Math.log(1 - rng()) - 1),
    };
  }
  const pc = law === 'collapse_0.1' ? 0.1 : 0.2;
  // The shift that takes a run's population accuracy down by DROP, at the normal law's mu for the target accuracy.
  const at = (mu) => {
    const base = populationAccuracy(mu, sTu);
    const shift = solve((c) => populationAccuracy(mu + c, sTu), base - DROP);
    return { base, shift };
  };
  let shift = 0;
  return {
    accuracy: (mu) => {
      const a = at(mu);
      shift = a.shift;
      return (1 - pc) * a.base + pc * populationAccuracy(mu + a.shift, sTu);
    },
    draw: (rng) => sigmaU * normal(rng) + (rng() < pc ? shift : 0),
    shift: () => shift,
  };
}

/** One cell's population at Delta = MARGIN. */
export function cellPopulation({ law, seedSd, gamma, p0 }) {
  const sigmaU = seedSd === 0 ? 0 : population({ p0, delta: MARGIN, seedSd, tau: TAU, gamma }).sigma_u;
  const sT0 = Math.sqrt(TAU * TAU + gamma * gamma);
  const muB = solveMu(p0, Math.sqrt(TAU * TAU + sigmaU * sigmaU));
  const L = runLaw(law, sigmaU, sT0);
  const target = populationAccuracy(muB, Math.sqrt(TAU * TAU + sigmaU * sigmaU)) + MARGIN;
  const muT = solve(L.accuracy, target);
  const truth = L.accuracy(muT) - populationAccuracy(muB, Math.sqrt(TAU * TAU + sigmaU * sigmaU));
  return { law, sigmaU, muB, muT, gamma, truth, draw: L.draw, shift: L.shift?.() ?? 0 };
}

/** One study: S rows of paired differences; fresh items per seed when perSeed. */
export function study(pop, S, n, rng, perSeed) {
  const items = () => Array.from({ length: n }, () => [TAU * normal(rng), pop.gamma * normal(rng)]);
  let shared = perSeed ? null : items();
  const rows = [];
  for (let s = 0; s < S; s++) {
    const its = shared ?? items();
    const uT = pop.muT + pop.draw(rng);
    const uB = pop.muB + (pop.sigmaU === 0 ? 0 : pop.sigmaU * normal(rng));
    rows.push(Float64Array.from(its, ([z, w]) => (rng() < expit(uT + z + w) ? 1 : 0) - (rng() < expit(uB + z) ? 1 : 0)));
  }
  return rows;
}

/** The two-way mean squares, computed here (not the library's). */
export function meanSquares(rows) {
  const S = rows.length;
  const n = rows[0].length;
  const r = rows.map((x) => x.reduce((a, v) => a + v, 0) / n);
  const c = Array.from({ length: n }, (_, i) => rows.reduce((a, x) => a + x[i], 0) / S);
  const g = r.reduce((a, v) => a + v, 0) / S;
  let e = 0;
  rows.forEach((x, s) => x.forEach((v, i) => (e += (v - r[s] - c[i] + g) ** 2)));
  return { g, seed: (n * r.reduce((a, v) => a + (v - g) ** 2, 0)) / (S - 1), item: n > 1 ? (S * c.reduce((a, v) => a + (v - g) ** 2, 0)) / (n - 1) : 0, error: n > 1 ? e / ((S - 1) * (n - 1)) : 0 };
}

