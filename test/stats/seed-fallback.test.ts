// The seed-level decision's honest cases (docs/method.md section 5.8): the MS_error floor, no interval when no
// variance can be estimated, n = 1, seeds on their own items, and the outlying seed. Figures worked by hand.
import { describe, expect, it } from 'vitest';
import { RlAdvantagesError } from '../../src/index.js';
import { decideAcrossSeeds, outlyingSeeds, parseDecisionRule, seedDecisionJson, seedInterval, seedMeansInterval } from '../../src/stats/index.js';

const criterion = { id: 'primary', metric: 'accuracy', bounds: [0, 1], margin: -0.05, weights: { treatment: 1, baseline: -1 } };
const rule = (extra: Record<string, unknown> = {}) => parseDecisionRule({ method: 'paired_hoeffding', alpha: 0.05, criteria: [criterion], ...extra });
const arm = (ids: readonly number[], right: (i: number) => boolean) => ids.map((i) => ({ item_id: `q${i}`, correct: right(i) }));
const range = (n: number, from = 0) => Array.from({ length: n }, (_, i) => from + i);
// t quantiles from closed forms: df = 1 tan(pi (1/2 - p)), df = 2 (1 - 2p) / sqrt(2p(1 - p)).
const T1 = Math.tan(Math.PI * (0.5 - 0.025));
const T2 = 0.95 / Math.sqrt(2 * 0.025 * 0.975);

describe('no verdict from a degenerate interval', () => {
  it("the issue's case: 2 seeds x 3 items, every item right in both arms, is inconclusive with no interval", () => {
    const all = arm(range(3), () => true);
    const d = decideAcrossSeeds({ replicates: [0, 1].map((seed) => ({ seed, treatment: all, baseline: all })), rule: rule() });
    expect(d.verdict).toBe('inconclusive');
    expect(d.interval).toEqual([-1, 1]);
    expect(d.fallback).toMatchObject({ rule: 'whole_range', reason: 'no_variation' });
    const json = JSON.stringify(seedDecisionJson(d));
    expect(json).not.toMatch(/NaN|Infinity|e\+308/);
  });

  it('tied per-seed means (MS_seed = 0 < MS_error) take MS_error in MS_seed\'s place, never a zero width', () => {
    // Rows [1, 0] and [0, 1]: row means 1/2, 1/2 (MS_seed = 0), column means 1/2, 1/2 (MS_item = 0),
    // residuals +-1/2: MS_error = 4 (1/4) / 1 = 1. se = sqrt(1 / 4) = 1/2 for both methods.
    const rows = [Float64Array.of(1, 0), Float64Array.of(0, 1)];
    for (const method of ['seed_t', 'seed_item_t'] as const) {
      const iv = seedInterval({ differences: rows, alpha: 0.05, method });
      expect(iv.floored).toBe(true);
      expect(iv.degenerate).toBeNull();
      expect(iv.standardError).toBeCloseTo(0.5, 15);
      expect(iv.halfWidth).toBeCloseTo(T1 * 0.5, 12);
    }
    const d = decideAcrossSeeds({
      replicates: [
        { seed: 0, treatment: arm([0, 1], (i) => i === 0), baseline: arm([0, 1], () => false) },
        { seed: 1, treatment: arm([0, 1], (i) => i === 1), baseline: arm([0, 1], () => false) },
      ],
      rule: rule(),
    });
    expect(d.fallback).toMatchObject({ rule: 'ms_error_floor', reason: 'seed_spread_below_noise' });
    expect(d.verdict).toBe('inconclusive');
  });

  it('n = 1: seed_item_t gives no interval; seed_t speaks for that one item only', () => {
    const reps = [1, 0, 1].map((r, seed) => ({ seed, treatment: arm([0], () => r === 1), baseline: arm([0], () => false) }));
    const item = decideAcrossSeeds({ replicates: reps, rule: rule() });
    expect([item.verdict, item.fallback?.reason, item.interval]).toEqual(['inconclusive', 'one_item', [-1, 1]]);
    const t = decideAcrossSeeds({ replicates: reps, rule: rule(), method: 'seed_t' });
    // per-seed 1, 0, 1: mean 2/3, sd sqrt(1/3), se sqrt(1/9) = 1/3.
    expect(t.standardError).toBeCloseTo(1 / 3, 15);
    expect(t.interval[0]).toBeCloseTo(Math.max(-1, 2 / 3 - T2 / 3), 12);
    expect(t.fallback).toBeNull();
  });

  it('labels each interval with its level, 1 - alpha/k', () => {
    const two = rule({ criteria: [criterion, { ...criterion, id: 'second' }] });
    const reps = [0, 1, 2].map((seed) => ({ seed, treatment: arm(range(10), (i) => (i + seed) % 3 === 0), baseline: arm(range(10), (i) => i % 2 === 0) }));
    const d = decideAcrossSeeds({ replicates: reps, rule: two });
    expect(d.level).toBeCloseTo(0.975, 15);
    expect(seedDecisionJson(d).criteria.map((c) => c.level)).toEqual([0.975, 0.975]);
  });
});

