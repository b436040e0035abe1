// The held-out interval of tune-kernel is the jackknife on the log of the ratio (docs/method.md section 4.3): inside
// (0, inf), the range of a ratio of variances, and symmetric on the log scale around the ratio.
import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import { tuneKernel } from '../../src/tuning/tune.js';

describe('held-out interval on the log scale', () => {
  it.each(['a', 'b', 'c'])('seed %s: every family interval is inside (0, inf), around the ratio, log-symmetric to 1e-12', (seed) => {
    const rng = seedrandom(seed);
    // 16 tasks, one rollout each, B = 4: a small, noisy held-out set, where a symmetric interval is widest.
    const rows = Array.from({ length: 16 }, (_, k) => ({ task_id: `t${k}`, prompt: `question ${k} ${'word '.repeat(Math.floor(rng() * 20))}`, reward: rng() < 0.5 ? 1 : 0 }));
    const result = tuneKernel(rows, { families: ['length', 'tfidf'], batchSize: 4, batches: 200, seed: 0 });
    const intervals = [[result.heldOut.ratio, result.heldOut.ci95] as const, ...result.perFamily.map((f) => [f.held_out, f.held_out_ci95] as const)];
    for (const [ratio, ci] of intervals) {
      if (ci === null || ci === undefined || ratio === null) throw new Error('no interval');
      const [lo, hi] = ci;
      expect(lo).toBeGreaterThan(0);
      expect(lo).toBeLessThanOrEqual(ratio);
      expect(hi).toBeGreaterThanOrEqual(ratio);
      expect(Math.abs(Math.log(hi / ratio) - Math.log(ratio / lo))).toBeLessThan(1e-12);
    }
    expect(result.kernel.provenance?.held_out.interval_method).toBe('jackknife_log_ratio');
  });
});
