#!/usr/bin/env node
// Does tune-kernel's held-out interval cover the truth? (docs/kernel-lab.md, "Why the held-out figure is honest".)
// A synthetic population of prompts whose success rate depends partly on a text feature (the count of numbers) and
// partly on a hidden per-task difficulty; each replicate draws K tasks with one rollout each, runs tuneKernel
// (cross-fitted), and measures the truth: the written kernel's ratio against loo_batch_mean on a fresh sample of
// tasks and rewards from the population, large enough that its own error is small. Coverage = the share of
// replicates whose held-out interval contains the truth, with its binomial standard error.
//   npm run build && node validation/kernel-lab-coverage.mjs [--replicates 60] [--tasks 400] [--out FILE]
import { writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import seedrandom from 'seedrandom';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { loadKernel, kernelFileJson } = await import(join(root, 'dist/index.js'));
const { tuneKernel } = await import(join(root, 'dist/tuning.js'));
const { calibrateBeff } = await import(join(root, 'dist/calibration.js'));
const flag = (name, fallback) => {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : fallback;
};
const replicates = Number(flag('--replicates', '60'));
const taskCount = Number(flag('--tasks', '400'));
const out = flag('--out');
const WORDS = ['apples', 'trains', 'hours', 'dollars', 'pens', 'students', 'cookies', 'miles', 'boxes', 'pages'];

/** A population task: prompt with n numbers and filler, p = clamp(0.85 - 0.12 n + hidden, 0.02, 0.98). */
function task(id, rng) {
  const n = 1 + Math.floor(rng() * 6);
  const filler = 'The shop is open every day of the week. '.repeat(Math.floor(rng() * 4));
  const numbers = Array.from({ length: n }, (_, j) => `${2 + Math.floor(rng() * 50)} ${WORDS[(id + j) % WORDS.length]}`).join(' and ');
  const hidden = (rng() + rng() + rng() - 1.5) * 0.3;
  const p = Math.min(0.98, Math.max(0.02, 0.85 - 0.12 * n + hidden));
  return { id: `task${id}`, prompt: `Question ${id}: ${filler}Sam has ${numbers}. How many are there in all?`, p };
}

function sample(count, rng, start) {
  return Array.from({ length: count }, (_, k) => task(start + k, rng)).map((t) => ({ taskId: t.id, prompt: t.prompt, rewards: [rng() < t.p ? 1 : 0] }));
}

const results = [];
let covered = 0;
const started = performance.now();
for (let r = 0; r < replicates; r++) {
  const rng = seedrandom(`coverage/${r}`);
  const tasks = sample(taskCount, rng, r * 1_000_000);
  const rows = tasks.map((t) => ({ task_id: t.taskId, prompt: t.prompt, reward: t.rewards[0] }));
  const tuned = tuneKernel(rows, { families: ['length', 'difficulty', 'loo_batch_mean'], batchSize: 16, batches: 500, seed: r });
  const kernel = loadKernel(kernelFileJson(tuned.kernel));
  const fresh = sample(3000, rng, r * 1_000_000 + 500_000);
  const truth = calibrateBeff(fresh, { batchSize: 16, batches: 3000, seed: r, interval: 'none', estimators: ['k'], kernels: { k: kernel } }).estimators.k.ratio;
  const [low, high] = tuned.heldOut.ci95;
  const inside = truth >= low && truth <= high;
  if (inside) covered++;
  results.push({ replicate: r, held_out: tuned.heldOut.ratio, ci95: [low, high], truth, inside, tuning: tuned.tuning, family: tuned.kernel.family });
  console.log(`${r}: held out ${tuned.heldOut.ratio.toFixed(4)} [${low.toFixed(4)}, ${high.toFixed(4)}], truth ${truth.toFixed(4)}, ${inside ? 'covered' : 'MISSED'}`);
}
const coverage = covered / replicates;
const se = Math.sqrt((coverage * (1 - coverage)) / replicates);
const mean = (f) => results.reduce((s, x) => s + f(x), 0) / results.length;
const summary = {
  replicates,
  tasks: taskCount,
  coverage,
  coverage_se: se,
  mean_held_out_minus_truth: mean((x) => x.held_out - x.truth),
  mean_tuning_minus_truth: mean((x) => x.tuning - x.truth),
  mean_width: mean((x) => x.ci95[1] - x.ci95[0]),
  mean_truth: mean((x) => x.truth),
  seconds: (performance.now() - started) / 1000,
};
console.log(JSON.stringify(summary, null, 2));
if (out !== undefined) writeFileSync(out, JSON.stringify({ summary, results }, null, 2) + '\n');
