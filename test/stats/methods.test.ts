// The three decision methods (docs/method.md sections 5.2-5.4) against scipy/numpy references
// (test/fixtures/decision_reference.py) and the audit's figures.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { DECISION_METHOD_NAMES, decisionMethod, empiricalBernsteinHalfWidth, exactBinomialInterval, pairedEmpiricalBernstein, pairedExactBinomial, pairedHoeffding, type DecisionMethodName } from '../../src/stats/index.js';
import { thrown } from '../helpers/errors.js';

interface IntervalRow extends Record<DecisionMethodName, [number, number]> {
  n10: number;
  n01: number;
  n: number;
  alpha: number;
  k: number;
}
const fixture = JSON.parse(readFileSync(path.join(__dirname, '..', 'fixtures', 'decision-reference.json'), 'utf8')) as { intervals: IntervalRow[] };

function differences(n10: number, n01: number, n: number): number[] {
  return [...Array<number>(n10).fill(1), ...Array<number>(n01).fill(-1), ...Array<number>(n - n10 - n01).fill(0)];
}

describe('the audit figures (n = 1319, 264 discordant pairs split evenly, alpha = 0.05)', () => {
  const d = differences(132, 132, 1319);
  it('Hoeffding 0.0748, empirical Bernstein 0.0520, exact binomial 0.0319', () => {
    expect(pairedHoeffding({ differences: d, range: 2, alpha: 0.05 }).halfWidth.toFixed(4)).toBe('0.0748');
    // sqrt(2 * (264/1318) * ln 80 / 1319) + 14 ln 80 / (3 * 1318) = 0.036468 + 0.015516
    const eb = pairedEmpiricalBernstein({ differences: d, range: 2, alpha: 0.05 });
    expect(eb.halfWidth).toBeCloseTo(Math.sqrt((2 * (264 / 1318) * Math.log(80)) / 1319) + (14 * Math.log(80)) / (3 * 1318), 14);
    expect(eb.halfWidth.toFixed(4)).toBe('0.0520');
    const ex = pairedExactBinomial({ differences: d, range: 2, alpha: 0.05 });
    // scipy: pU = 0.226056, qU = 0.570450 -> 0.226056 * 0.140901 = 0.0318515 (the audit's own construction: ~0.0318)
    expect(ex.upper).toBeCloseTo(0.03185148733047382, 12);
    expect(ex.lower).toBeCloseTo(-0.03185148733047382, 12);
    expect(ex.halfWidth.toFixed(4)).toBe('0.0319');
  });
});

describe('every method against the scipy/numpy reference', () => {
  // Tolerance 1e-10: the references use scipy's beta.ppf (its own inversion, about 1e-12 to 1e-14 relative)
  // and numpy's variance; ours bisect our I_x to float64 resolution (test/internal/beta.test.ts).
  it.each(fixture.intervals)('n10 = $n10, n01 = $n01, n = $n, alpha = $alpha, k = $k', (row) => {
    // The two newer methods have their own reference (test/stats/exact-unconditional.test.ts).
    for (const name of ['paired_hoeffding', 'paired_empirical_bernstein', 'paired_exact_binomial'] as const) {
      const method = decisionMethod(name);
      const opts = { alpha: row.alpha, comparisons: row.k };
      const fromItems = method.interval({ differences: differences(row.n10, row.n01, row.n), range: 2, ...opts });
      const fromCounts = method.fromCounts({ n10: row.n10, n01: row.n01, n: row.n, ...opts });
      const [lower, upper] = row[name];
      for (const iv of [fromItems, fromCounts]) {
        expect(Math.abs(iv.lower - lower), name).toBeLessThan(1e-10);
        expect(Math.abs(iv.upper - upper), name).toBeLessThan(1e-10);
        expect(Number.isFinite(iv.halfWidth)).toBe(true);
      }
    }
  });
});

describe('edge cases', () => {
  it('n = 1: empirical Bernstein gives the whole-range interval, no NaN', () => {
    const iv = pairedEmpiricalBernstein({ differences: [1], range: 2, alpha: 0.05 });
    expect(iv).toEqual({ n: 1, estimate: 1, halfWidth: 2, lower: -1, upper: 3 });
    expect(empiricalBernsteinHalfWidth({ n: 1, variance: Number.NaN, alpha: 0.05, range: 2 })).toBe(2);
  });

  it('m = 0: the exact interval is valid (q unconstrained): [-pU, pU]', () => {
    const iv = exactBinomialInterval({ n10: 0, n01: 0, n: 20, alpha: 0.05 });
    expect(iv.estimate).toBe(0);
    expect(iv.lower).toBeCloseTo(-iv.upper, 15);
    expect(iv.upper).toBeGreaterThan(0);
    expect(iv.upper).toBeLessThan(1);
  });

  it('all discordant: the exact interval stays within [-1, 1]', () => {
    const iv = exactBinomialInterval({ n10: 20, n01: 0, n: 20, alpha: 0.05 });
    expect(iv.upper).toBe(1);
    expect(iv.lower).toBeGreaterThan(0);
  });

  it('the exact method refuses a value other than -1, 0, +1, naming its index', () => {
    const e = thrown(() => pairedExactBinomial({ differences: [1, 0, 0.5], range: 2, alpha: 0.05 }));
    expect(e.code).toBe('not_binary');
    expect(e.index).toBe(2);
    expect(e.message).toContain('differences[2] is 0.5');
  });

  it('counts must fit in n', () => {
    expect(thrown(() => exactBinomialInterval({ n10: 3, n01: 3, n: 5, alpha: 0.05 })).code).toBe('bad_counts');
    expect(thrown(() => exactBinomialInterval({ n10: -1, n01: 3, n: 5, alpha: 0.05 })).code).toBe('bad_integer');
  });

  it('empirical Bernstein refuses a spread wider than R, and a negative variance', () => {
    expect(thrown(() => pairedEmpiricalBernstein({ differences: [1, -1.5], range: 2, alpha: 0.05 })).code).toBe('out_of_range');
    expect(thrown(() => empiricalBernsteinHalfWidth({ n: 3, variance: -1, alpha: 0.05, range: 2 })).code).toBe('bad_variance');
  });
});

