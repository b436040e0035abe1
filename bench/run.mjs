#!/usr/bin/env node
// npm run bench: the library (dist/, built by `npm run build`) against the study spec's
// numpy/scikit-learn reference, side by side in one run on the same prompts and rewards.
// Every case runs in a child process of its own, so its peak RSS is its own.
//   node bench/run.mjs            all cases (about 5 minutes; B = 65536 alone takes 1-2)
//   node bench/run.mjs --quick    fit, B = 32 and B = 1024 only
//   node bench/run.mjs --only 'B = 4096' --repeat 3    cases whose name contains the text, each
//                                 run 3 times (node, then the reference, alternately)
//   node bench/run.mjs --gsm8k    print the GSM8K folder the bench reads, and stop
// Every row shows the load average before the case (the machine's busyness: on 2 CPUs, above
// about 1 the kernel's worker thread shares its core), the threads the library used, and each
// side's CPU time over wall time.
// GSM8K is found as every rl-adv command finds it ($GSM8K_DIR, the cache, a download; bench/gsm8k.mjs);
// Python is /usr/bin/python3 or $PYTHON.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchGsm8kDir } from './gsm8k.mjs';
import { promptsFor, readQuestions, rewardsFor } from './inputs.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const quick = process.argv.includes('--quick');
const argAfter = (flag) => {
  const at = process.argv.indexOf(flag);
  return at >= 0 ? process.argv[at + 1] : undefined;
};
const only = argAfter('--only');
const repeatAll = argAfter('--repeat') === undefined ? undefined : Number(argAfter('--repeat'));
if (repeatAll !== undefined && !(Number.isInteger(repeatAll) && repeatAll >= 1)) {
  console.error('bench: --repeat needs a positive integer');
  process.exit(2);
}
const python = process.env.PYTHON ?? '/usr/bin/python3';
const TEMPERATURE = 0.1;

if (!existsSync(join(root, 'dist', 'index.js'))) {
  console.error('bench: dist/index.js is missing; run `npm run build` first (npm run bench does).');
  process.exit(2);
}
const gsm8kDir = await benchGsm8kDir(root);
if (process.argv.includes('--gsm8k')) {
  console.log(gsm8kDir);
  process.exit(0);
}
const train = readQuestions(gsm8kDir, 'train');
const questions = [...train, ...readQuestions(gsm8kDir, 'test')];

// ---- the cases -------------------------------------------------------------------------------
const kernelCase = (name, size, extra = {}) => ({
  name,
  kind: 'kernel',
  prompts: promptsFor(questions, size),
  rewards: rewardsFor(size),
  ...extra,
});
const grpoPrompts = promptsFor(questions, 32).flatMap((p) => Array(8).fill(p));
const rotatingBatches = [];
for (let start = 0; start + 32 <= questions.length; start += 32) rotatingBatches.push(questions.slice(start, start + 32));
const cases = [
  { name: 'fit (7473 train questions)', kind: 'fit', target: 'ratio >= 2', minRatio: 2 },
  // Tens of microseconds a call: the most exposed to other jobs, so the median of 5 runs.
  kernelCase('B = 32, repeated prompts', 32, { time: 2000, warmCache: true, repeats: 5, target: 'ratio >= 10 (median of runs)', minRatio: 10 }),
  kernelCase('B = 32, cold vectorizer', 32, { time: 2000, target: '' }),
  {
    name: 'B = 32, new prompts each call',
    kind: 'rotating',
    batches: rotatingBatches,
    rewards: rewardsFor(32),
    time: 2000,
    target: '(cold transform)',
  },
  { name: 'B = 256 GRPO (32 prompts x 8)', kind: 'kernel', prompts: grpoPrompts, rewards: rewardsFor(256), target: '' },
  kernelCase('B = 1024', 1024, { target: '' }),
];
if (!quick) {
  cases.push(
    kernelCase('B = 4096', 4096, { time: 0, iterations: 5, warmup: 1, target: 'ratio >= 5', minRatio: 5 }),
    kernelCase('B = 8192', 8192, {
      time: 0,
      iterations: 3,
      warmup: 1,
      target: 'ratio >= 8, RSS growth <= 64 MB',
      minRatio: 8,
      maxGrowthMb: 64,
    }),
    {
      name: 'B = 65536',
      kind: 'kernel',
      size: 65536,
      time: 0,
      iterations: 1,
      warmup: 0,
      nodeOnly: 'numpy needs 3 x 34 GB',
      target: '<= 60 s, <= 1 GB RSS',
      maxMs: 60_000,
      maxRssMb: 1000,
    },
    {
      name: 'calibrateBeff 20000 x 2 at B = 32',
      kind: 'calibrate',
      batchSize: 32,
      batches: 20000,
      tasks: train.slice(0, 64).map((prompt, k) => ({ id: `gsm8k_train_${k}`, prompt, rewards: rewardsFor(8, k + 7) })),
      time: 0,
      iterations: 3,
      warmup: 1,
      nodeOnly: 'no reference',
      target: '<= 3 s',
      maxMs: 3000,
    },
  );
}

