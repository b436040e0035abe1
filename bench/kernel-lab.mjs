#!/usr/bin/env node
// The kernel tuner's speed (docs/performance.md, "The kernel tuner"): tuneKernel on the 1319 GSM8K test questions
// with the 6B fine-tuned model's labels (single-rollout mode), every family, B = 32, 10000 batches per scored set,
// cross-fitted: two searches on halves of 660 and 659 tasks, the pooled held-out scoring, then the search on all
// 1319 tasks (>= 500 candidates x 10000 batches: the target, <= 60 s on this 2-core machine).
// Prints the load average before and after (the machine is shared), each stage's time, and candidate-batches/s.
//   npm run build && node bench/kernel-lab.mjs [--batches N]
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchGsm8kDir } from './gsm8k.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { tuneKernel } = await import(join(root, 'dist/tuning.js'));
const at = process.argv.indexOf('--batches');
const batches = at >= 0 ? Number(process.argv[at + 1]) : 10000;
const gsm8k = await benchGsm8kDir(root);
const items = readFileSync(join(gsm8k, 'example_model_solutions.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
const rows = items.map((x, i) => ({ task_id: `gsm8k_test_${i}`, prompt: x.question, reward: x['6b_finetuning'].is_correct ? 1 : 0 }));

const load = () => loadavg().map((x) => x.toFixed(2)).join(' ');
console.log(`kernel-lab bench: ${rows.length} tasks, B = 32, ${batches} batches per set; load average before: ${load()}`);
// Stage boundaries: a stage runs from its first progress call to the next stage's (the first stage from the start).
const starts = [];
const started = performance.now();
const result = tuneKernel(rows, {
  batches,
  seed: 0,
  onProgress: (name) => {
    if (starts.length === 0 || starts[starts.length - 1][0] !== name) starts.push([name, starts.length === 0 ? started : performance.now()]);
  },
});
const ended = performance.now();
const seconds = (ended - started) / 1000;
starts.forEach(([name, t], i) => console.log(`  ${name.padEnd(12)} ${(((starts[i + 1]?.[1] ?? ended) - t) / 1000).toFixed(1)} s`));
console.log(
  `total ${seconds.toFixed(1)} s; ${result.candidateBatches} candidate-batches (${result.candidates} distinct candidates), ` +
    `${Math.round(result.candidateBatches / seconds)} candidate-batches/s over the whole run; load average after: ${load()}`,
);
const perSearch = result.directions.map((d) => d.candidates);
console.log(`candidates scored per search: ${[...perSearch, result.candidateBatches / batches - perSearch.reduce((a, b) => a + b, 0)].join(', ')} (the last: all ${rows.length} tasks)`);
console.log(`held out ${result.heldOut.ratio.toFixed(4)} [${result.heldOut.ci95.map((x) => x.toFixed(4)).join(', ')}], winner ${result.kernel.family} ${JSON.stringify(result.kernel.params)}`);
