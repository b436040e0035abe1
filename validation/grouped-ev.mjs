#!/usr/bin/env node
// Where the group estimators and the normalisation presets land against the batch mean (docs/estimators.md,
// "Calibration of the group estimators"). calibrate's batches hold one rollout of each of B distinct tasks, where
// every group is a group of one; this script draws GRPO-shaped batches instead: B / G distinct tasks, G rollouts of
// each drawn without replacement from the task's rewards. Per estimator, over the same batches (common random
// numbers), with b its centre (what it subtracts):
//   EV    = 1 - sum (r - b)^2 / sum (r - rbar)^2   (EVPO's explained variance, docs/method.md section 4.4)
//   ratio = sum (r - b_ref)^2 / sum (r - b)^2      (= (1 - EV_ref) / (1 - EV); ref = loo_batch_mean)
// A baseline that contains r_i itself (w_ii > 0: group_mean, maxrl's mean_g, the group-mean presets) shrinks
// r - b by (1 - 1/G) without predicting anything: its figure is reported with that flag.
//   node validation/grouped-ev.mjs --input calibration.jsonl --vectorizer gsm8k.tfidf.json [--group-size 4]
//       [--batch-size 32] [--batches 20000] [--seed 0] [--out results.json]
import { readFileSync, writeFileSync } from 'node:fs';
import seedrandom from 'seedrandom';
import { createEstimator, gdpo, maxrl, normalizationPreset, normalizeStep, TfidfVectorizer } from '../dist/index.js';

const args = process.argv.slice(2);
const flag = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const input = flag('--input');
const vectorizerPath = flag('--vectorizer');
if (input === undefined || vectorizerPath === undefined) {
  console.error('usage: node validation/grouped-ev.mjs --input calibration.jsonl --vectorizer V.json [--group-size 4] [--batch-size 32] [--batches 20000] [--seed 0] [--out FILE]');
  process.exit(2);
}
const G = Number(flag('--group-size', '4'));
const B = Number(flag('--batch-size', '32'));
const M = Number(flag('--batches', '20000'));
const seed = flag('--seed', '0');
const vectorizer = TfidfVectorizer.fromJSON(JSON.parse(readFileSync(vectorizerPath, 'utf8')));

const tasks = new Map();
for (const line of readFileSync(input, 'utf8').trim().split('\n')) {
  const row = JSON.parse(line);
  if (!tasks.has(row.task_id)) tasks.set(row.task_id, { prompt: row.prompt, rewards: [] });
  tasks.get(row.task_id).rewards.push(row.reward);
}
const list = [...tasks.values()].filter((t) => t.rewards.length >= G);
const K = list.length;
if (B % G !== 0 || B / G > K) throw new Error(`batch size ${B} must be a multiple of G = ${G} with B / G <= ${K} tasks`);

const step = (name) => (b) => normalizeStep({ values: b.rewards, groupIds: b.groupIds, lengths: b.lengths }, normalizationPreset(name).spec).centres;
const named = (name, context = {}) => {
  const e = createEstimator(name, { vectorizer, ...context });
  return (b) => e.compute(b).baselines;
};
// name -> [centres(batch), uses r_i itself]
const ESTIMATORS = {
  loo_batch_mean: [named('loo_batch_mean'), false],
  rloo: [named('rloo'), false],
  group_mean: [named('group_mean'), true],
  'tfidf_kernel_loo_T0.1': [named('tfidf_kernel_loo_T0.1'), false],
  shrinkage_loo: [named('shrinkage_loo'), false],
  maxrl: [(b) => maxrl(b).baselines, true],
  gdpo: [(b) => Float64Array.from(gdpo({ ...b, rewardComponents: b.rewards.map((r) => [r]) }, { flavour: 'trl' }).advantages, (a, i) => b.rewards[i] - a), true],
  nemo_grpo: [step('nemo_grpo'), false],
  trl_rloo: [step('trl_rloo'), false],
  verl_grpo: [step('verl_grpo'), true],
  areal_batch: [step('areal_batch'), true],
  roll_grpo: [step('roll_grpo'), true],
};
delete ESTIMATORS.gdpo; // its output is a whitened sum, not r - b: no centre to score

const rng = seedrandom(`grouped-ev/${seed}`);
const positions = list.map((_, k) => k);
const names = Object.keys(ESTIMATORS);
const advantageSquares = Object.fromEntries(names.map((n) => [n, 0]));
let rewardSquares = 0;
for (let m = 0; m < M; m++) {
  const rewards = [];
  const groupIds = [];
  const prompts = [];
  for (let t = 0; t < B / G; t++) {
    const j = t + Math.floor(rng() * (K - t));
    [positions[t], positions[j]] = [positions[j], positions[t]];
    const task = list[positions[t]];
    const order = task.rewards.map((_, g) => g);
    for (let g = 0; g < G; g++) {
      const h = g + Math.floor(rng() * (order.length - g));
      [order[g], order[h]] = [order[h], order[g]];
      rewards.push(task.rewards[order[g]]);
      groupIds.push(t);
      prompts.push(task.prompt);
    }
  }
  const batch = { rewards, groupIds, prompts, lengths: rewards.map(() => 1) };
  const mean = rewards.reduce((s, r) => s + r, 0) / rewards.length;
  rewardSquares += rewards.reduce((s, r) => s + (r - mean) ** 2, 0);
  for (const name of names) {
    const b = ESTIMATORS[name][0](batch);
    advantageSquares[name] += rewards.reduce((s, r, i) => s + (r - b[i]) ** 2, 0);
  }
}
const results = {};
for (const name of names) {
  results[name] = {
    explained_variance: 1 - advantageSquares[name] / rewardSquares,
    ratio_vs_loo_batch_mean: advantageSquares.loo_batch_mean / advantageSquares[name],
    uses_own_reward: ESTIMATORS[name][1],
  };
}
const out = { input, tasks: K, group_size: G, batch_size: B, batches: M, seed, results };
console.log(`${K} tasks, B = ${B} (${B / G} tasks x G = ${G}), ${M} batches, seed ${seed}`);
for (const [name, r] of Object.entries(results)) {
  console.log(`${name.padEnd(24)} EV ${r.explained_variance.toFixed(4).padStart(8)}  ratio ${r.ratio_vs_loo_batch_mean.toFixed(4)}${r.uses_own_reward ? '  (b uses r_i)' : ''}`);
}
const outFile = flag('--out');
if (outFile !== undefined) writeFileSync(outFile, JSON.stringify(out, null, 1) + '\n');
