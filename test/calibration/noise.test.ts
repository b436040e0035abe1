// noise: 'pooled' | 'per-task' (docs/method.md section 4.2) against a known truth with unequal G_k.
import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import { calibrateBeff, type CalibrationTask } from '../../src/calibration/beff.js';

/**
 * K tasks: 40% of mid difficulty (p = 0.5) with G = 2 rollouts, the rest easy or hard (p = 0.05 or 0.95) with
 * G = 8 (a design that spends few rollouts where the outcome is most uncertain). True values over the K tasks,
 * a task drawn uniformly: sigma^2 = mean p(1 - p) = 0.4 * 0.25 + 0.6 * 0.0475 = 0.1285; the pooled estimate
 * weighs the G = 8 tasks 7 times as much and lands near 0.065.
 */
function unequalTasks(K: number, seed: string): { tasks: CalibrationTask[]; p: number[] } {
  const rng = seedrandom(seed);
  const p: number[] = [];
  const tasks = Array.from({ length: K }, (_, k) => {
    const mid = k % 5 < 2;
    const pk = mid ? 0.5 : k % 2 === 0 ? 0.05 : 0.95;
    p.push(pk);
    const rewards = Array.from({ length: mid ? 2 : 8 }, () => (rng() < pk ? 1 : 0));
    return { taskId: `t${k}`, prompt: `task ${k}`, rewards };
  });
  return { tasks, p };
}

/**
 * The exact MSE of the LOO batch mean against the true success rate for batches of B distinct tasks drawn
 * uniformly from K with success rates p: E(b - p_i)^2 = mean sigma^2 / (B - 1) + V (K - B + 1) / ((B - 1)(K - 1))
 * + V + 2 V / (K - 1), V the population variance of p (divisor K): the noise of the other rollouts plus the
 * spread of p, sampling without replacement.
 */
function looMseTruth(p: readonly number[], B: number): number {
  const K = p.length;
  const mean = p.reduce((s, x) => s + x, 0) / K;
  const V = p.reduce((s, x) => s + (x - mean) ** 2, 0) / K;
  const sigma2 = p.reduce((s, x) => s + x * (1 - x), 0) / K;
  return sigma2 / (B - 1) + (V * (K - B + 1)) / ((B - 1) * (K - 1)) + V + (2 * V) / (K - 1);
}

describe("calibrateBeff's noise model with unequal G_k", () => {
  const K = 3000;
  const B = 32;
  const { tasks, p } = unequalTasks(K, 'noise-test');
  const sigma2 = p.reduce((s, x) => s + x * (1 - x), 0) / K;
  const options = { batchSize: B, batches: 4000, estimators: [] as string[], seed: 'noise', interval: 'none' as const };
  const perTask = calibrateBeff(tasks, { ...options, noise: 'per-task' });
  const pooled = calibrateBeff(tasks, options);

  it('per-task recovers sigma_eps^2 and the corrected MSE; pooled is biased', () => {
    expect(sigma2).toBeCloseTo(0.1285, 12);
    // Per-task: the mean of s_k^2, SD about 0.003 here (1200 two-rollout tasks with s^2 in {0, 0.5}).
    expect(Math.abs((perTask.sigmaEps2 as number) - sigma2)).toBeLessThan(0.012);
    expect(pooled.sigmaEps2 as number).toBeLessThan(sigma2 - 0.05);
    expect(perTask.noise).toBe('per-task');
    expect(pooled.noise).toBe('pooled');
    const truth = looMseTruth(p, B);
    const loo = (c: typeof perTask) => c.estimators.loo_batch_mean?.mseCorrected as number;
    // Monte-Carlo SE of the MSE over 4000 x 32 rollouts with G = 2 targets is about 0.002.
    expect(Math.abs(loo(perTask) - truth)).toBeLessThan(0.012);
    expect(loo(pooled) - truth).toBeGreaterThan(0.04);
  });

  it('gives the same sigma_eps^2 as pooled when every G_k is equal, and the same corrected MSE in expectation', () => {
    const equal = tasks.slice(0, 400).map((t, k) => ({ ...t, rewards: [...t.rewards, ...t.rewards].slice(0, 4).map((r, g) => (g === 3 ? 1 - r : r)), taskId: `e${k}` }));
    const a = calibrateBeff(equal, { ...options, noise: 'per-task', interval: 'jackknife' });
    const b = calibrateBeff(equal, { ...options, interval: 'jackknife' });
    expect(a.sigmaEps2 as number).toBeCloseTo(b.sigmaEps2 as number, 14);
    // Per batch the two corrections differ (the drawn tasks' own s_k^2 against their mean), by far less than the
    // MSE's Monte-Carlo error here (about 1e-3).
    const mse = (c: typeof a) => c.estimators.loo_batch_mean?.mseCorrected as number;
    expect(Math.abs(mse(a) - mse(b))).toBeLessThan(2e-4);
  });
});
