// paired_exact_unconditional and paired_tango (docs/method.md sections 5.4.1, 5.4.2): the machinery against brute force, the
// verdict regions against the intervals, the ends against an independent numpy implementation
// (test/fixtures/paired_unconditional_reference.py), and the figures at the study's size.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { criterionVerdict, decisionMethod, nForPower, verdictProbabilities } from '../../src/stats/index.js';
import { exactUnconditionalInterval, exactUnconditionalThresholds, scoreRegion, upperPValue } from '../../src/stats/exact-unconditional.js';
import { tangoInterval, tangoScore, tangoThresholds } from '../../src/stats/tango.js';
import { logFactorials, regionProbability, supremum } from '../../src/stats/unconditional-core.js';

interface Fixture {
  intervals: { n10: number; n01: number; n: number; alpha: number; k: number; exact_unconditional?: [number, number]; tango: [number, number] }[];
  brackets: { n10: number; n01: number; n: number; a: number; lower: number; p_up_below: number; p_up_above: number }[];
}
const fixture = JSON.parse(readFileSync(path.join(__dirname, '..', 'fixtures', 'paired-unconditional-reference.json'), 'utf8')) as Fixture;

/** The trinomial probability of the region, cell by cell. */
function bruteRegion(n: number, delta0: number, D: number, from: Int32Array): number {
  const lf = logFactorials(n);
  const p1 = (D + delta0) / 2;
  const p2 = (D - delta0) / 2;
  const term = (k: number, p: number): number => (k === 0 ? 0 : p <= 0 ? -Infinity : k * Math.log(p));
  let total = 0;
  for (let b = 0; b <= n; b++) {
    for (let c = 0; b + c <= n; c++) {
      if (b < (from[b + c] as number)) continue;
      total += Math.exp((lf[n] as number) - (lf[b] as number) - (lf[c] as number) - (lf[n - b - c] as number) + term(b, p1) + term(c, p2) + term(n - b - c, 1 - D));
    }
  }
  return total;
}

describe("Tango's score", () => {
  it('increases in n10 for a fixed number of discordant pairs (what a per-row region needs)', () => {
    for (const n of [1, 5, 20, 60]) {
      for (let i = -98; i <= 98; i += 7) {
        const d0 = i / 100 + 0.0013;
        for (let m = 0; m <= n; m++) {
          for (let b = 1; b <= m; b++) expect(tangoScore(b, m - b, n, d0)).toBeGreaterThanOrEqual(tangoScore(b - 1, m - b + 1, n, d0) - 1e-12);
        }
      }
    }
  });

  it('is 0 at the estimate and antisymmetric under swapping the arms', () => {
    expect(tangoScore(30, 10, 100, 0.2)).toBeCloseTo(0, 14);
    expect(tangoScore(0, 0, 10, 0)).toBe(0);
    expect(tangoScore(7, 3, 40, 0.05)).toBeCloseTo(-tangoScore(3, 7, 40, -0.05), 13);
  });
});

describe('regionProbability', () => {
  it('equals the trinomial summed cell by cell to 1e-12 (recurrences, restarts, the ends of D)', () => {
    for (const n of [1, 7, 45]) {
      for (const d0 of [-0.3, -0.05, 0, 0.02, 0.4]) {
        for (const z of [-1, 0.5, 1.96, 3]) {
          const from = scoreRegion(n, d0, z);
          for (const D of [Math.abs(d0), Math.abs(d0) + 1e-3, 0.2, 0.5, 0.9, 0.999, 1]) {
            if (D < Math.abs(d0)) continue;
            expect(Math.abs(regionProbability(n, d0, D, from) - bruteRegion(n, d0, D, from)), `${n} ${d0} ${z} ${D}`).toBeLessThan(1e-12);
          }
        }
      }
    }
  });

  it('the method grid (200 points, refined) finds the supremum a 20000-point grid finds, to 1e-12 relative', () => {
    for (const [n, d0, z] of [
      [30, -0.05, 1.96],
      [300, 0, 1.7],
      [300, -0.2, 3],
    ] as const) {
      const from = scoreRegion(n, d0, z);
      const fine = supremum(n, d0, from, { points: 20000, refine: 10 });
      const method = supremum(n, d0, from, { points: 200 });
      expect((fine - method) / fine).toBeLessThan(1e-12);
    }
  });
});

