// The kernel's workers start however Node was started (issue 15): a script given with
// `node --input-type=module -e` or on stdin used to pass its flags to the worker, which then failed
// to start, and the kernel fell back to one thread silently. Each case runs the built library
// (dist/, made by `npm run build`) in a Node process of its own on one batch of 2300 distinct
// prompts, and prints the thread state and the baselines' bits.
import { spawnSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/paths.js';

const distUrl = pathToFileURL(resolve(repoRoot, 'dist', 'index.js')).href;

// 2300 distinct prompts (8 row blocks), common and rare words, deterministic.
const SCRIPT = `
import { tfidfKernelLoo, TfidfVectorizer, kernelThreadState } from ${JSON.stringify(distUrl)};
const words = Array.from({ length: 300 }, (_, k) => 'w' + k.toString(36) + 'x');
let seed = 7;
const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
const prompts = Array.from({ length: 2300 }, (_, i) =>
  Array.from({ length: 4 + (i % 9) }, () => words[Math.floor(random() ** 2 * words.length)]).join(' ') + ' id' + i);
const rewards = prompts.map(() => [-0.1, 0, 0.9, 1][Math.floor(random() * 4)]);
const vectorizer = TfidfVectorizer.fit(prompts.slice(0, 1000));
const before = kernelThreadState();
let used = 0;
let bits = '';
// A busy machine can leave the worker no time to claim a block: a few batches, as a caller would.
for (let attempt = 0; attempt < 5 && used === 0; attempt++) {
  const { baselines } = tfidfKernelLoo({ rewards, prompts }, { vectorizer, temperature: 0.1 });
  bits = Buffer.from(Float64Array.from(baselines).buffer).toString('hex');
  used = kernelThreadState().lastBatch.byWorkers;
}
// Let any worker error event arrive before the state is read.
await new Promise((done) => setTimeout(done, 100));
console.log(JSON.stringify({ before, after: kernelThreadState(), bits }));
`;

interface Outcome {
  before: { wanted: number; started: number; reason: string | null };
  after: { wanted: number; started: number; reason: string | null; lastBatch: { blocks: number; byWorkers: number } };
  bits: string;
}

function run(args: string[], options: { input?: string; threads?: string } = {}): { outcome?: Outcome; stderr: string; code: number | null } {
  const env = { ...process.env };
  delete env.RL_ADV_THREADS;
  if (options.threads !== undefined) env.RL_ADV_THREADS = options.threads;
  const result = spawnSync(process.execPath, args, { input: options.input ?? '', encoding: 'utf8', env, cwd: repoRoot });
  const line = result.stdout.trim().split('\n').pop() ?? '';
  return { outcome: line.startsWith('{') ? (JSON.parse(line) as Outcome) : undefined, stderr: result.stderr, code: result.status };
}

const twoCpus = availableParallelism() >= 2;

describe('kernel workers from the built library', () => {
  // One thread is the reference every other run must equal bit for bit.
  const one = run(['--input-type=module', '-e', SCRIPT], { threads: '1' });

  it('RL_ADV_THREADS=1 runs every block on the calling thread, with no reason to warn', () => {
    expect(one.stderr).toBe('');
    expect(one.outcome?.after).toEqual({ wanted: 1, started: 1, reason: null, lastBatch: { blocks: 8, byWorkers: 0 } });
  });

  it.skipIf(!twoCpus)('node --input-type=module -e: the worker starts, runs blocks, and the bits equal one thread\'s', () => {
    const { outcome, stderr } = run(['--input-type=module', '-e', SCRIPT], { threads: '2' });
    expect(stderr).toBe('');
    expect(outcome?.before).toEqual({ wanted: 2, started: 0, reason: null, lastBatch: { blocks: 0, byWorkers: 0 } });
    expect(outcome?.after.started).toBe(2);
    expect(outcome?.after.reason).toBeNull();
    expect(outcome?.after.lastBatch.byWorkers).toBeGreaterThan(0);
    expect(outcome?.bits).toBe(one.outcome?.bits);
  });

  it.skipIf(!twoCpus)('a module script on stdin (node --input-type=module < script): the same', () => {
    const { outcome, stderr } = run(['--input-type=module'], { input: SCRIPT, threads: '2' });
    expect(stderr).toBe('');
    expect(outcome?.after.started).toBe(2);
    expect(outcome?.after.reason).toBeNull();
    expect(outcome?.after.lastBatch.byWorkers).toBeGreaterThan(0);
    expect(outcome?.bits).toBe(one.outcome?.bits);
  });

  it('where workers are not allowed (the permission model), the kernel runs alone and says why', () => {
    const { outcome } = run(['--experimental-permission', '--allow-fs-read=*', '--input-type=module', '-e', SCRIPT], { threads: '2' });
    expect(outcome?.after.started).toBe(1);
    expect(outcome?.after.reason).toMatch(/^kernel workers could not start: /);
    expect(outcome?.after.lastBatch).toEqual({ blocks: 8, byWorkers: 0 });
    expect(outcome?.bits).toBe(one.outcome?.bits);
  });

  it('a bad RL_ADV_THREADS is an error that names the variable and the value', () => {
    // Every rejected spelling is checked in-process in kernel-threads.test.ts; this is the user's view.
    for (const bad of ['0', 'two']) {
      const { outcome, stderr, code } = run(['--input-type=module', '-e', SCRIPT], { threads: bad });
      expect(outcome).toBeUndefined();
      expect(code).not.toBe(0);
      expect(stderr).toContain(`RlAdvantagesError: environment variable RL_ADV_THREADS must be a positive integer`);
      expect(stderr).toContain(JSON.stringify(bad));
    }
  });
});
