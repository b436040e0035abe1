#!/usr/bin/env node
// Does tune-kernel's held-out interval cover the quantity it estimates? (issue 22, item 5; docs/method.md 4.3.)
//
// The held-out figure is the pooled ratio of the two cross-fit directions' kernels (each tuned and refitted on one
// half, scored on the other): it estimates R = (2 s2 + 2 M_ref) / (2 s2 + M(k1) + M(k2)) on new tasks, where s2 is
// the mean Bernoulli variance p (1 - p) of a task and M(k) = E (b_i - p_i)^2 the baseline's mean squared error
// against the task's success rate, over batches of B tasks from the population. Here the population is a fixed
// list of N tasks with KNOWN success rates p, so the truth needs no rewards: given a batch's prompts, b_i is linear
// in the rewards, E[b_i] = sum_j w_ij p_j / W_i and Var b_i = sum_j w_ij^2 p_j (1 - p_j) / W_i^2 exactly. Only the
// batches' composition is sampled (the same population batches for every kernel); the truth's Monte-Carlo standard
// error over those batches is reported beside it. The weights come from the kernel's energies
// (loadKernel(...).embed), w_ij = exp(-(g_ij - min_j g_ij)), not from the code under test's baseline routine.
//
// Designs (each replicate draws fresh tasks and rewards, runs tuneKernel cross-fitted, and checks its interval):
//   calibration: the study's 64 tasks x 8 rollouts (corrected mode), B = 16 (a half of 32 tasks must hold more
//                than B tasks, so the study's B = 32 cannot be scored on it);
//   single:      1000 tasks x 1 rollout (the study's tuning phase: --tune-kernel samples 1000 one-rollout tasks), B = 32.
//
//   npm run build && node validation/kernel-lab-heldout-truth.mjs --design calibration [--replicates 400]
//     [--families length,difficulty,tfidf] [--batches 1000] [--truth-batches 4000] [--from 0] [--out FILE]
//   node validation/kernel-lab-heldout-truth.mjs --merge OUT PART... (merges the results of --from shards)
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import seedrandom from 'seedrandom';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { loadKernel, kernelFileJson, TextCache } = await import(join(root, 'dist/index.js'));
const { tuneKernel } = await import(join(root, 'dist/tuning.js'));
const { batchExpectedError, truthRatio } = await import('./heldout-truth-core.mjs');

const flag = (name, fallback) => {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : fallback;
};
const DESIGNS = {
  calibration: { tasks: 64, rollouts: 8, batchSize: 16 },
  single: { tasks: 1000, rollouts: 1, batchSize: 32 },
};
const designName = flag('--design', 'calibration');
const design = DESIGNS[designName];
if (design === undefined) throw new Error(`--design must be one of ${Object.keys(DESIGNS).join(', ')}`);
const replicates = Number(flag('--replicates', '400'));
// --from F: replicates F..F+replicates-1 (seeds by index), so a run can be split across processes and merged.
const first = Number(flag('--from', '0'));
const families = flag('--families', 'length,difficulty,tfidf').split(',');
const batches = Number(flag('--batches', '1000'));
const truthBatches = Number(flag('--truth-batches', '4000'));
const populationSize = Number(flag('--population', '20000'));
const out = flag('--out');

// The population: prompts whose success rate depends on text (how many quantities, the operation word) and on a
// hidden per-task difficulty the text does not show.
const THINGS = ['apples', 'trains', 'hours', 'dollars', 'pens', 'students', 'cookies', 'miles', 'boxes', 'pages'];
const OPERATIONS = [
  { word: 'in all', shift: 0.1 },
  { word: 'left after sharing them equally', shift: -0.15 },
  { word: 'more than the smallest', shift: 0 },
];
function populationTask(id, rng) {
  const n = 1 + Math.floor(rng() * 5);
  const op = OPERATIONS[Math.floor(rng() * OPERATIONS.length)];
  const filler = 'The shop is open every day of the week. '.repeat(Math.floor(rng() * 3));
  const quantities = Array.from({ length: n }, (_, j) => `${2 + Math.floor(rng() * 50)} ${THINGS[(id * 7 + j) % THINGS.length]}`).join(' and ');
  const hidden = (rng() + rng() + rng() - 1.5) * 0.4;
  const p = Math.min(0.97, Math.max(0.03, 0.8 - 0.13 * n + op.shift + hidden));
  return { prompt: `Question ${id}: ${filler}Sam has ${quantities}. How many are ${op.word}?`, p };
}
const populationRng = seedrandom('heldout-truth/population');
const population = Array.from({ length: populationSize }, (_, id) => populationTask(id, populationRng));
const prompts = population.map((t) => t.prompt);
const p = Float64Array.from(population, (t) => t.p);
const s2 = p.reduce((s, x) => s + x * (1 - x), 0) / p.length;

/** truthBatches batches of B distinct population tasks (partial Fisher-Yates), the same for every kernel. */
function populationBatches(size, count, seed) {
  const rng = seedrandom(seed);
  const order = Int32Array.from({ length: populationSize }, (_, i) => i);
  return Array.from({ length: count }, () => {
    for (let i = 0; i < size; i++) {
      const j = i + Math.floor(rng() * (populationSize - i));
      [order[i], order[j]] = [order[j], order[i]];
    }
    return order.slice(0, size);
  });
}
const truthSet = populationBatches(design.batchSize, truthBatches, `heldout-truth/batches/${designName}`);