// ---- running ---------------------------------------------------------------------------------
const work = mkdtempSync(join(tmpdir(), 'rl-adv-bench-'));
const inputsPath = join(work, 'inputs.json');
writeFileSync(inputsPath, JSON.stringify({ temperature: TEMPERATURE, train, questions, cases }));

// OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE, where a machine sets them to work around old OpenBLAS
// builds, slow a current numpy: the reference runs without them (docs/performance.md).
const referenceEnv = { ...process.env };
delete referenceEnv.OPENBLAS_CORETYPE;
delete referenceEnv.OPENBLAS_L2_SIZE;

function runChild(command, args, out, env = process.env) {
  const child = spawnSync(command, args, { stdio: ['ignore', 'inherit', 'pipe'], encoding: 'utf8', maxBuffer: 1 << 26, env });
  if (child.status !== 0) return { error: (child.stderr || child.error?.message || `exit ${child.status}`).trim().split('\n').slice(-3).join(' ') };
  return JSON.parse(readFileSync(out, 'utf8'));
}

const probe = spawnSync(python, ['-c', 'import sklearn, numpy, scipy; print(sklearn.__version__, numpy.__version__, scipy.__version__)'], {
  encoding: 'utf8',
});
const havePython = probe.status === 0;
if (!havePython) {
  console.error(
    `bench: ${python} with scikit-learn is not available, so only the Node half runs.\n` +
      '  Install the reference with: apt-get install -y python3-sklearn   (or set PYTHON=/path/to/python3)',
  );
}

console.log(`machine: ${cpus().length} CPUs, ${cpus()[0]?.model ?? 'unknown CPU'}; node ${process.version}` +
  (havePython ? `; python ${spawnSync(python, ['--version'], { encoding: 'utf8' }).stdout.trim().split(' ')[1]}, scikit-learn/numpy/scipy ${probe.stdout.trim()}` : ''));
console.log(`T = ${TEMPERATURE}; medians; each case in its own process (peak RSS = that process's maxRSS); ` +
  'load = 1-minute load average before the case (one per run); cpu/wall = CPU time of all threads / wall time\n');

const loadavg = () => (existsSync('/proc/loadavg') ? readFileSync('/proc/loadavg', 'utf8').split(' ')[0] : '-');
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const rows = [];
for (const spec of cases.filter((c) => only === undefined || c.name.includes(only))) {
  const repeats = repeatAll ?? spec.repeats ?? 1;
  const runs = [];
  const loads = [];
  for (let r = 0; r < repeats; r++) {
    process.stderr.write(`running ${spec.name}${repeats > 1 ? ` (${r + 1} of ${repeats})` : ''} ...\n`);
    loads.push(loadavg());
    const nodeOut = join(work, 'node.json');
    const node = runChild(process.execPath, ['--expose-gc', join(root, 'bench', 'node-case.mjs'), inputsPath, spec.name, nodeOut], nodeOut);
    let ref = null;
    if (havePython && !spec.nodeOnly) {
      const refOut = join(work, 'ref.json');
      ref = runChild(python, [join(root, 'bench', 'reference.py'), inputsPath, spec.name, refOut], refOut, referenceEnv);
    }
    runs.push({ node, ref });
  }
  rows.push({ spec, ...combineRuns(runs), loads });
}
if (only === undefined || 'serve: 1000 requests of B = 32'.includes(only)) rows.push(await serveCase());
rmSync(work, { recursive: true, force: true });

/**
 * One row from repeated runs: each side's median of its runs' medians, and the median of the
 * runs' ratios (a node run and the reference run right after it share the machine's load).
 */
function combineRuns(runs) {
  if (runs.length === 1) return runs[0];
  const failed = runs.find((r) => r.node.error || r.ref?.error);
  if (failed) return failed;
  const pick = (side, key) => median(runs.map((r) => r[side][key]));
  const node = { ...runs[0].node, medianMs: pick('node', 'medianMs'), cpuPerWall: pick('node', 'cpuPerWall') };
  const ref = runs[0].ref && { ...runs[0].ref, medianMs: pick('ref', 'medianMs'), cpuPerWall: pick('ref', 'cpuPerWall') };
  const ratios = ref ? runs.map((r) => r.ref.medianMs / r.node.medianMs) : [];
  return { node, ref, ratios };
}