describe('decisionMethod', () => {
  it('names the three methods and refuses others, listing them', () => {
    expect(DECISION_METHOD_NAMES).toEqual([
      'paired_hoeffding',
      'paired_empirical_bernstein',
      'paired_exact_binomial',
      'paired_exact_unconditional',
      'paired_tango',
      'paired_newcombe',
    ]);
    for (const name of DECISION_METHOD_NAMES) expect(decisionMethod(name).name).toBe(name);
    const e = thrown(() => decisionMethod('wald'));
    expect(e.code).toBe('unknown_method');
    expect(e.message).toContain('paired_hoeffding, paired_empirical_bernstein, paired_exact_binomial, paired_exact_unconditional, paired_tango, paired_newcombe');
  });
});

describe('invariants', () => {
  const counts = fc
    .integer({ min: 1, max: 400 })
    .chain((n) => fc.tuple(fc.constant(n), fc.integer({ min: 0, max: n })).chain(([n, m]) => fc.tuple(fc.constant(n), fc.integer({ min: 0, max: m }), fc.constant(m))));

  // The exact unconditional interval costs about 0.1 s at n = 400: it has its own smaller run below.
  // paired_newcombe needs n11 too: its own properties are in test/stats/newcombe.test.ts.
  const FAST = DECISION_METHOD_NAMES.filter((m) => m !== 'paired_exact_unconditional' && !decisionMethod(m).needsConcordantSplit);
  const small = fc
    .integer({ min: 1, max: 40 })
    .chain((n) => fc.tuple(fc.constant(n), fc.integer({ min: 0, max: n })).chain(([n, m]) => fc.tuple(fc.constant(n), fc.integer({ min: 0, max: m }), fc.constant(m))));

  test.prop([small], { numRuns: 6 })('exact unconditional: holds the estimate, within [-1, 1], negated by swapping the arms', ([n, n10, m]) => {
    const method = decisionMethod('paired_exact_unconditional');
    const a = method.fromCounts({ n10, n01: m - n10, n, alpha: 0.05 });
    const b = method.fromCounts({ n10: m - n10, n01: n10, n, alpha: 0.05 });
    expect(a.lower).toBeLessThanOrEqual(a.estimate + 1e-15);
    expect(a.upper).toBeGreaterThanOrEqual(a.estimate - 1e-15);
    expect(a.lower).toBeGreaterThanOrEqual(-1);
    expect(a.upper).toBeLessThanOrEqual(1);
    expect(b.lower).toBeCloseTo(-a.upper, 12);
    expect(b.upper).toBeCloseTo(-a.lower, 12);
  });

  test.prop([counts, fc.constantFrom(...FAST)])('the interval holds the estimate and is finite; but for Hoeffding (uncapped, the spec\'s) it is within estimate +- 2', ([n, n10, m], name) => {
    const iv = decisionMethod(name).fromCounts({ n10, n01: m - n10, n, alpha: 0.05 });
    expect(iv.lower).toBeLessThanOrEqual(iv.estimate + 1e-15);
    expect(iv.upper).toBeGreaterThanOrEqual(iv.estimate - 1e-15);
    if (name !== 'paired_hoeffding') expect(iv.upper - iv.lower).toBeLessThanOrEqual(4 + 1e-12);
    expect(Number.isFinite(iv.lower) && Number.isFinite(iv.upper)).toBe(true);
  });

  test.prop([counts, fc.constantFrom(...FAST)])('swapping the arms negates the interval', ([n, n10, m], name) => {
    const a = decisionMethod(name).fromCounts({ n10, n01: m - n10, n, alpha: 0.05 });
    const b = decisionMethod(name).fromCounts({ n10: m - n10, n01: n10, n, alpha: 0.05 });
    expect(b.lower).toBeCloseTo(-a.upper, 12);
    expect(b.upper).toBeCloseTo(-a.lower, 12);
  });

  test.prop([counts])('the exact interval lies within [-1, 1] and narrows as alpha grows', ([n, n10, m]) => {
    const wide = exactBinomialInterval({ n10, n01: m - n10, n, alpha: 0.01 });
    const narrow = exactBinomialInterval({ n10, n01: m - n10, n, alpha: 0.1 });
    expect(wide.lower).toBeGreaterThanOrEqual(-1);
    expect(wide.upper).toBeLessThanOrEqual(1);
    expect(narrow.lower).toBeGreaterThanOrEqual(wide.lower - 1e-12);
    expect(narrow.upper).toBeLessThanOrEqual(wide.upper + 1e-12);
  });
});
