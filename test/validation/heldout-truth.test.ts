// The truth the tuner's held-out interval is checked against (validation/kernel-lab-heldout-truth.mjs, docs/method.md
// section 4.3): the exact expected squared error of a kernel baseline given a batch's prompts equals the brute-force
// average over every reward vector, with b computed by the library's own `kernel_file` estimator (an independent
// path: energies -> weights -> baseline there, the closed form here); and the committed result files say what the
// docs say.
import { readFileSync } from 'node:fs';
import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import { createEstimator, loadKernel, TextCache } from '../../src/index.js';
import { batchExpectedError, truthRatio } from '../../validation/heldout-truth-core.mjs';

const PROMPTS = ['Sam has 3 apples.', 'Sam has 3 apples and 4 pens. How many?', 'Ann has 12 pens.', 'Bo has 1 and 2 and 3 boxes.', 'x', 'Sam has 3 apples and 4 pens.'];

/** Brute force: the mean over rollouts of sum over all 2^B reward vectors of P(r) (b_i(r) - p_i)^2. */
function bruteForce(estimator: ReturnType<typeof createEstimator>, p: readonly number[]): number {
  const B = p.length;
  let total = 0;
  for (let mask = 0; mask < 1 << B; mask++) {
    const rewards = p.map((_, j) => (mask >> j) & 1);
    const probability = p.reduce((s, q, j) => s * (rewards[j] === 1 ? q : 1 - q), 1);
    const b = estimator.compute({ rewards, prompts: PROMPTS }).baselines;
    for (let i = 0; i < B; i++) total += probability * ((b[i] as number) - (p[i] as number)) ** 2;
  }
  return total / B;
}

describe('the exact held-out truth', () => {
  const rng = seedrandom('heldout-truth-test');
  const p = PROMPTS.map(() => 0.05 + 0.9 * rng());
  const batch = PROMPTS.map((_, i) => i);

  it.each([
    ['numbers, Gaussian', { measure: 'numbers', kernel: 'gaussian', bandwidth: 1 }, { sd: 0.5, scale: 0.5 }],
    ['chars, Laplace', { measure: 'chars', kernel: 'laplace', bandwidth: 0.3 }, { sd: 1, scale: 0.3 }],
  ] as const)('equals the brute-force average over all 2^6 reward vectors (length kernel: %s)', (_label, params, fitted) => {
    const kernel = loadKernel({ format: 'rl-advantages/kernel', version: 1, family: 'length', params, fitted });
    const embedding = kernel.embed(PROMPTS, new TextCache());
    const exact = batchExpectedError((a, b) => embedding.energy(a, b), p, batch);
    // Both are sums of 64 weighted terms of size <= 1: float rounding only.
    expect(Math.abs(exact - bruteForce(createEstimator('kernel_file', { kernel }), p))).toBeLessThan(1e-14);
  });

  it('with null energies is the LOO batch mean, brute-forced the same way', () => {
    const exact = batchExpectedError(null, p, batch);
    expect(Math.abs(exact - bruteForce(createEstimator('loo_batch_mean'), p))).toBeLessThan(1e-14);
  });

  it('pools D kernels as the cross-fit does: (D s2 + D M_ref) / (D s2 + sum M_d)', () => {
    const r = truthRatio(0.2, [0.1, 0.3], [[0.05, 0.25], [0.15, 0.15]]);
    expect(r.ratio).toBeCloseTo((2 * 0.2 + 2 * 0.2) / (2 * 0.2 + 0.1 + 0.2), 15);
  });

  it.each(['calibration', 'single'])('the committed %s result: coverage as counted, within [0.92, 0.99]', (design) => {
    const path = new URL(`../../validation/results/kernel-lab-heldout-truth-${design}.json`, import.meta.url);
    const { summary, results } = JSON.parse(readFileSync(path, 'utf8')) as { summary: { replicates: number; coverage: number }; results: { side: string; truth_se: number; ci95: [number, number] }[] };
    expect(results).toHaveLength(summary.replicates);
    expect(summary.replicates).toBeGreaterThanOrEqual(400);
    expect(summary.coverage).toBe(results.filter((r) => r.side === 'inside').length / summary.replicates);
    expect(summary.coverage).toBeGreaterThanOrEqual(0.92);
    expect(summary.coverage).toBeLessThanOrEqual(0.99);
    // The truth's own Monte-Carlo error is small beside the intervals it is compared with.
    for (const r of results) expect(r.truth_se).toBeLessThan((r.ci95[1] - r.ci95[0]) / 20);
  });
});
