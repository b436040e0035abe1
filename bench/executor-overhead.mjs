// The local executor's per-job overhead (issue 40): N empty jobs (`/bin/true`, or `node -e ""` with --node) run one
// at a time through the study's scheduler (JobScheduler: a log per job, one fsynced ledger line per attempt) on the
// LocalExecutor, against the same processes spawned bare (child_process.spawn, no log, no ledger). The difference
// per job is what the executor adds. Run after `npm run build`:
//   node bench/executor-overhead.mjs [N] [--node]
// docs/study.md ("Jobs") records its figures; the Ray executor's bench sits beside it.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { JobScheduler, LocalExecutor } from '../dist/study.js';

const N = Number(process.argv.find((a) => /^\d+$/.test(a)) ?? 100);
const argv = process.argv.includes('--node') ? [process.execPath, '-e', ''] : ['/bin/true'];

function bare() {
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0], argv.slice(1), { stdio: 'ignore' });
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`exit ${code}`))));
  });
}

async function timed(fn) {
  const t0 = performance.now();
  for (let i = 0; i < N; i++) await fn(i);
  return (performance.now() - t0) / N;
}

const dir = mkdtempSync(path.join(tmpdir(), 'rl-adv-bench-exec-'));
const scheduler = new JobScheduler({ executor: new LocalExecutor(), runDir: dir, limit: 1, retries: 0 });
const job = (i) => ({
  id: `bench/job-${i}`,
  kind: 'eval',
  resources: { gpus: 0, cpus: 1 },
  reads: [],
  writes: [],
  command: { argv, env: {}, cwd: dir },
  logFile: path.join(dir, 'logs', `job-${i}.log`),
});
await bare(); // warm-up
const bareMs = await timed(() => bare());
const executorMs = await timed((i) => scheduler.run(job(i)));
rmSync(dir, { recursive: true, force: true });
console.log(`${N} empty jobs (${argv.join(' ')}), one at a time`);
console.log(`bare spawn:                 ${bareMs.toFixed(2)} ms per job`);
console.log(`LocalExecutor + scheduler:  ${executorMs.toFixed(2)} ms per job`);
console.log(`overhead:                   ${(executorMs - bareMs).toFixed(2)} ms per job (the log file, the ledger's fsynced line, the scheduler)`);
