// The coverage of the seed-level intervals (docs/method.md section 5.8) by simulation against a known truth:
// seeds S in {3, 5, 10} x items n in {200, 1000, 1319} x between-seed SD of the difference in {0, 0.01, 0.02, 0.05}
// x baseline accuracy in {0.2, 0.5, 0.8} x item-by-arm interaction gamma in {0, 0.5, 1}, true difference +0.02.
//
//   npm run build && nice -n 10 node validation/seed-decision-coverage.mjs [--quick] [--replicates R] [--out FILE]
//   npm run build && nice -n 10 node validation/seed-decision-coverage.mjs --refine K [--replicates R]
//
// --refine K reads the grid's results and reruns, with fresh streams (":refine" in the seed) and R studies (default
// 20000), the K cells where seed_item_t covered least: with 324 cells of 2000 studies some fall below the floor by
// chance alone (at exactly 0.95, P(below) = 0.023 per cell), and 10x the studies tells chance from a shortfall.
// Written to validation/results/seed-decision-coverage-refined.json.
//
// The population (validation/seed-decision-coverage-core.mjs): item difficulty tau = 1.5 on the logit scale, a
// run offset u ~ N(0, sigma_u^2) per (arm, seed) with sigma_u solved so the run-level difference has the cell's SD,
// mu_b and mu_t solved so the population accuracies are p0 and p0 + 0.02; the truth Delta is recomputed from these
// parameters by quadrature in the core, never from src/. Each cell has its own seedrandom stream (alea, seeded by the
// cell's coordinates), R studies (default 2000), each S x n fresh draws of items, runs and outcomes. Methods:
// the library's seed_item_t and seed_t (dist/stats.js seedInterval), and two computed here for comparison: every
// item of every seed pooled as if independent (mean +- 1.96 sd / sqrt(S n)), and one seed alone (mean +- 1.96 sd /
// sqrt(n)). Alpha 0.05, k = 1. Each interval is also checked against its own study's Delta_I, the expected difference
// over runs for that study's n items (the estimand of seed_t; g(x) = E_u[expit(x + u)] tabulated by quadrature). Coverage = the share of studies whose interval holds Delta; MC error
// sqrt(c (1 - c) / R); a method is valid on the grid when every cell's coverage is >= 0.95 - 2 sqrt(0.95 * 0.05 / R).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import seedrandom from 'seedrandom';
import { seedInterval } from '../dist/stats.js';
import { cellCoverage, pooledInterval, population, singleSeedInterval } from './seed-decision-coverage-core.mjs';

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const opt = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const R = Number(opt('--replicates', quick ? 200 : 2000));
const out = resolve(opt('--out', resolve(import.meta.dirname, 'results', quick ? 'seed-decision-coverage-quick.json' : 'seed-decision-coverage.json')));
const SEEDS = quick ? [3, 10] : [3, 5, 10];
const ITEMS = quick ? [200] : [200, 1000, 1319];
const SEED_SDS = [0, 0.01, 0.02, 0.05];
const BASELINES = [0.2, 0.5, 0.8];
const GAMMAS = quick ? [0, 1] : [0, 0.5, 1];
const DELTA = 0.02;
const TAU = 1.5;
const METHODS = ['seed_item_t', 'seed_t', 'pooled_items', 'single_seed'];
const FLOOR = 0.95 - 2 * Math.sqrt((0.95 * 0.05) / R);

const intervals = (rows) => ({
  seed_item_t: seedInterval({ differences: rows, alpha: 0.05, method: 'seed_item_t' }),
  seed_t: seedInterval({ differences: rows, alpha: 0.05, method: 'seed_t' }),
  pooled_items: pooledInterval(rows),
  single_seed: singleSeedInterval(rows),
});

