// TF-IDF kernel baselines against the study spec's numpy reference (test/fixtures/tfidf-gsm8k.json,
// written by test/fixtures/generate_fixtures.py with scikit-learn + numpy) and analytic limits.
import { describe, expect, it } from 'vitest';
import { looBatchMean, RlAdvantagesError, TfidfVectorizer, tfidfKernelLoo, createEstimator } from '../../src/index.js';
import { maxAbsDiff, readFixture, trainQuestions } from '../helpers/paths.js';

interface KernelFixture {
  batches: {
    name: string;
    prompts: string[];
    rewards: number[];
    kernels: { temperature: number; stabilised: boolean; baselines: number[]; advantages: number[] }[];
  }[];
}

const fixture = readFixture<KernelFixture>('tfidf-gsm8k.json');
const vectorizer = TfidfVectorizer.fit(trainQuestions());

describe('tfidfKernelLoo against the numpy reference', () => {
  for (const batch of fixture.batches) {
    for (const kernel of batch.kernels) {
      it(`${batch.name} (B = ${batch.rewards.length}), T = ${kernel.temperature}: advantages within 1e-9`, () => {
        const result = tfidfKernelLoo(
          { rewards: batch.rewards, prompts: batch.prompts },
          { vectorizer, temperature: kernel.temperature },
        );
        expect(maxAbsDiff(result.advantages, kernel.advantages)).toBeLessThanOrEqual(1e-9);
        expect(maxAbsDiff(result.baselines, kernel.baselines)).toBeLessThanOrEqual(1e-9);
        expect(result.maxSelfWeight).toBe(0);
        expect(result.advantages.every(Number.isFinite)).toBe(true);
      });
    }
  }
});

describe('tfidfKernelLoo analytic cases', () => {
  // Two clusters of identical prompts; the vocabularies of the clusters are disjoint, so
  // cos = 1 within a cluster and 0 across. For rollout i in a cluster with n members,
  // w = 1 for the n - 1 others in the cluster and e^{-1/T} for the rest:
  //   b_i = (S_in - r_i + e^{-1/T} S_out) / (n - 1 + e^{-1/T} n_out).
  const small = TfidfVectorizer.fit(['apples pears', 'boats trains', 'apples boats']);
  const prompts = ['apples pears', 'apples pears', 'apples pears', 'boats trains', 'boats trains'];
  const rewards = [1, 0.9, 0, 0, -0.1];

  it('a synthetic batch of prompt clusters gives the analytic baseline', () => {
    for (const t of [0.05, 0.1, 0.5, 2]) {
      const e = Math.exp(-1 / t);
      const sA = 1 + 0.9 + 0;
      const sB = 0 + -0.1;
      const expected = rewards.map((r, i) =>
        i < 3 ? (sA - r + e * sB) / (2 + e * 2) : (sB - r + e * sA) / (1 + e * 3),
      );
      const { baselines } = tfidfKernelLoo({ rewards, prompts }, { vectorizer: small, temperature: t });
      expect(maxAbsDiff(baselines, expected)).toBeLessThanOrEqual(1e-15);
    }
  });

  it('identical prompts give exactly the LOO batch mean', () => {
    const same = Array(6).fill('Natalia sold clips to 48 of her friends in April');
    const r = [1, 0, 0.9, -0.1, 0, 1];
    const kernel = tfidfKernelLoo({ rewards: r, prompts: same }, { vectorizer, temperature: 0.1 });
    expect(Array.from(kernel.baselines)).toEqual(Array.from(looBatchMean({ rewards: r }).baselines));
  });

  it('a very large T gives the LOO batch mean; T = 0.001 stays finite', () => {
    const batch = fixture.batches[0] as KernelFixture['batches'][number];
    const loo = looBatchMean({ rewards: batch.rewards }).baselines;
    const wide = tfidfKernelLoo({ rewards: batch.rewards, prompts: batch.prompts }, { vectorizer, temperature: 1e12 });
    expect(maxAbsDiff(wide.baselines, loo)).toBeLessThanOrEqual(1e-12);
    const sharp = tfidfKernelLoo({ rewards: batch.rewards, prompts: batch.prompts }, { vectorizer, temperature: 0.001 });
    expect(sharp.baselines.every(Number.isFinite)).toBe(true);
  });

  it('T -> 0 gives the mean reward of the most similar other prompts', () => {
    // Rollout 0's nearest others are the two other "apples pears" rollouts (cos 1).
    const { baselines } = tfidfKernelLoo({ rewards, prompts }, { vectorizer: small, temperature: 1e-4 });
    expect(baselines[0]).toBeCloseTo((0.9 + 0) / 2, 15);
    expect(baselines[3]).toBeCloseTo(-0.1, 15);
  });

  it('repeated prompts give the same result as the per-rollout formula (GRPO-style batch)', () => {
    const batch = fixture.batches.find((b) => b.name === 'grpo8x4') as KernelFixture['batches'][number];
    const result = createEstimator('tfidf_kernel_loo_T0.1', { vectorizer }).compute({
      rewards: batch.rewards,
      prompts: batch.prompts,
    });
    expect(maxAbsDiff(result.advantages, (batch.kernels[0] as { advantages: number[] }).advantages)).toBeLessThanOrEqual(1e-9);
  });
});

describe('tfidfKernelLoo bad input', () => {
  it('names the field and index', () => {
    const ok = { vectorizer, temperature: 0.1 };
    expect(() => tfidfKernelLoo({ rewards: [1, Number.NaN], prompts: ['a', 'b'] }, ok)).toThrow(/rewards\[1\] must be a finite number, got NaN/);
    expect(() => tfidfKernelLoo({ rewards: [1, 0] }, ok)).toThrow(/prompts is required/);
    expect(() => tfidfKernelLoo({ rewards: [1, 0], prompts: ['a'] }, ok)).toThrow(/prompts has 1 elements but rewards has 2/);
    expect(() => tfidfKernelLoo({ rewards: [1], prompts: ['a'] }, ok)).toThrow(/at least 2/);
    expect(() => tfidfKernelLoo({ rewards: [1, 0], prompts: ['a', 'b'] }, { vectorizer, temperature: 0 })).toThrow(/temperature must be a finite number > 0/);
    expect(() => tfidfKernelLoo({ rewards: [1, 0], prompts: ['a', 'b'] }, { vectorizer, temperature: Infinity })).toThrow(RlAdvantagesError);
    expect(() => tfidfKernelLoo({ rewards: [1, 0], prompts: ['a', 'b'] }, { temperature: 0.1 } as never)).toThrow(/vectorizer is required/);
    expect(() => tfidfKernelLoo({ rewards: [1, 0], prompts: ['a', 7 as unknown as string] }, ok)).toThrow(/prompts\[1\] must be a string/);
  });
});
