// Validation of the B_eff ratio's 95% interval (docs/method.md section 4.1): coverage, width and centring over
// calibration sets drawn from known-truth populations (validation/beff-populations.mjs).
//
//   npm run build && node validation/beff-interval.mjs [--reps 200] [--batches 20000] [--old-reps 50] [--population null|clustered|both] [--out FILE] [--keep-old FILE]
//
// --keep-old FILE (with --old-reps 0): the old bootstrap's figures are not recomputed but copied from FILE, an
// earlier result of this script with the same seeds (its population of the same name), and marked as copied.
//
// "jackknife" is the delete-one-task jackknife interval calibrateBeff reports; "bias_corrected" the same sets' and
// batches' bias-corrected (delete-two) jackknife variance, v_BC = v_J - (1/(K(K-1))) sum_{i<j} (Q_ij - Qbar)^2,
// falling back to v_J when v_BC <= 0 (docs/method.md section 4.1). Both come from compareIntervals
// (src/calibration/interval-comparison.ts, internal to the package), bundled here from the source with esbuild;
// its delete-one jackknife is bit for bit calibrateBeff's.
//
// GSM8K comes from GSM8K_DIR (default ../shared/data/gsm8k). Every draw is seeded: the same arguments give the
// same figures. "old" is the removed percentile bootstrap (tasks resampled with replacement, 100 replicates of 500
// batches, a task drawn twice counting as two tasks with the same prompt and rewards), rebuilt here from
// calibrateBeff on the resampled tasks so that the comparison stays reproducible.
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildSync } from 'esbuild';
import seedrandom from 'seedrandom';
import { calibrateBeff } from '../dist/calibration.js';
import { clusteredPopulation, drawCalibrationSet, nullPopulation, trueRatio } from './beff-populations.mjs';

/** compareIntervals and the TfidfVectorizer class it checks its vectorizer against, bundled from src/. */
async function loadInternal() {
  // Under node_modules so that the bundle's external packages (seedrandom) resolve from it.
  const outfile = resolve(import.meta.dirname, '..', 'node_modules', '.cache', 'beff-interval', 'internal.mjs');
  buildSync({
    stdin: {
      contents:
        "export { compareIntervals } from './src/calibration/interval-comparison.ts';\n" +
        "export { TfidfVectorizer } from './src/text/tfidf.ts';\n",
      resolveDir: resolve(import.meta.dirname, '..'),
      loader: 'ts',
    },
    bundle: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    outfile,
    logLevel: 'error',
  });
  return import(pathToFileURL(outfile).href);
}
const internal = await loadInternal();

const GS1 = 'tfidf_kernel_loo_T0.1';
const args = Object.fromEntries(
  process.argv.slice(2).reduce((pairs, a, i, all) => (a.startsWith('--') ? [...pairs, [a.slice(2), all[i + 1]]] : pairs), []),
);
const reps = Number(args.reps ?? 200);
const batches = Number(args.batches ?? 20000);
const oldReps = Number(args['old-reps'] ?? 50);
const truthBatches = Number(args['truth-batches'] ?? 100000);
const K = 64;
const G = 8;
const B = 32;
const gsm8kDir = process.env.GSM8K_DIR ?? resolve(import.meta.dirname, '..', '..', 'shared', 'data', 'gsm8k');

/** The removed percentile bootstrap, as calibrateBeff computed it before (docs/method.md section 4.1). */
function oldBootstrap(tasks, vectorizer, seed, replicates = 100, perReplicate = 500) {
  const rng = seedrandom(`old-bootstrap/${seed}`);
  const ratios = [];
  for (let r = 0; r < replicates; r++) {
    const resampled = tasks.map((_, i) => ({ ...tasks[Math.floor(rng() * tasks.length)], taskId: `r${i}` }));
    const c = calibrateBeff(resampled, { batchSize: B, batches: perReplicate, interval: 'none', vectorizer, seed: `${seed}/${r}` });
    ratios.push(c.estimators[GS1].ratio);
  }
  ratios.sort((a, b) => a - b);
  const q = (p) => {
    const h = (ratios.length - 1) * p;
    const lo = Math.floor(h);
    return ratios[lo] + (h - lo) * ((ratios[Math.min(lo + 1, ratios.length - 1)] ?? ratios[lo]) - ratios[lo]);
  };
  return [q(0.025), q(0.975)];
}

function summarise(rows, truth, sd, key) {
  const n = rows.length;
  let covered = 0;
  let low = 0;
  let high = 0;
  let width = 0;
  let centre = 0;
  let outside = 0;
  for (const row of rows) {
    const [lo, hi] = row[key];
    if (lo <= truth && truth <= hi) covered++;
    else if (truth < lo) low++;
    else high++;
    width += hi - lo;
    centre += (lo + hi) / 2 - row.estimate;
    if (row.estimate < lo || row.estimate > hi) outside++;
  }
  const coverage = covered / n;
  return {
    n,
    coverage,
    coverage_se: Math.sqrt((coverage * (1 - coverage)) / n),
    // truth < lo: the truth lies below the interval (it overestimates); truth > hi: above it.
    truth_below_interval: low,
    truth_above_interval: high,
    mean_width: width / n,
    width_over_ideal: width / n / (3.92 * sd),
    mean_midpoint_minus_estimate: centre / n,
    estimate_outside_own_interval: outside / n,
  };
}

