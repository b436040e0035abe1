// The per-job overhead of each executor (issue 40): 100 empty jobs (`node -e ""`'s cost measured apart as `/bin/true`)
// run one after another through the local executor and through the Ray executor (a one-node cluster on this machine,
// bench/ray_cluster.py, or --ray-address ADDR), then 100 at once with 2 running at a time. Prints one table: wall time
// per job (median and mean of the sequential runs; the concurrent run's total / 100).
// Usage: npm run build && node bench/executors.mjs [--jobs 100] [--python /work/venv/bin/python] [--ray-address ADDR | --local-only]
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
const { AbortController } = globalThis;
import { LocalExecutor, RayExecutor } from '../dist/study.js';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : fallback;
};
const N = Number(arg('--jobs', '100'));
const python = arg('--python', process.env.RL_ADV_PYTHON ?? 'python3');
const dir = mkdtempSync(path.join(tmpdir(), 'rl-adv-bench-executors-'));

const job = (i) => ({
  id: `bench/job-${i}`,
  kind: 'eval',
  resources: { gpus: 0, cpus: 1 },
  reads: [],
  writes: [],
  command: { argv: ['/bin/true'], env: {}, cwd: dir },
  logFile: path.join(dir, 'logs', `job-${i}.log`),
});

async function measure(executor) {
  const jobs = Array.from({ length: N }, (_, i) => job(i));
  await executor.prepare(dir, jobs);
  await executor.run(job(-1), 1, new AbortController().signal); // warm: the first task starts a worker
  const each = [];
  for (const j of jobs) {
    const t = performance.now();
    await executor.run(j, 1, new AbortController().signal);
    each.push(performance.now() - t);
  }
  const t = performance.now();
  let next = 0;
  const worker = async () => {
    while (next < N) await executor.run(job(N + next++), 1, new AbortController().signal);
  };
  await Promise.all([worker(), worker()]);
  const concurrent = (performance.now() - t) / N;
  each.sort((a, b) => a - b);
  return { median: each[Math.floor(N / 2)], mean: each.reduce((a, b) => a + b, 0) / N, concurrent };
}

function startCluster() {
  const child = spawn(python, [path.join(import.meta.dirname, 'ray_cluster.py'), '2'], { stdio: ['pipe', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', (address) => resolve({ address, stop: () => new Promise((done) => { child.once('close', done); child.stdin.end(); }) }));
    child.once('error', reject);
  });
}

const rows = [];
rows.push(['local', await measure(new LocalExecutor())]);
const given = arg('--ray-address');
const cluster = process.argv.includes('--local-only') ? undefined : given ? { address: given, stop: async () => {} } : await startCluster();
if (cluster) try {
  const ray = await RayExecutor.connect({ address: cluster.address, python, env: { ...process.env, RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER: '0' } });
  try {
    rows.push(['ray', await measure(ray)]);
  } finally {
    await ray.close();
  }
} finally {
  await cluster.stop();
}
rmSync(dir, { recursive: true, force: true });
console.log(`${N} empty jobs (/bin/true), ms per job`);
console.log('executor | sequential median | sequential mean | 2 at a time (total / N)');
for (const [name, r] of rows) console.log(`${name} | ${r.median.toFixed(1)} | ${r.mean.toFixed(1)} | ${r.concurrent.toFixed(1)}`);
