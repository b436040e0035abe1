// One Node benchmark case in its own process (so its peak RSS is its own), timed with tinybench
// against the built library (dist/index.js). Usage: node bench/node-case.mjs <inputs.json> <case> <out.json>
import { readFileSync, writeFileSync } from 'node:fs';
import { Bench } from 'tinybench';
import { kernelThreadState, TfidfVectorizer, tfidfKernelLoo } from '../dist/index.js';
import { calibrateBeff } from '../dist/calibration.js';
import { promptsFor, rewardsFor } from './inputs.mjs';

const [inputsPath, caseName, outPath] = process.argv.slice(2);
const inputs = JSON.parse(readFileSync(inputsPath, 'utf8'));
const spec = inputs.cases.find((c) => c.name === caseName);
if (!spec) throw new Error(`no case ${caseName}`);
const T = inputs.temperature;
const mb = (bytes) => bytes / 1e6;

const fitted = TfidfVectorizer.fit(inputs.train);
const saved = fitted.toJSON();
// Kernel cases start every call with a fresh copy of the vectorizer (restored outside the timed
// call), so its row cache is empty and the transform is measured cold, as the reference's is;
// only the case named "repeated prompts" keeps one vectorizer and so times cache hits.
let vectorizer = fitted;
const fresh = spec.warmCache ? undefined : () => (vectorizer = TfidfVectorizer.fromJSON(saved));
let task;
let first;
if (spec.kind === 'fit') {
  task = () => TfidfVectorizer.fit(inputs.train);
} else if (spec.kind === 'kernel') {
  const prompts = spec.prompts ?? promptsFor(inputs.questions, spec.size);
  const rewards = spec.rewards ?? rewardsFor(spec.size);
  task = () => tfidfKernelLoo({ rewards, prompts }, { vectorizer, temperature: T });
  first = () => task().baselines;
} else if (spec.kind === 'rotating') {
  // A different batch every call, cycling through more prompts than the vectorizer's row cache
  // keeps: every transform is cold.
  let next = 0;
  task = () => {
    const batch = spec.batches[next];
    next = (next + 1) % spec.batches.length;
    return tfidfKernelLoo({ rewards: spec.rewards, prompts: batch }, { vectorizer, temperature: T });
  };
  first = () => tfidfKernelLoo({ rewards: spec.rewards, prompts: spec.batches[0] }, { vectorizer, temperature: T }).baselines;
} else if (spec.kind === 'calibrate') {
  const tasks = spec.tasks.map((t) => ({ taskId: t.id, prompt: t.prompt, rewards: t.rewards }));
  task = () =>
    calibrateBeff(tasks, {
      vectorizer,
      batchSize: spec.batchSize,
      batches: spec.batches,
      bootstrap: 0,
      estimators: [`tfidf_kernel_loo_T${T}`],
      seed: 1,
    });
} else {
  throw new Error(`unknown kind ${spec.kind}`);
}

const baselines = first ? Array.from(first()) : null;
if (globalThis.gc) globalThis.gc();
const rssSetup = process.memoryUsage().rss;
const bench = new Bench({
  time: spec.time ?? 1000,
  iterations: spec.iterations ?? 10,
  warmupTime: spec.warmup === 0 ? 0 : 200,
  warmupIterations: spec.warmup ?? 5,
});
bench.add(caseName, task, fresh && spec.kind !== 'fit' ? { beforeEach: fresh } : {});
// CPU time of every thread of the process (the kernel workers included) over the wall time of
// the timed run: about 1 for one busy thread, up to the number of threads when they all work.
const cpuBefore = process.cpuUsage();
const wallBefore = performance.now();
await bench.run();
const cpu = process.cpuUsage(cpuBefore);
const cpuPerWall = (cpu.user + cpu.system) / 1000 / (performance.now() - wallBefore);
const threads = kernelThreadState();
const result = bench.tasks[0].result;
if (result.error) throw result.error;
const latency = result.latency;
writeFileSync(
  outPath,
  JSON.stringify({
    medianMs: latency.p50,
    meanMs: latency.mean,
    samples: latency.samples?.length ?? result.samples?.length ?? null,
    rssSetupMb: mb(rssSetup),
    maxRssMb: process.resourceUsage().maxRSS / 1e3,
    baselines,
    cpuPerWall,
    threads: threads.started === 0 ? 1 : threads.started,
    workerBlocks: threads.lastBatch.byWorkers,
    threadReason: threads.reason,
  }),
);
