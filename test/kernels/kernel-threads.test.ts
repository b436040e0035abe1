// The kernel's row blocks on worker threads (src/kernels/kernel-threads.ts) give the same bits as
// on one thread, and the blocked, symmetric kernel agrees with the plain form on batches large
// enough to be cut into blocks and tiles. The worker script is the built one (dist/, made by
// `npm run build`, which `npm test` runs first).
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import seedrandom from 'seedrandom';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { kernelBaselines, sparseKernelBaselines, unitsByKey } from '../../src/kernels/kernel.js';
import { configureKernelThreads, kernelThreadState, lastKernelRun, threadsFromEnv } from '../../src/kernels/kernel-threads.js';
import { RlAdvantagesError } from '../../src/errors.js';
import { batchShift, BLOCK_MIN_UNITS, rowBlocks } from '../../src/kernels/sparse-kernel.js';
import { sparseSimilarityRow, transposeCsr } from '../../src/kernels/sparse.js';
import { TfidfVectorizer } from '../../src/text/tfidf.js';
import { maxAbsDiff, repoRoot } from '../helpers/paths.js';

const workerPath = resolve(repoRoot, 'dist', 'kernel-worker.js');

/** U distinct prompts over a small vocabulary (common and rare words), and rewards. */
function bigBatch(units: number, seed: string): { prompts: string[]; rewards: Float64Array; vectorizer: TfidfVectorizer } {
  const random = seedrandom(seed);
  const words = Array.from({ length: 400 }, (_, k) => `w${k.toString(36)}x`);
  const prompts = Array.from({ length: units }, (_, i) => {
    const length = 3 + Math.floor(random() * 12);
    // Squaring skews towards the first words, so some terms are in most prompts (long postings).
    const picked = Array.from({ length }, () => words[Math.floor(random() ** 2 * words.length)] as string);
    return `${picked.join(' ')} id${i}`;
  });
  const rewards = Float64Array.from(prompts, () => [-0.1, 0, 0.9, 1][Math.floor(random() * 4)] as number);
  return { prompts, rewards, vectorizer: TfidfVectorizer.fit(prompts.slice(0, units >> 1)) };
}

afterAll(() => configureKernelThreads({}));

describe('rowBlocks', () => {
  it('cuts U >= BLOCK_MIN_UNITS into ascending blocks of about equal pair counts, fewer into one', () => {
    expect(Array.from(rowBlocks(10))).toEqual([0, 10]);
    const bounds = rowBlocks(BLOCK_MIN_UNITS * 2);
    const units = BLOCK_MIN_UNITS * 2;
    const pairs = (from: number, to: number): number => {
      let n = 0;
      for (let u = from; u < to; u++) n += units - 1 - u;
      return n;
    };
    const shares = Array.from({ length: bounds.length - 1 }, (_, b) => pairs(bounds[b] as number, bounds[b + 1] as number));
    const total = (units * (units - 1)) / 2;
    for (const share of shares) expect(Math.abs(share - total / shares.length)).toBeLessThanOrEqual(units);
    expect(bounds[0]).toBe(0);
    expect(bounds[bounds.length - 1]).toBe(units);
  });
});

describe('blocked symmetric kernel on large batches', () => {
  for (const temperature of [0.001, 0.1, 3]) {
    it(`agrees with the one-row-at-a-time form within 1e-12 at U = 2300, T = ${temperature}`, () => {
      configureKernelThreads({ threads: 1 });
      const { prompts, rewards, vectorizer } = bigBatch(2300, `big-${temperature}`);
      // Every prompt twice for the first 50: units with copies (self weights) among the blocks.
      const withCopies = [...prompts, ...prompts.slice(0, 50)];
      const allRewards = Float64Array.from([...rewards, ...rewards.slice(0, 50).map((r) => 1 - r)]);
      const units = unitsByKey(withCopies);
      const x = vectorizer.transform(prompts);
      const xt = transposeCsr(x);
      // T = 0.1 and 3: one shift for the batch, one exponential a pair; T = 0.001: running maxima.
      expect(Number.isNaN(batchShift(x, 1 / temperature))).toBe(temperature === 0.001);
      const fast = sparseKernelBaselines(allRewards, units, x, temperature);
      const plain = kernelBaselines(allRewards, units, (u, out) => sparseSimilarityRow(x, xt, u, out), temperature);
      expect(fast.every(Number.isFinite)).toBe(true);
      expect(maxAbsDiff(Array.from(fast), Array.from(plain))).toBeLessThanOrEqual(1e-12);
    });
  }
});

