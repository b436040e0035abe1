// A fast version of validation/decision-coverage.mjs (docs/method.md section 5.5): the exact coverage of each
// decision method's interval is at least 1 - alpha in every setting tried, the all-discordant worst case included.
import { describe, expect, it } from 'vitest';
import { DECISION_METHOD_NAMES, decisionMethod } from '../../src/stats/index.js';
import { cached, exactCoverage } from '../../validation/decision-coverage-core.mjs';

const interval = (name: string, n: number) => {
  const m = decisionMethod(name);
  return cached((n10, n01) => m.fromCounts({ n10, n01, n, alpha: 0.05 }));
};

describe('exact coverage of the decision intervals', () => {
  it('enumerates every cell: the probabilities sum to 1', () => {
    const r = exactCoverage({ n: 40, discordance: 0.3, difference: 0.1, interval: interval('paired_hoeffding', 40) });
    expect(r.mass).toBeCloseTo(1, 12);
    expect(r.omitted_mass_bound).toBe(0);
  });

  it.each([10, 30, 60])('n = %i: coverage >= 0.95 for every method at D in {0.05, 0.2, 0.5, 1}, delta in {-D/2, 0, 0.9 D, D}', (n) => {
    for (const name of DECISION_METHOD_NAMES) {
      const iv = interval(name, n);
      for (const D of [0.05, 0.2, 0.5, 1]) {
        for (const f of [-0.5, 0, 0.9, 1]) {
          const r = exactCoverage({ n, discordance: D, difference: f * D, interval: iv });
          // Exact sums: the only error is float rounding of the cell probabilities (about 1e-13 in total).
          expect(r.coverage, `${name} n = ${n} D = ${D} delta = ${f * D}`).toBeGreaterThanOrEqual(0.95 - 1e-12);
        }
      }
    }
  });

  it('at n = 300, D = 0.2: the exact interval is less than half as wide as Hoeffding\'s on average, and still covers', () => {
    const h = exactCoverage({ n: 300, discordance: 0.2, difference: 0, interval: interval('paired_hoeffding', 300) });
    const e = exactCoverage({ n: 300, discordance: 0.2, difference: 0, interval: interval('paired_exact_binomial', 300) });
    expect(e.mean_width).toBeLessThan(h.mean_width / 2);
    expect(e.coverage).toBeGreaterThanOrEqual(0.95);
  });
});
