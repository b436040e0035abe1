// A fast version of validation/decision-coverage.mjs (docs/method.md section 5.5): the exact coverage of each
// decision method's interval is at least 1 - alpha in every setting tried, the all-discordant worst case included.
import { describe, expect, it } from 'vitest';
import { DECISION_METHOD_NAMES, decisionMethod } from '../../src/stats/index.js';
import { cached, exactCoverage, intervalTable, refinedMinimum, regionsAtDelta } from '../../validation/decision-coverage-core.mjs';

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

  // The guaranteed methods whose interval per count is cheap; the exact unconditional one is checked through its
  // regions below, the asymptotic Tango interval is not guaranteed (and caught below).
  const perCount = DECISION_METHOD_NAMES.filter((m) => !decisionMethod(m).asymptotic && m !== 'paired_exact_unconditional');
  it.each([10, 30, 60])('n = %i: coverage >= 0.95 for every method at D in {0.05, 0.2, 0.5, 1}, delta in {-D/2, 0, 0.9 D, D}', (n) => {
    for (const name of perCount) {
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

describe('the refined lowest coverage (docs/method.md section 5.7)', () => {
  const refined = (name: string, n: number, step: number) => {
    const m = decisionMethod(name);
    if (m.thresholds !== undefined && name === 'paired_exact_unconditional') {
      return refinedMinimum(n, (delta: number) => {
        const t = m.thresholds?.(n, 0.05, 1, delta) as { validFrom: Int32Array; failTo: Int32Array };
        return { from: t.validFrom, to: t.failTo };
      }, { step, points: 100 });
    }
    const table = intervalTable(n, interval(name, n));
    return refinedMinimum(n, (delta: number) => regionsAtDelta(table, delta), { step, points: 100 });
  };

  it('n = 10: every guaranteed method stays at or above 1 - alpha over delta and D, refined', () => {
    for (const name of DECISION_METHOD_NAMES.filter((m) => !decisionMethod(m).asymptotic)) {
      const r = refined(name, 10, name === 'paired_exact_unconditional' ? 0.02 : 0.01);
      expect(r.coverage, `${name}: ${JSON.stringify(r)}`).toBeGreaterThanOrEqual(0.95 - 1e-12);
    }
  });

  it('catches a method below 1 - alpha: the asymptotic Tango interval falls to about 0.835 at n = 10', () => {
    const r = refined('paired_tango', 10, 0.01);
    expect(r.coverage).toBeLessThan(0.9);
    expect(r.coverage).toBeGreaterThan(0.8);
  });

  it('finds the refined Hoeffding minimum the fixed grid missed: 0.9906 at n = 30, D = 1, |delta| about 0.03', () => {
    const r = refined('paired_hoeffding', 30, 0.0025);
    expect(r.coverage).toBeCloseTo(0.99064, 4);
    expect(r.discordance).toBe(1);
    expect(Math.abs(Math.abs(r.difference) - 0.0293)).toBeLessThan(0.002);
  });
});