const started = performance.now();
const refineIndex = args.indexOf('--refine');
if (refineIndex >= 0) {
  const K = Number(args[refineIndex + 1]);
  const RR = Number(opt('--replicates', 20000));
  const grid = JSON.parse(readFileSync(resolve(import.meta.dirname, 'results', 'seed-decision-coverage.json'), 'utf8'));
  const lowest = [...grid.cells].sort((a, b) => a.methods.seed_item_t.coverage - b.methods.seed_item_t.coverage).slice(0, K);
  const refined = lowest.map((c) => {
    const pop = population({ p0: c.baseline_accuracy, delta: DELTA, seedSd: c.seed_sd, tau: TAU, gamma: c.gamma });
    const rng = seedrandom.alea(`seed-decision-coverage:${c.seeds}:${c.n}:${c.seed_sd}:${c.baseline_accuracy}:${c.gamma}:refine`);
    const methods = cellCoverage({ S: c.seeds, n: c.n, pop, rng, replicates: RR, intervals });
    process.stderr.write(`refined ${c.seeds} x ${c.n}, sd ${c.seed_sd}, p0 ${c.baseline_accuracy}, gamma ${c.gamma}: ${methods.seed_item_t.coverage}\n`);
    return { seeds: c.seeds, n: c.n, seed_sd: c.seed_sd, baseline_accuracy: c.baseline_accuracy, gamma: c.gamma, grid_coverage: c.methods.seed_item_t.coverage, methods };
  });
  const file = resolve(import.meta.dirname, 'results', 'seed-decision-coverage-refined.json');
  const floor = 0.95 - 2 * Math.sqrt((0.95 * 0.05) / RR);
  writeFileSync(file, JSON.stringify({ script: 'validation/seed-decision-coverage.mjs --refine', replicates_per_cell: RR, floor, seconds_last_run: +((performance.now() - started) / 1000).toFixed(1), cells: refined }, null, 1) + '\n');
  for (const c of refined) console.log(JSON.stringify({ ...c, methods: Object.fromEntries(Object.entries(c.methods).map(([k, v]) => [k, `${v.coverage.toFixed(4)} +- ${v.mc_error.toFixed(4)}`])) }));
  process.exit(0);
}
const cells = [];
for (const gamma of GAMMAS) {
  for (const seedSd of SEED_SDS) {
    for (const p0 of BASELINES) {
      const pop = population({ p0, delta: DELTA, seedSd, tau: TAU, gamma });
      for (const S of SEEDS) {
        for (const n of ITEMS) {
          const rng = seedrandom.alea(`seed-decision-coverage:${S}:${n}:${seedSd}:${p0}:${gamma}`);
          const t0 = performance.now();
          const methods = cellCoverage({ S, n, pop, rng, replicates: R, intervals, fixedItems: true });
          cells.push({ seeds: S, n, seed_sd: seedSd, baseline_accuracy: p0, gamma, population: pop, methods, seconds: +((performance.now() - t0) / 1000).toFixed(3) });
        }
      }
    }
    process.stderr.write(`gamma ${gamma}, seed sd ${seedSd}: ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
  }
}

/** The lowest coverage of a method over some cells, where, and its mean width there and over the cells. */
function lowest(method, subset) {
  let worst;
  let width = 0;
  for (const c of subset) {
    const m = c.methods[method];
    width += m.mean_width;
    if (worst === undefined || m.coverage < worst.methods[method].coverage) worst = c;
  }
  const m = worst.methods[method];
  return {
    coverage: m.coverage,
    mc_error: m.mc_error,
    at: { seeds: worst.seeds, n: worst.n, seed_sd: worst.seed_sd, baseline_accuracy: worst.baseline_accuracy, gamma: worst.gamma },
    mean_width_over_cells: width / subset.length,
    cells_below_floor: subset.filter((c) => c.methods[method].coverage < FLOOR).length,
  };
}

/** The lowest coverage of each study's own Delta_I (the fixed-items estimand). */
function lowestFixed(method, subset) {
  const worst = subset.reduce((a, c) => (c.methods[method].coverage_fixed_items < a.methods[method].coverage_fixed_items ? c : a));
  const m = worst.methods[method];
  return {
    coverage: m.coverage_fixed_items,
    mc_error: m.mc_error_fixed_items,
    at: { seeds: worst.seeds, n: worst.n, seed_sd: worst.seed_sd, baseline_accuracy: worst.baseline_accuracy, gamma: worst.gamma },
    cells_below_floor: subset.filter((c) => c.methods[method].coverage_fixed_items < FLOOR).length,
  };
}

const summary = {};
for (const method of METHODS) {
  summary[method] = { all: lowest(method, cells), fixed_items: lowestFixed(method, cells), by_seed_sd: {}, by_gamma: {}, by_seeds: {} };
  for (const sd of SEED_SDS) summary[method].by_seed_sd[sd] = lowest(method, cells.filter((c) => c.seed_sd === sd));
  for (const g of GAMMAS) summary[method].by_gamma[g] = lowest(method, cells.filter((c) => c.gamma === g));
  for (const S of SEEDS) summary[method].by_seeds[S] = lowest(method, cells.filter((c) => c.seeds === S));
}

const result = {
  script: 'validation/seed-decision-coverage.mjs',
  quick,
  alpha: 0.05,
  replicates_per_cell: R,
  floor: FLOOR,
  true_difference: DELTA,
  tau: TAU,
  grid: { seeds: SEEDS, n: ITEMS, seed_sd: SEED_SDS, baseline_accuracy: BASELINES, gamma: GAMMAS },
  seconds_last_run: +((performance.now() - started) / 1000).toFixed(1),
  summary,
  cells,
};
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, JSON.stringify(result, null, 1) + '\n');
for (const method of METHODS) {
  const a = summary[method].all;
  const f = summary[method].fixed_items;
  console.log(`${method}: lowest ${a.coverage.toFixed(4)} +- ${a.mc_error.toFixed(4)} at ${JSON.stringify(a.at)}; cells below ${FLOOR.toFixed(4)}: ${a.cells_below_floor}/${cells.length}`);
  console.log(`  of each study's Delta_I: lowest ${f.coverage.toFixed(4)} +- ${f.mc_error.toFixed(4)} at ${JSON.stringify(f.at)}; cells below: ${f.cells_below_floor}`);
}
console.log(`${cells.length} cells x ${R} studies in ${result.seconds_last_run} s; wrote ${out}`);
