import ndarray from 'ndarray';
import { describe, expect, it } from 'vitest';
import { kernelLoo, looBatchMean, createEstimator } from '../../src/index.js';
import { maxAbsDiff } from '../helpers/paths.js';

describe('kernelLoo over feature vectors', () => {
  it('gives the analytic baseline for two orthogonal clusters', () => {
    // cos = 1 within a cluster, 0 across: b_i = (S_in - r_i + e^{-1/T} S_out) / (n_in - 1 + e^{-1/T} n_out).
    const features = [[1, 0], [2, 0], [3, 0], [0, 5], [0, 1]];
    const rewards = [1, 0.5, 0, 1, 0];
    const t = 0.2;
    const e = Math.exp(-1 / t);
    const expected = rewards.map((r, i) => (i < 3 ? (1.5 - r + e * 1) / (2 + 2 * e) : (1 - r + e * 1.5) / (1 + 3 * e)));
    const result = kernelLoo({ rewards, features }, { temperature: t });
    expect(maxAbsDiff(result.baselines, expected)).toBeLessThanOrEqual(1e-15);
    expect(result.maxSelfWeight).toBe(0);
  });

  it('accepts a 2-D ndarray and a 1-D ndarray of rewards, with the same result as arrays', () => {
    const flat = new Float64Array([1, 0, 0.8, 0.6, 0, 1, 0.5, 0.5]);
    const features = ndarray(flat, [4, 2]);
    const rewards = ndarray(new Float64Array([1, 0, 0.9, -0.1]), [4]);
    const a = kernelLoo({ rewards, features }, { temperature: 0.5 });
    const b = kernelLoo({ rewards: [1, 0, 0.9, -0.1], features: [[1, 0], [0.8, 0.6], [0, 1], [0.5, 0.5]] }, { temperature: 0.5 });
    expect(Array.from(a.baselines)).toEqual(Array.from(b.baselines));
  });

  it('a zero feature vector has cosine 0 with everything; equal vectors give the LOO mean', () => {
    const rewards = [1, 0, 0.5];
    const same = kernelLoo({ rewards, features: [[1, 1], [1, 1], [2, 2]] }, { temperature: 0.1 });
    expect(maxAbsDiff(same.baselines, looBatchMean({ rewards }).baselines)).toBeLessThanOrEqual(1e-15);
    const zeros = kernelLoo({ rewards, features: [[0, 0], [0, 0], [0, 0]] }, { temperature: 0.1 });
    expect(maxAbsDiff(zeros.baselines, looBatchMean({ rewards }).baselines)).toBeLessThanOrEqual(1e-15);
  });

  it('uses a similarity function when given, and refuses a non-finite similarity', () => {
    const rewards = [1, 0, 0.5, 0.25];
    // s(i, j) = -|i - j|: with T -> 0 each rollout is predicted by its neighbours at distance 1.
    const result = createEstimator('kernel_loo_T0.0001', { similarity: (i, j) => -Math.abs(i - j) }).compute({ rewards });
    expect(maxAbsDiff(result.baselines, [0, 0.75, 0.125, 0.5])).toBeLessThanOrEqual(1e-15);
    expect(() => kernelLoo({ rewards }, { temperature: 1, similarity: () => Number.NaN })).toThrow(/similarity\(0, 1\) must be a finite number/);
  });

  it('refuses missing or ragged features, naming the index', () => {
    expect(() => kernelLoo({ rewards: [1, 0] }, { temperature: 1 })).toThrow(/features/);
    expect(() => kernelLoo({ rewards: [1, 0], features: [[1, 0], [1]] }, { temperature: 1 })).toThrow(/features\[1\] must be a vector of length 2/);
    expect(() => kernelLoo({ rewards: [1, 0], features: [[1, 0], [1, Number.NaN]] }, { temperature: 1 })).toThrow(/features\[1\]\[1\] must be a finite number/);
    expect(() => kernelLoo({ rewards: [1, 0, 1], features: [[1], [1]] }, { temperature: 1 })).toThrow(/features has 2 vectors but rewards has 3/);
    expect(() => kernelLoo({ rewards: [1, 0], features: [[1], [1]] }, { temperature: -1 })).toThrow(/temperature/);
  });
});
