// Identical seeds (issue 39): every seed gives the same per-item differences, so no variance can be estimated, at any
// S and for both seed methods (docs/method.md section 5.8, "How M = 0 is tested"). Rounding left the mean squares near
// 1e-33 and a zero-width interval said "validated"; the test is now the rows' identity, exactly.
import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import { decideAcrossSeeds, parseDecisionRule, seedDecisionJson, seedInterval, seedMeansInterval } from '../../src/stats/index.js';

const criterion = { id: 'primary', metric: 'accuracy', bounds: [0, 1], margin: -0.05, weights: { treatment: 1, baseline: -1 } };
const rule = (extra: Record<string, unknown> = {}) => parseDecisionRule({ method: 'paired_hoeffding', alpha: 0.05, criteria: [criterion], ...extra });

describe('identical seeds give no verdict', () => {
  it('S = 6 seeds of one row (1, 0, ..., 0): MS near 1e-33 before, now no interval for both methods', () => {
    const row = Float64Array.from({ length: 10 }, (_, i) => (i === 0 ? 1 : 0));
    const rows = Array.from({ length: 6 }, () => Float64Array.from(row));
    for (const method of ['seed_t', 'seed_item_t'] as const) {
      const iv = seedInterval({ differences: rows, alpha: 0.05, method, extremes: [-1, 1] });
      expect(iv.degenerate).toBe('no_variation');
      expect([iv.lower, iv.upper]).toEqual([-1, 1]);
      expect(iv.perSeedDifferenceSd).toBe(0);
      expect(iv.runToRunSd).toBe(0);
      expect(iv.noiseSd).toBe(0);
    }
  });

  it('decideAcrossSeeds: inconclusive, whole range, fallback no_variation, standard error null (not 0), both methods', () => {
    const rng = seedrandom('identical-seeds-test');
    const items = Array.from({ length: 40 }, (_, i) => `q${i}`);
    const t = items.map((item_id) => ({ item_id, correct: rng() < 0.6 }));
    const b = items.map((item_id) => ({ item_id, correct: rng() < 0.5 }));
    for (const method of ['seed_t', 'seed_item_t'] as const) {
      for (let S = 2; S <= 20; S++) {
        const replicates = Array.from({ length: S }, (_, seed) => ({ seed, treatment: t, baseline: b }));
        const d = decideAcrossSeeds({ replicates, rule: rule({ seed_method: method }) });
        expect(d.verdict, `${method} S=${S}`).toBe('inconclusive');
        expect(d.interval).toEqual([-1, 1]);
        expect(d.fallback).toMatchObject({ rule: 'whole_range', reason: 'no_variation' });
        expect(d.standardError).toBeNull();
        const json = seedDecisionJson(d);
        expect(json.standard_error).toBeNull();
        expect(json.criteria[0]?.standard_error).toBeNull();
      }
    }
  });

  it('per_seed items: every difference the same value gives no interval (V and F rounded above 0 before)', () => {
    // Rows of 0.1 (a weighted criterion's exact value): mean 0.30000000000000004 / 3, a within-seed variance near 1e-34.
    const rows = [Float64Array.of(0.1, 0.1, 0.1), Float64Array.of(0.1, 0.1), Float64Array.of(0.1, 0.1, 0.1, 0.1)];
    const iv = seedMeansInterval({ differences: rows, alpha: 0.05, extremes: [-1, 1] });
    expect(iv.degenerate).toBe('no_variation');
    expect([iv.lower, iv.upper]).toEqual([-1, 1]);
  });

  it('rows that differ in one value keep a real interval (the identity test is not a tolerance)', () => {
    const rows = Array.from({ length: 6 }, (_, s) => Float64Array.from({ length: 10 }, (_, i) => (i === 0 || (s === 0 && i === 1) ? 1 : 0)));
    const iv = seedInterval({ differences: rows, alpha: 0.05, method: 'seed_t' });
    expect(iv.degenerate).toBeNull();
    expect(iv.standardError).toBeGreaterThan(0.01);
  });
});
