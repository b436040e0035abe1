// The per-job overhead of each executor of `rl-adv study` (issue 40): N empty jobs (`/bin/true`, or `node -e ""` with
// --node) run through the study's JobScheduler (a log per job, one fsynced ledger line per attempt), beside the same
// process spawned bare (child_process.spawn: no log, no ledger, no executor), the reference. Rows:
//   bare spawn | local executor | Ray executor (a one-node cluster on 127.0.0.1 started by bench/ray_cluster.py and
//   stopped at the end, or the cluster at --ray-address)
// Each row: jobs one after another (median and mean ms per job) and N jobs 2 at a time (total / N). The overhead
// column is the sequential median minus the bare spawn's.
// Usage: npm run build && node bench/executors.mjs [--jobs 100] [--node] [--python PY] [--ray-address ADDR | --local-only]
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { JobScheduler, LocalExecutor, RayExecutor } from '../dist/study.js';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : fallback;
};
const N = Number(arg('--jobs', '100'));
const python = arg('--python', process.env.RL_ADV_PYTHON ?? 'python3');
const argv = process.argv.includes('--node') ? [process.execPath, '-e', ''] : ['/bin/true'];
const dir = mkdtempSync(path.join(tmpdir(), 'rl-adv-bench-executors-'));

const job = (name, i) => ({
  id: `bench/${name}-${i}`,
  kind: 'eval',
  resources: { gpus: 0, cpus: 1 },
  reads: [],
  writes: [],
  command: { argv, env: {}, cwd: dir },
  logFile: path.join(dir, 'logs', `${name}-${i}.log`),
});

function bareSpawn() {
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0], argv.slice(1), { stdio: 'ignore' });
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`exit ${code}`))));
  });
}

/** Times `runOne(i)` N times one after another, then N more 2 at a time. */
async function measure(runOne) {
  await runOne(-1); // warm-up: the first Ray task starts a worker process
  const each = [];
  for (let i = 0; i < N; i++) {
    const t = performance.now();
    await runOne(i);
    each.push(performance.now() - t);
  }
  const t = performance.now();
  let next = N;
  const lane = async () => {
    while (next < 2 * N) await runOne(next++);
  };
  await Promise.all([lane(), lane()]);
  const concurrent = (performance.now() - t) / N;
  each.sort((a, b) => a - b);
  return { median: each[Math.floor(N / 2)], mean: each.reduce((a, b) => a + b, 0) / N, concurrent };
}

async function throughScheduler(name, executor) {
  const runDir = path.join(dir, name);
  mkdirSync(runDir, { recursive: true });
  await executor.prepare(runDir, [job(name, 0)]);
  const scheduler = new JobScheduler({ executor, runDir, limit: 2, retries: 0 });
  return measure((i) => scheduler.run(job(name, i)));
}

function startCluster() {
  const child = spawn(python, [path.join(import.meta.dirname, 'ray_cluster.py'), '2'], { stdio: ['pipe', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', (address) => resolve({ address, stop: () => new Promise((done) => { child.once('close', done); child.stdin.end(); }) }));
    child.once('error', reject);
  });
}

const loadAtStart = loadavg()[0];
const rows = [['bare spawn (reference)', await measure(() => bareSpawn())]];
rows.push(['local executor', await throughScheduler('local', new LocalExecutor())]);
const given = arg('--ray-address');
const cluster = process.argv.includes('--local-only') ? undefined : given ? { address: given, stop: async () => {} } : await startCluster();
if (cluster) {
  try {
    const ray = await RayExecutor.connect({ address: cluster.address, python, env: { ...process.env, RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER: '0' } });
    try {
      rows.push(['Ray executor', await throughScheduler('ray', ray)]);
    } finally {
      await ray.close();
    }
  } finally {
    await cluster.stop();
  }
}
rmSync(dir, { recursive: true, force: true });
const bare = rows[0][1].median;
console.log(`${N} empty jobs (${argv.join(' ')}), ms per job; load average ${loadAtStart.toFixed(2)} at the start, ${loadavg()[0].toFixed(2)} at the end`);
console.log('| row | one at a time, median | mean | 2 at a time (total / N) | overhead over bare spawn (median) |');
console.log('| --- | --- | --- | --- | --- |');
for (const [name, r] of rows) console.log(`| ${name} | ${r.median.toFixed(1)} | ${r.mean.toFixed(1)} | ${r.concurrent.toFixed(1)} | ${(r.median - bare).toFixed(1)} |`);