/** The old bootstrap's summary of `name` from --keep-old FILE, marked as copied; null without --keep-old. */
function keptOld(name) {
  if (args['keep-old'] === undefined) return null;
  const earlier = JSON.parse(readFileSync(args['keep-old'], 'utf8'));
  const found = earlier.populations.find((p) => p.population === name)?.old_percentile_bootstrap;
  if (found == null) throw new Error(`--keep-old ${args['keep-old']}: no old_percentile_bootstrap for population ${name}`);
  return { ...found, copied_from: `an earlier run of this script with ${earlier.settings.old_replications} old replications (--keep-old)` };
}

function validate(population) {
  const started = Date.now();
  // The same fit with the bundled class (compareIntervals checks instanceof against its own TfidfVectorizer).
  population.internalVectorizer = internal.TfidfVectorizer.fit(population.prompts);
  const truth = trueRatio(population, { batchSize: B, batches: truthBatches });
  const rows = [];
  for (let r = 0; r < reps; r++) {
    const tasks = drawCalibrationSet(population, K, G, `rl-adv/validation/${population.name}/set/${r}`);
    const e = internal.compareIntervals(tasks, { batchSize: B, batches, vectorizer: population.internalVectorizer, seed: r })[GS1];
    const bc = e.biasCorrected;
    const row = {
      estimate: e.ratio,
      jackknife: e.jackknife.ci95,
      task_se: e.jackknife.se,
      mc_se: e.ratioSe,
      bias_corrected: bc.ci95,
      bc_se: bc.se,
      bc_variance: bc.varianceCorrected,
      bc_bias_estimate: bc.biasEstimate,
      bc_fell_back: bc.fellBack,
    };
    if (r < oldReps) row.old = oldBootstrap(tasks, population.vectorizer, r);
    rows.push(row);
    if ((r + 1) % 10 === 0) process.stderr.write(`${population.name}: ${r + 1}/${reps} (${((Date.now() - started) / 1000).toFixed(0)} s)\n`);
  }
  const estimates = rows.map((row) => row.estimate);
  const mean = estimates.reduce((s, v) => s + v, 0) / reps;
  const sd = Math.sqrt(estimates.reduce((s, v) => s + (v - mean) ** 2, 0) / (reps - 1));
  const meanTaskSe = rows.reduce((s, row) => s + row.task_se, 0) / reps;
  return {
    population: population.name,
    truth: truth.ratio,
    truth_mc_se: truth.se,
    replications: reps,
    mean_estimate: mean,
    estimate_bias: mean - truth.ratio,
    sd_estimate: sd,
    ideal_width: 3.92 * sd,
    mean_jackknife_se: meanTaskSe,
    // > 1: the jackknife standard error overstates the estimate's spread (the interval is conservative).
    jackknife_se_over_sd: meanTaskSe / sd,
    jackknife: summarise(rows, truth.ratio, sd, 'jackknife'),
    bias_corrected: {
      ...summarise(rows, truth.ratio, sd, 'bias_corrected'),
      // v_BC <= 0: the interval fell back to the delete-one jackknife's.
      fell_back: rows.filter((row) => row.bc_fell_back).length,
      mean_se: rows.reduce((s, row) => s + row.bc_se, 0) / reps,
      se_over_sd: rows.reduce((s, row) => s + row.bc_se, 0) / reps / sd,
      mean_v_jackknife: rows.reduce((s, row) => s + row.task_se ** 2, 0) / reps,
      mean_bias_estimate: rows.reduce((s, row) => s + row.bc_bias_estimate, 0) / reps,
      mean_v_corrected: rows.reduce((s, row) => s + row.bc_variance, 0) / reps,
      // The estimate's variance over the sets, what an unbiased v would average to.
      var_estimate: sd ** 2,
      mean_mc_se: rows.reduce((s, row) => s + row.mc_se, 0) / reps,
    },
    old_percentile_bootstrap: oldReps > 0 ? summarise(rows.slice(0, oldReps), truth.ratio, sd, 'old') : keptOld(population.name),
    seconds: (Date.now() - started) / 1000,
  };
}

const which = args.population ?? 'both';
const populations = [];
if (which !== 'clustered') populations.push(validate(nullPopulation(gsm8kDir)));
if (which !== 'null') populations.push(validate(clusteredPopulation()));
const results = {
  settings: { tasks: K, rollouts_per_task: G, batch_size: B, batches, replications: reps, old_replications: oldReps, truth_batches: truthBatches },
  populations,
};
const json = JSON.stringify(results, null, 2);
if (args.out !== undefined) writeFileSync(args.out, json + '\n');
console.log(json);
