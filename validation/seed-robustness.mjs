// The seed-level decision off its normal model (docs/method.md section 5.8, "Robustness and degenerate designs"):
// coverage and false validation by simulation against a truth computed here by quadrature, never from src/.
//
//   npm run build && nice -n 10 node validation/seed-robustness.mjs [--quick] [--replicates R] [--degenerate-only]
//
// Three parts, each cell its own seedrandom stream (alea, seeded by the part and the cell), R studies (default 2000),
// the true expected difference set AT THE MARGIN (Delta = -0.05), so one set of studies gives the coverage (the
// interval holds Delta) and the false validation rate (lower > margin: a validated verdict that is wrong; its nominal
// ceiling is alpha/2 = 0.025). MC error sqrt(c (1 - c) / R).
//
// 1. robust: the treatment run's offset on the logit scale is (a) normal, u ~ N(0, sigma_u^2) as in
//    validation/seed-decision-coverage-core.mjs; (b) skewed, u = sigma_u (E - 1), E ~ Exp(1) (same variance, skewness
//    2); (c, d) collapsing: normal, plus with probability 0.1 or 0.2 a shift c < 0 that takes the run's population
//    accuracy down by 0.14 (c solved by bisection). The baseline run is normal. sigma_u is the normal population's for a
//    between-seed SD of 0.01 or 0.02. Truth: Delta = E_u[G(mu_t + u, s_t)] - G(mu_b, sqrt(tau^2 + sigma_u^2)),
//    G(mu, s) = E[expit(mu + s Z)] (Simpson), E_u as the mixture (collapse) or a 400-point quantile midpoint rule
//    (exponential); mu_t solved so Delta = -0.05 exactly, mu_b so the baseline accuracy is 0.5. Grid: S in {3, 5, 10} x
//    n in {200, 1000} x between-seed SD {0.01, 0.02} x gamma {0, 0.5} x the 4 run laws (96 cells).
// 2. degenerate: S in {2, 3}, n in {3, 30, 200}, baseline accuracy {0.5, 0.9}, no run-to-run spread, gamma 0: where
//    per-seed means tie. Beside the library's intervals, the same intervals without the MS_error floor (computed here
//    from the two-way mean squares, t read off the library's own half-width / se) show what the floor removes.
// 3. per_seed: each seed evaluated on its own fresh items (S in {3, 5, 10}, n = 200, between-seed SD {0, 0.02},
//    gamma {0, 1}), decided by seedMeansInterval (the t on per-seed means).
import { mkdirSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import seedrandom from 'seedrandom';
import { seedInterval, seedMeansInterval } from '../dist/stats.js';
import { cellPopulation, MARGIN, meanSquares, study } from './seed-robustness-core.mjs';

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const opt = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const R = Number(opt('--replicates', quick ? 200 : 2000));
const alternatives = args.includes('--alternatives');
// --laws a,b: only those run laws of part 1, and no other part (a rerun of some cells, written beside the grid).
const lawsOnly = opt('--laws', null)?.split(',');
// --degenerate-only: part 2 alone (rerun after the identity test of issue 39), written beside the grid.
const degenerateOnly = args.includes('--degenerate-only');
const out = resolve(
  import.meta.dirname,
  'results',
  `seed-robustness${alternatives ? '-alternatives' : ''}${lawsOnly ? `-${lawsOnly.join('-')}` : ''}${degenerateOnly ? '-degenerate' : ''}${quick ? '-quick' : ''}.json`,
);
const EXTREMES = [-1, 1];
function tally(intervals, truth, t) {
  for (const [name, iv] of Object.entries(intervals)) {
    const x = (t[name] ??= { covered: 0, falseValidated: 0, zeroWidth: 0, noInterval: 0, width: 0 });
    if (iv.lower <= truth && truth <= iv.upper) x.covered++;
    if (iv.lower > MARGIN) x.falseValidated++;
    if (iv.upper - iv.lower < 1e-12) x.zeroWidth++;
    if (iv.degenerate) x.noInterval++;
    x.width += iv.upper - iv.lower;
  }
}

function summarise(t) {
  const p = (k) => ({ value: k / R, mc_error: Math.sqrt(((k / R) * (1 - k / R)) / R) });
  return Object.fromEntries(
    Object.entries(t).map(([k, x]) => [k, { coverage: p(x.covered), false_validation: p(x.falseValidated), zero_width: x.zeroWidth / R, no_interval: x.noInterval / R, mean_width: x.width / R }]),
  );
}

function sharedIntervals(rows, withUnfloored) {
  const item = seedInterval({ differences: rows, alpha: 0.05, method: 'seed_item_t', extremes: EXTREMES });
  const t = seedInterval({ differences: rows, alpha: 0.05, method: 'seed_t', extremes: EXTREMES });
  const res = { seed_item_t: { ...item, degenerate: item.degenerate !== null }, seed_t: { ...t, degenerate: t.degenerate !== null } };
  if (withUnfloored) {
    // Without the floor: MS_seed as it is; the t quantile is the library's (half-width / se at the same df), or, when
    // the library gave no interval, t_{S-1} from a non-degenerate call on a nudged copy.
    const ms = meanSquares(rows);
    const q = quantileT(rows.length);
    const S = rows.length;
    const n = rows[0].length;
    for (const [name, extra] of [['seed_item_t_unfloored', Math.max(0, ms.item - ms.error)], ['seed_t_unfloored', 0]]) {
      const h = q * Math.sqrt((ms.seed + extra) / (S * n));
      res[name] = { lower: Math.max(-1, ms.g - h), upper: Math.min(1, ms.g + h), degenerate: false };
    }
  }
  return res;
}

const tCache = new Map();
/** t_{S-1, 0.025}, read off the library's interval on rows with a known spread (1, -1 per seed). */
function quantileT(S) {
  if (!tCache.has(S)) {
    const rows = Array.from({ length: S }, (_, s) => Float64Array.of(s % 2 === 0 ? 1 : -1, 0));
    const iv = seedInterval({ differences: rows, alpha: 0.05, method: 'seed_t' });
    tCache.set(S, iv.halfWidth / iv.standardError);
  }
  return tCache.get(S);
}

function runCell(part, cell, S, n, perSeed, intervals) {
  const pop = cellPopulation(cell);
  const rng = seedrandom.alea(`seed-robustness:${part}:${JSON.stringify(cell)}:${S}:${n}`);
  const t = {};
  for (let r = 0; r < R; r++) tally(intervals(study(pop, S, n, rng, perSeed)), pop.truth, t);
  return { part, ...cell, seeds: S, n, truth: pop.truth, sigma_u: pop.sigmaU, collapse_shift: pop.shift, methods: summarise(t) };
}

/**
 * The alternatives at the margin m0 = MARGIN (= the truth in every cell): the sign-flip randomisation test on the
 * per-seed differences (exact when they are symmetric about the truth; 2^S sign patterns, S >= 6 to reach 0.025 per
 * side) and Yuen's 20% trimmed t (trimmed mean, winsorised variance, h - 1 df). Each "covers" when its two-sided test
 * at the truth does not reject, and "validates" when its upper one-sided test rejects at 0.025.
 */
function alternativeVerdicts(rows) {
  const S = rows.length;
  const d = rows.map((x) => x.reduce((a, v) => a + v, 0) / x.length - MARGIN);
  const obs = d.reduce((a, v) => a + v, 0);
  let ge = 0;
  let le = 0;
  for (let mask = 0; mask < 1 << S; mask++) {
    let t = 0;
    for (let s = 0; s < S; s++) t += mask & (1 << s) ? -Math.abs(d[s]) : Math.abs(d[s]);
    if (t >= obs - 1e-15) ge++;
    if (t <= obs + 1e-15) le++;
  }
  const pUp = ge / (1 << S);
  const pDown = le / (1 << S);
  const flip = { lower: pUp < 0.025 ? MARGIN + 1e-9 : -1, upper: pDown < 0.025 ? MARGIN - 1e-9 : 1 };
  const g = Math.floor(0.2 * S);
  const sorted = [...d].sort((a, b) => a - b);
  const kept = sorted.slice(g, S - g);
  const h = kept.length;
  const tm = kept.reduce((a, v) => a + v, 0) / h;
  const w = sorted.map((v) => Math.min(Math.max(v, sorted[g]), sorted[S - g - 1]));
  const wm = w.reduce((a, v) => a + v, 0) / S;
  const sw2 = w.reduce((a, v) => a + (v - wm) ** 2, 0) / (S - 1);
  const se = Math.sqrt(((S - 1) * sw2) / (h * (h - 1)));
  const q = quantileT(h);
  const yuen = se > 0 ? { lower: MARGIN + tm - q * se, upper: MARGIN + tm + q * se } : { lower: -1, upper: 1 };
  return { sign_flip: flip, trimmed_t_20: yuen };
}

const started = performance.now();
const cells = [];
if (alternatives) {
  for (const law of ['normal', 'collapse_0.1', 'collapse_0.2']) {
    for (const S of [5, 6, 10]) {
      for (const n of [200, 1000]) {
        cells.push(
          runCell('alternatives', { law, seedSd: 0.02, gamma: 0, p0: 0.5 }, S, n, false, (rows) => ({ ...sharedIntervals(rows, false), ...alternativeVerdicts(rows) })),
        );
      }
    }
    process.stderr.write(`${law}: ${((performance.now() - started) / 1000).toFixed(0)} s\n`);
  }
}
const LAWS = ['normal', 'skewed', 'collapse_0.1', 'collapse_0.2'];
for (const law of alternatives || degenerateOnly ? [] : (lawsOnly ?? (quick ? ['normal', 'collapse_0.2'] : LAWS))) {
  for (const seedSd of quick ? [0.02] : [0.01, 0.02]) {
    for (const gamma of quick ? [0] : [0, 0.5]) {
      for (const S of quick ? [3, 10] : [3, 5, 10]) {
        for (const n of quick ? [200] : [200, 1000]) cells.push(runCell('robust', { law, seedSd, gamma, p0: 0.5 }, S, n, false, (rows) => sharedIntervals(rows, false)));
      }
    }
  }
  process.stderr.write(`${law}: ${((performance.now() - started) / 1000).toFixed(0)} s\n`);
}
for (const S of alternatives || lawsOnly ? [] : [2, 3]) {
  for (const n of [3, 30, 200]) {
    for (const p0 of [0.5, 0.9]) cells.push(runCell('degenerate', { law: 'normal', seedSd: 0, gamma: 0, p0 }, S, n, false, (rows) => sharedIntervals(rows, true)));
  }
}
if (!alternatives && !lawsOnly) process.stderr.write(`degenerate: ${((performance.now() - started) / 1000).toFixed(0)} s\n`);
for (const S of alternatives || lawsOnly || degenerateOnly ? [] : quick ? [3] : [3, 5, 10]) {
  for (const seedSd of [0, 0.02]) {
    for (const gamma of [0, 1]) {
      cells.push(
        runCell('per_seed', { law: 'normal', seedSd, gamma, p0: 0.5 }, S, 200, true, (rows) => {
          const iv = seedMeansInterval({ differences: rows, alpha: 0.05, extremes: EXTREMES });
          return { per_seed_t: { ...iv, degenerate: iv.degenerate !== null } };
        }),
      );
    }
  }
}
const result = { script: `validation/seed-robustness.mjs${alternatives ? ' --alternatives' : ''}${degenerateOnly ? ' --degenerate-only' : ''}`, quick, alpha: 0.05, margin: MARGIN, replicates_per_cell: R, seconds_last_run: +((performance.now() - started) / 1000).toFixed(1), cells };
mkdirSync(resolve(import.meta.dirname, 'results'), { recursive: true });
writeFileSync(out, JSON.stringify(result, null, 1) + '\n');
const f = (x) => `${x.value.toFixed(4)} +- ${x.mc_error.toFixed(4)}`;
for (const c of cells) {
  const m = Object.entries(c.methods).map(([k, v]) => `${k} cov ${f(v.coverage)} fv ${f(v.false_validation)}${v.zero_width > 0 ? ` zero ${v.zero_width}` : ''}${v.no_interval > 0 ? ` none ${v.no_interval}` : ''}`);
  console.log(`${c.part} ${c.law} sd ${c.seedSd} g ${c.gamma} p0 ${c.p0} S ${c.seeds} n ${c.n}: ${m.join('; ')}`);
}
console.log(`${cells.length} cells x ${R} studies in ${result.seconds_last_run} s; wrote ${out}`);
