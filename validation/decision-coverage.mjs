// Coverage of three decision methods' intervals (docs/method.md section 5.5), computed exactly by enumeration
// over the paired counts, with their mean width beside Hoeffding's, and a seeded Monte-Carlo cross-check.
//
//   npm run build && node validation/decision-coverage.mjs [--mc-reps 2000] [--quick] [--out FILE]
//
// Settings: n in {10, 30, 100, 300} (every (n10, n01) enumerated), D in {0.05, 0.2, 0.5, 1} (1: all items
// discordant, the worst case for the variance-free bound), true difference delta in {-D/2, 0, D/2, 0.9 D, D}, alpha
// 0.05, k = 1; k = 2 at n = 100; and the study's n = 1319 at D = 0.2 and 1 (cells within the Hoeffding windows, mass
// left out <= 2e-13). Coverage is exact: it has no binomial error. The Monte-Carlo check draws 2000 studies per
// method at n = 1319, D = 0.2, delta = 0 (seedrandom, seed "decision-coverage") and reports coverage +- its binomial
// standard error.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import seedrandom from 'seedrandom';
import { decisionMethod } from '../dist/stats.js';
import { cached, exactCoverage } from './decision-coverage-core.mjs';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : fallback;
};
const quick = args.includes('--quick');
const mcReps = Number(option('mc-reps', quick ? 200 : 2000));
const out = resolve(option('out', resolve(import.meta.dirname, 'results', 'decision-coverage.json')));
const ALPHA = 0.05;
// The fixed-grid table of docs/method.md section 5.7 covers the three methods with a cheap interval per count; the
// refined minima of every method (the exact unconditional and Tango ones included) are validation/decision-coverage-refined.mjs.
const DECISION_METHOD_NAMES = ['paired_hoeffding', 'paired_empirical_bernstein', 'paired_exact_binomial'];

const settings = [];
for (const n of quick ? [10, 30] : [10, 30, 100, 300]) {
  for (const D of [0.05, 0.2, 0.5, 1]) {
    for (const f of [-0.5, 0, 0.5, 0.9, 1]) settings.push({ n, D, delta: f * D, k: 1, full: true });
  }
}
if (!quick) {
  for (const D of [0.2, 1]) for (const f of [0, 0.5, 1]) settings.push({ n: 100, D, delta: f * D, k: 2, full: true });
  for (const D of [0.2, 1]) for (const delta of [0, 0.1]) settings.push({ n: 1319, D, delta, k: 1, full: false });
}

const intervals = new Map();
function intervalOf(method, n, k) {
  const key = `${method}/${n}/${k}`;
  if (!intervals.has(key)) {
    const m = decisionMethod(method);
    intervals.set(key, cached((n10, n01) => m.fromCounts({ n10, n01, n, alpha: ALPHA, comparisons: k })));
  }
  return intervals.get(key);
}

const rows = [];
const started = Date.now();
for (const s of settings) {
  for (const method of DECISION_METHOD_NAMES) {
    const r = exactCoverage({ n: s.n, discordance: s.D, difference: s.delta, interval: intervalOf(method, s.n, s.k), full: s.full });
    rows.push({ method, n: s.n, discordance: s.D, difference: s.delta, k: s.k, target: 1 - ALPHA / s.k, ...r });
  }
}

/** Monte Carlo: draw (n10, n01) item by item from the trinomial, count intervals that hold delta. */
function monteCarlo(method, n, D, delta, reps, rng) {
  const interval = intervalOf(method, n, 1);
  let covered = 0;
  for (let r = 0; r < reps; r++) {
    let n10 = 0;
    let n01 = 0;
    for (let i = 0; i < n; i++) {
      const u = rng();
      if (u < (D + delta) / 2) n10++;
      else if (u < D) n01++;
    }
    const iv = interval(n10, n01);
    if (iv.lower <= delta && delta <= iv.upper) covered++;
  }
  const c = covered / reps;
  return { method, n, discordance: D, difference: delta, reps, coverage: c, binomial_se: Math.sqrt((c * (1 - c)) / reps) };
}
const rng = seedrandom('decision-coverage');
const mc = DECISION_METHOD_NAMES.map((m) => monteCarlo(m, quick ? 300 : 1319, 0.2, 0, mcReps, rng));

const minCoverage = Object.fromEntries(
  DECISION_METHOD_NAMES.map((m) => {
    const mine = rows.filter((r) => r.method === m);
    const worst = mine.reduce((a, b) => (b.coverage - b.target < a.coverage - a.target ? b : a));
    return [m, { coverage: worst.coverage, target: worst.target, n: worst.n, discordance: worst.discordance, difference: worst.difference, k: worst.k }];
  }),
);
const result = {
  script: 'validation/decision-coverage.mjs',
  alpha: ALPHA,
  quick,
  seconds: (Date.now() - started) / 1000,
  min_coverage: minCoverage,
  every_setting_at_or_above_target: rows.every((r) => r.coverage >= r.target - 1e-12),
  settings: rows,
  monte_carlo: mc,
};
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, JSON.stringify(result, null, 1) + '\n');

const f4 = (x) => x.toFixed(4);
console.log(`| n | D | delta | k | ${DECISION_METHOD_NAMES.map((m) => `${m.replace('paired_', '')} coverage (width)`).join(' | ')} |`);
console.log(`|---:|---:|---:|---:|${DECISION_METHOD_NAMES.map(() => '---:').join('|')}|`);
for (const s of settings) {
  const cells = DECISION_METHOD_NAMES.map((m) => {
    const r = rows.find((x) => x.method === m && x.n === s.n && x.discordance === s.D && x.difference === s.delta && x.k === s.k);
    return `${f4(r.coverage)} (${f4(r.mean_width)})`;
  });
  console.log(`| ${s.n} | ${s.D} | ${Number(s.delta.toFixed(4))} | ${s.k} | ${cells.join(' | ')} |`);
}
console.log('\nworst coverage minus target per method:', JSON.stringify(minCoverage));
for (const r of mc) console.log(`Monte Carlo ${r.method} n = ${r.n}, D = ${r.discordance}, delta = 0: coverage ${f4(r.coverage)} +- ${f4(r.binomial_se)} (${r.reps} draws)`);
console.log(`every setting at or above 1 - alpha/k: ${result.every_setting_at_or_above_target}; ${result.seconds} s; wrote ${out}`);