// ---- the table -------------------------------------------------------------------------------
const fmtMs = (ms) => (ms === undefined ? '-' : ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : ms >= 1 ? `${ms.toFixed(2)} ms` : `${(ms * 1000).toFixed(1)} us`);
const fmtMb = (r) => (r && !r.error && r.maxRssMb !== undefined ? `${r.maxRssMb.toFixed(0)} (+${(r.maxRssMb - r.rssSetupMb).toFixed(0)})` : '-');
const table = [
  ['case', 'load', 'node', 'threads', 'cpu/wall', 'reference', 'cpu/wall', 'ratio', 'max |db|', 'node RSS MB (+growth)', 'ref RSS MB (+growth)', 'target', 'met'],
];
const fmtThreads = (node) => (node.error || node.threads === undefined ? '-' : `${node.threads}${node.threads > 1 ? ` (${node.workerBlocks}/8 blocks by workers)` : ''}${node.threadReason ? ` [${node.threadReason}]` : ''}`);
const fmtCpu = (r) => (r && !r.error && r.cpuPerWall !== undefined ? r.cpuPerWall.toFixed(2) : '-');
for (const { spec, node, ref, ratios, loads } of rows) {
  const ratio = node.error || !ref || ref.error ? undefined : ratios?.length ? median(ratios) : ref.medianMs / node.medianMs;
  const ratioText = ratio === undefined ? '-' : ratios?.length > 1 ? `${ratio.toFixed(1)}x (${Math.min(...ratios).toFixed(1)}-${Math.max(...ratios).toFixed(1)}, ${ratios.length} runs)` : `${ratio.toFixed(1)}x`;
  let diff = '-';
  if (node.baselines && ref?.baselines) {
    diff = Math.max(...node.baselines.map((b, i) => Math.abs(b - ref.baselines[i]))).toExponential(1);
  }
  const checks = [];
  if (spec.minRatio !== undefined && ratio !== undefined) checks.push(ratio >= spec.minRatio);
  if (spec.maxMs !== undefined && !node.error) checks.push(node.medianMs <= spec.maxMs);
  if (spec.maxRssMb !== undefined && !node.error) checks.push(node.maxRssMb <= spec.maxRssMb);
  if (spec.maxGrowthMb !== undefined && !node.error) checks.push(node.maxRssMb - node.rssSetupMb <= spec.maxGrowthMb);
  table.push([
    spec.name,
    loads ? loads.join(' ') : '-',
    node.error ? `error: ${node.error}` : fmtMs(node.medianMs),
    fmtThreads(node),
    fmtCpu(node),
    spec.nodeOnly ? `(${spec.nodeOnly})` : ref === null ? '(no python)' : ref.error ? `error: ${ref.error}` : fmtMs(ref.medianMs),
    fmtCpu(ref),
    ratioText,
    diff,
    fmtMb(node),
    fmtMb(ref),
    spec.target ?? '',
    checks.length === 0 ? '' : checks.every(Boolean) ? 'yes' : 'NO',
  ]);
}
const widths = table[0].map((_, c) => Math.max(...table.map((row) => String(row[c]).length)));
for (const [i, row] of table.entries()) {
  console.log(row.map((cell, c) => String(cell).padEnd(widths[c])).join(' | '));
  if (i === 0) console.log(widths.map((w) => '-'.repeat(w)).join('-|-'));
}

// ---- rl-adv serve: 1000 requests of B = 32 after start-up ------------------------------------
async function serveCase() {
  const spec = { name: 'serve: 1000 requests of B = 32', nodeOnly: 'no reference', target: '<= 1 s after start-up', maxMs: 1000 };
  const cli = join(root, 'dist', 'cli.js');
  if (!existsSync(cli)) return { spec, node: { error: 'dist/cli.js missing' }, ref: null };
  process.stderr.write(`running ${spec.name} ...\n`);
  const child = spawn(process.execPath, [cli, 'serve', '--corpus', join(gsm8kDir, 'train.jsonl')], { stdio: ['pipe', 'pipe', 'pipe'] });
  let buffered = '';
  let answered = 0;
  let waiting = null;
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  child.stdout.on('data', (chunk) => {
    buffered += chunk;
    let at;
    while ((at = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, at);
      buffered = buffered.slice(at + 1);
      if (line.includes('"error"')) stderr += line + '\n';
      answered++;
      if (waiting && answered >= waiting.count) waiting.resolve();
    }
  });
  const until = (count) => new Promise((resolveWait, rejectWait) => {
    waiting = { count, resolve: resolveWait };
    child.on('exit', () => rejectWait(new Error(stderr.trim() || 'serve exited')));
  });
  const request = (id, batch) =>
    JSON.stringify({ id, estimator: `tfidf_kernel_loo_T${TEMPERATURE}`, rewards: rewardsFor(32, id), prompts: batch }) + '\n';
  try {
    // Start-up (fitting the vectorizer) ends with the answer to a first request.
    child.stdin.write(request(0, rotatingBatches[0]));
    await until(1);
    const lines = Array.from({ length: 1000 }, (_, k) => request(k + 1, rotatingBatches[(k + 1) % rotatingBatches.length])).join('');
    const started = performance.now();
    child.stdin.write(lines);
    await until(1001);
    const ms = performance.now() - started;
    child.stdin.end();
    if (stderr.includes('"error"')) return { spec, node: { error: stderr.slice(0, 200) }, ref: null };
    return { spec, node: { medianMs: ms }, ref: null };
  } catch (error) {
    child.kill();
    return { spec, node: { error: error.message.slice(0, 200) }, ref: null };
  }
}