const referenceErrors = truthSet.map((batch) => batchExpectedError(null, p, batch));

/** R for the directions' kernels on the truth batches, and its Monte-Carlo standard error. */
function truthOf(kernels) {
  const cache = new TextCache();
  const errors = kernels.map((k) => {
    const embedding = loadKernel(kernelFileJson(k)).embed(prompts, cache);
    return truthSet.map((batch) => batchExpectedError((a, b) => embedding.energy(a, b), p, batch));
  });
  return truthRatio(s2, referenceErrors, errors);
}

/** One replicate's data: K tasks drawn without replacement from the population, G rewards each. */
function draw(r) {
  const rng = seedrandom(`heldout-truth/${designName}/${r}`);
  const chosen = new Set();
  while (chosen.size < design.tasks) chosen.add(Math.floor(rng() * populationSize));
  return [...chosen].flatMap((k) => Array.from({ length: design.rollouts }, () => ({ task_id: `t${k}`, prompt: prompts[k], reward: rng() < p[k] ? 1 : 0 })));
}

/** The figures of a set of replicates' results. */
function summarise(results, seconds, settings = { name: designName, ...design, families, batches, truth_batches: truthBatches, population: populationSize, population_s2: s2 }) {
  const n = results.length;
  const count = (side) => results.filter((x) => x.side === side).length;
  const coverage = count('inside') / n;
  const mean = (f) => results.reduce((s, x) => s + f(x), 0) / n;
  const withCi = results.filter((x) => x.ci95 !== null);
  return {
    design: settings,
    replicates: n,
    coverage,
    coverage_se: Math.sqrt((coverage * (1 - coverage)) / n),
    truth_below: count('truth_below'),
    truth_above: count('truth_above'),
    no_interval: count('no_interval'),
    mean_truth: mean((x) => x.truth),
    sd_truth: Math.sqrt(mean((x) => x.truth ** 2) - mean((x) => x.truth) ** 2),
    max_truth_se: Math.max(...results.map((x) => x.truth_se)),
    mean_held_out_minus_truth: mean((x) => x.held_out - x.truth),
    sd_held_out_minus_truth: Math.sqrt(mean((x) => (x.held_out - x.truth) ** 2) - mean((x) => x.held_out - x.truth) ** 2),
    mean_width: withCi.reduce((s, x) => s + x.ci95[1] - x.ci95[0], 0) / withCi.length,
    seconds,
  };
}
const write = (file, results, seconds, settings) => writeFileSync(file, JSON.stringify({ summary: summarise(results, seconds, settings), results }, null, 2) + '\n');

const mergeAt = process.argv.indexOf('--merge');
if (mergeAt >= 0) {
  const [target, ...parts] = process.argv.slice(mergeAt + 1);
  const read = parts.map((f) => JSON.parse(readFileSync(f, 'utf8')));
  const merged = read.flatMap((x) => x.results).sort((a, b) => a.replicate - b.replicate);
  if (new Set(merged.map((x) => x.replicate)).size !== merged.length) throw new Error('the parts share replicates');
  const settings = read[0].summary.design;
  if (read.some((x) => JSON.stringify(x.summary.design) !== JSON.stringify(settings))) throw new Error('the parts ran different designs');
  write(target, merged, read.reduce((s, x) => s + x.summary.seconds, 0), settings);
  console.log(JSON.stringify(summarise(merged, 0, settings), null, 2));
  process.exit(0);
}

const results = [];
const started = performance.now();
for (let r = first; r < first + replicates; r++) {
  const tuned = tuneKernel(draw(r), { families, batchSize: design.batchSize, batches, seed: r });
  const truth = truthOf(tuned.directions.map((d) => d.kernel));
  const ci = tuned.heldOut.ci95;
  const inside = ci !== null && truth.ratio >= ci[0] && truth.ratio <= ci[1];
  const side = ci === null ? 'no_interval' : truth.ratio < ci[0] ? 'truth_below' : truth.ratio > ci[1] ? 'truth_above' : 'inside';
  results.push({ replicate: r, held_out: tuned.heldOut.ratio, ci95: ci, truth: truth.ratio, truth_se: truth.se, side, winners: tuned.directions.map((d) => d.winner.family) });
  if (r % 20 === 0 || !inside) console.log(`${r}: held out ${tuned.heldOut.ratio.toFixed(4)} ${ci === null ? 'no interval' : `[${ci[0].toFixed(4)}, ${ci[1].toFixed(4)}]`}, truth ${truth.ratio.toFixed(4)} +- ${truth.se.toFixed(4)}: ${side}`);
  // Written as it goes, so a stopped run keeps its finished replicates (merge them with --merge).
  if (out !== undefined && results.length % 10 === 0) write(out, results, (performance.now() - started) / 1000);
}
console.log(JSON.stringify(summarise(results, (performance.now() - started) / 1000), null, 2));
if (out !== undefined) write(out, results, (performance.now() - started) / 1000);