describe('seeds on their own items', () => {
  it('seedMeansInterval: a t on the per-seed means, floored at the mean within-seed variance over n_s', () => {
    // Seeds [1, 0, 0], [0, 1], [1, 1, 0, 0]: means 1/3, 1/2, 1/2 (mean 4/9); V = ((1/9)^2 + 2 (1/18)^2) / 2 = 1/108;
    // within variances 1/3, 1/2, 1/3 over n_s 3, 2, 4: F = (1/9 + 1/4 + 1/12) / 3 = 4/27 > V.
    const iv = seedMeansInterval({ differences: [Float64Array.of(1, 0, 0), Float64Array.of(0, 1), Float64Array.of(1, 1, 0, 0)], alpha: 0.05 });
    expect(iv.estimate).toBeCloseTo(4 / 9, 15);
    expect(iv.perSeedDifferenceSd).toBeCloseTo(Math.sqrt(1 / 108), 15);
    expect(iv.floored).toBe(true);
    expect(iv.standardError).toBeCloseTo(Math.sqrt(4 / 27 / 3), 15);
    expect(iv.halfWidth).toBeCloseTo(T2 * Math.sqrt(4 / 81), 12);
    expect(iv.runToRunSd).toBe(0);
  });

  it('decideAcrossSeeds takes disjoint item sets when the rule or the call says per_seed, and refuses them otherwise, naming the way out', () => {
    const reps = [0, 1, 2].map((seed) => {
      const ids = range(20, 100 * seed);
      return { seed, treatment: arm(ids, (i) => i % 3 !== 0), baseline: arm(ids, (i) => i % 2 === 0) };
    });
    expect(() => decideAcrossSeeds({ replicates: reps, rule: rule() })).toThrow(/seed_items "per_seed"/);
    const d = decideAcrossSeeds({ replicates: reps, rule: rule({ seed_items: 'per_seed' }) });
    expect(d.itemSets).toBe('per_seed');
    expect(d).toEqual(decideAcrossSeeds({ replicates: reps, rule: rule(), itemSets: 'per_seed' }));
    const iv = seedMeansInterval({ differences: d.perSeed.map((p) => Float64Array.of(...[p.estimate])), alpha: 0.05 });
    expect(d.estimate).toBeCloseTo(iv.estimate, 15);
    expect(() => rule({ seed_items: 'own' })).toThrow(/seed_items/);
    expect(() => decideAcrossSeeds({ replicates: reps, rule: rule(), itemSets: 'own' as 'shared' })).toThrow(RlAdvantagesError);
  });
});

describe('the outlying seed', () => {
  it('modified z-score > 3.5 against the median; MAD = 0 falls back to the mean absolute deviation; S < 3 never', () => {
    expect(outlyingSeeds([0.01, 0.02, 0.015, -0.14, 0.012]).map((o) => o.index)).toEqual([3]);
    // MAD = 0 (three of five tie): scale 1.2533 x mean |d - median| = 1.2533 x 0.15 / 5; -0.15 scores 0.15 / 0.0376 = 3.99.
    const tied = outlyingSeeds([0, 0, 0, 0.0, -0.15]);
    expect(tied.map((o) => o.index)).toEqual([4]);
    expect(tied[0]?.score).toBeCloseTo(0.15 / ((1.2533 * 0.15) / 5), 12);
    expect(outlyingSeeds([0, 0, 0])).toEqual([]);
    expect(outlyingSeeds([0, 1])).toEqual([]);
    expect(outlyingSeeds([0.01, 0.02, 0.03, 0.04, 0.05])).toEqual([]);
  });

  it('a collapsed seed is flagged in the decision and its JSON', () => {
    const ids = range(200);
    const reps = [0, 1, 2, 3, 4].map((seed) => ({
      seed,
      // differences 0, 0.005, 0.01, -0.2 (the collapsed run), 0.02: median 0.005, MAD 0.005.
      treatment: arm(ids, (i) => (seed === 3 ? i < 60 : i < 100 + seed)),
      baseline: arm(ids, (i) => i < 100),
    }));
    const d = decideAcrossSeeds({ replicates: reps, rule: rule() });
    expect(d.outliers.map((o) => o.seed)).toEqual([3]);
    expect(seedDecisionJson(d).outliers[0]?.estimate).toBeCloseTo(-0.2, 15);
  });
});