describe('the intervals against the independent numpy implementation', () => {
  it('exact unconditional ends agree to 1e-8 and Tango ends to 1e-10 (n = 1 to 100)', () => {
    for (const row of fixture.intervals) {
      const opts = { n10: row.n10, n01: row.n01, n: row.n, alpha: row.alpha, comparisons: row.k };
      if (row.exact_unconditional !== undefined) {
        const iv = exactUnconditionalInterval(opts);
        expect(Math.abs(iv.lower - row.exact_unconditional[0]), JSON.stringify(row)).toBeLessThan(1e-8);
        expect(Math.abs(iv.upper - row.exact_unconditional[1]), JSON.stringify(row)).toBeLessThan(1e-8);
      }
      const t = tangoInterval(opts);
      expect(Math.abs(t.lower - row.tango[0])).toBeLessThan(1e-10);
      expect(Math.abs(t.upper - row.tango[1])).toBeLessThan(1e-10);
    }
  });

  it('n = 1319, 132 + 132 discordant: numpy puts the lower end between the same p-values, and ours agree to 1e-9', () => {
    for (const b of fixture.brackets) {
      const iv = exactUnconditionalInterval({ n10: b.n10, n01: b.n01, n: b.n, alpha: 2 * b.a });
      expect(iv.lower).toBeCloseTo(b.lower, 12);
      expect(b.p_up_below).toBeLessThanOrEqual(b.a);
      expect(b.p_up_above).toBeGreaterThan(b.a);
      const counts = { n10: b.n10, n01: b.n01, n: b.n };
      expect(Math.abs(upperPValue(counts, b.lower - 1e-5) - b.p_up_below)).toBeLessThan(1e-9);
      expect(Math.abs(upperPValue(counts, b.lower + 1e-5) - b.p_up_above)).toBeLessThan(1e-9);
    }
  });
});

describe('the verdict regions equal the intervals', () => {
  it.each([
    [10, -0.05, 1],
    [14, 0.1, 2],
  ])('exact unconditional, n = %i, margin %d, k = %i: every (n10, n01)', (n, margin, k) => {
    const t = exactUnconditionalThresholds(n, 0.05, k, margin);
    for (let m = 0; m <= n; m++) {
      for (let b = 0; b <= m; b++) {
        const iv = exactUnconditionalInterval({ n10: b, n01: m - b, n, alpha: 0.05, comparisons: k });
        const fromRegions = b >= (t.validFrom[m] as number) ? 'validated' : b <= (t.failTo[m] as number) ? 'failed' : 'inconclusive';
        expect(fromRegions, `(${b}, ${m - b})`).toBe(criterionVerdict({ lower: iv.lower, upper: iv.upper, margin }));
      }
    }
  });

  it('Tango, n = 40, margins -0.2, -0.05, 0, 0.1: every (n10, n01)', () => {
    const n = 40;
    for (const margin of [-0.2, -0.05, 0, 0.1]) {
      const t = tangoThresholds(n, 0.05, 1, margin);
      for (let m = 0; m <= n; m++) {
        for (let b = 0; b <= m; b++) {
          const iv = tangoInterval({ n10: b, n01: m - b, n, alpha: 0.05 });
          const fromRegions = b >= (t.validFrom[m] as number) ? 'validated' : b <= (t.failTo[m] as number) ? 'failed' : 'inconclusive';
          expect(fromRegions, `${margin} (${b}, ${m - b})`).toBe(criterionVerdict({ lower: iv.lower, upper: iv.upper, margin }));
        }
      }
    }
  });
});

describe('the study design (n = 1319, D = 0.2, margin -0.05, alpha 0.05)', () => {
  const design = { discordance: 0.2, alpha: 0.05, margin: -0.05, method: 'paired_exact_unconditional' as const };
  it('validates equal arms with probability >= 0.97 and needs at most 700 items for 80% power', () => {
    const p = verdictProbabilities({ ...design, n: 1319 }, 0);
    expect(p.validated).toBeGreaterThanOrEqual(0.97);
    // At the margin itself P(validated) <= alpha/2 (the test's size).
    expect(verdictProbabilities({ ...design, n: 1319 }, -0.05).validated).toBeLessThanOrEqual(0.025 + 1e-12);
    const n80 = nForPower(design);
    expect(n80).not.toBeNull();
    expect(n80 as number).toBeLessThanOrEqual(700);
  });

  it('the interval at 132 + 132 discordant pairs is narrower than the box and Hoeffding', () => {
    const opts = { n10: 132, n01: 132, n: 1319, alpha: 0.05 };
    const eu = decisionMethod('paired_exact_unconditional').fromCounts(opts);
    expect(eu.halfWidth).toBeCloseTo(0.02434, 5);
    expect(eu.halfWidth).toBeLessThan(decisionMethod('paired_exact_binomial').fromCounts(opts).halfWidth);
    expect(decisionMethod('paired_tango').asymptotic).toBe(true);
    expect(decisionMethod('paired_exact_unconditional').asymptotic).toBe(false);
  });
});