describe('worker threads', () => {
  it('the built worker script exists (npm run build)', () => {
    expect(existsSync(workerPath)).toBe(true);
  });

  it('gives bit-identical baselines with 2 threads and with 1, and the worker does share the work', () => {
    const { prompts, rewards, vectorizer } = bigBatch(4000, 'threads');
    const units = unitsByKey(prompts);
    const x = vectorizer.transform(prompts);
    configureKernelThreads({ threads: 1 });
    const one = sparseKernelBaselines(rewards, units, x, 0.1);
    expect(lastKernelRun().byCaller).toBe(lastKernelRun().blocks);
    configureKernelThreads({ threads: 2, workerUrl: pathToFileURL(workerPath) });
    let shared = false;
    for (let attempt = 0; attempt < 5 && !shared; attempt++) {
      const two = sparseKernelBaselines(rewards, units, x, 0.1);
      expect(two.every((b, i) => Object.is(b, one[i]))).toBe(true);
      shared = lastKernelRun().byCaller < lastKernelRun().blocks;
    }
    expect(shared).toBe(true);
  });
});

describe('batchShift', () => {
  const csr = (data: number[]): { rows: number; cols: number; indptr: Int32Array; indices: Int32Array; data: Float64Array } => ({
    rows: 2,
    cols: 2,
    indptr: Int32Array.from([0, 1, 2]),
    indices: Int32Array.from([0, 1]),
    data: Float64Array.from(data),
  });

  it('is the largest s_uu when that over T is at most 600, else NaN (the per-row maxima are used)', () => {
    expect(batchShift(csr([0.6, 0.8]), 10)).toBeCloseTo(0.64, 15);
    expect(batchShift(csr([0.6, 0.8]), 937)).toBeCloseTo(0.64, 15); // 0.64 * 937 = 599.7
    expect(batchShift(csr([0.6, 0.8]), 938)).toBeNaN(); // 600.3
    expect(batchShift(csr([0, 0]), 1e6)).toBe(0); // empty prompts: every s = 0
  });

  it('is NaN when an entry is negative (the maximum of a unit could be far below the shift)', () => {
    expect(batchShift(csr([0.6, -0.8]), 1)).toBeNaN();
  });
});

describe('RL_ADV_THREADS', () => {
  it('unset or empty: no cap; a positive integer (spaces allowed around it): that cap', () => {
    expect(threadsFromEnv({})).toBeUndefined();
    expect(threadsFromEnv({ RL_ADV_THREADS: '' })).toBeUndefined();
    expect(threadsFromEnv({ RL_ADV_THREADS: '  ' })).toBeUndefined();
    expect(threadsFromEnv({ RL_ADV_THREADS: '1' })).toBe(1);
    expect(threadsFromEnv({ RL_ADV_THREADS: ' 12 ' })).toBe(12);
  });

  it('anything else throws RlAdvantagesError naming the variable and the value', () => {
    for (const bad of ['0', '00', '-1', '1.5', '2e0', 'two', '0x2', '+3', '3 threads']) {
      let caught: unknown;
      try {
        threadsFromEnv({ RL_ADV_THREADS: bad });
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(RlAdvantagesError);
      expect((caught as RlAdvantagesError).field).toBe('RL_ADV_THREADS');
      expect((caught as Error).message).toContain(`got ${JSON.stringify(bad)}`);
    }
  });

  it('caps the threads wanted (and the CPUs and the 8 blocks cap them too)', () => {
    const saved = process.env.RL_ADV_THREADS;
    try {
      configureKernelThreads({});
      process.env.RL_ADV_THREADS = '1';
      expect(kernelThreadState().wanted).toBe(1);
      process.env.RL_ADV_THREADS = '1000';
      expect(kernelThreadState().wanted).toBe(Math.min(availableParallelism(), 8));
    } finally {
      if (saved === undefined) delete process.env.RL_ADV_THREADS;
      else process.env.RL_ADV_THREADS = saved;
    }
  });
});

describe('thread state', () => {
  it('says why the kernel ran alone when the worker script cannot be found; the caller ran every block', () => {
    configureKernelThreads({ threads: 2, workerUrl: pathToFileURL(resolve(repoRoot, 'dist', 'no-such-worker.js')) });
    const { prompts, rewards, vectorizer } = bigBatch(2100, 'state');
    const x = vectorizer.transform(prompts);
    expect(kernelThreadState()).toMatchObject({ wanted: 2, started: 0, reason: null });
    sparseKernelBaselines(rewards, unitsByKey(prompts), x, 0.1);
    // The missing script is reported by the worker's 'error' event, after the batch: the caller
    // claimed every block itself meanwhile.
    expect(lastKernelRun()).toEqual({ blocks: 8, byCaller: 8 });
    // The worker has to boot to find its script missing: seconds on a busy machine.
    return vi.waitFor(
      () => {
        const state = kernelThreadState();
        expect(state.started).toBe(1);
        expect(state.reason).toMatch(/^a kernel worker failed: /);
      },
      { timeout: 20_000, interval: 50 },
    );
  });
});
