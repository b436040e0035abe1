// Power of the paired decision (docs/method.md section 5.6) against brute-force enumeration with scipy
// (test/fixtures/decision_reference.py) and the figure for the spec.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { RlAdvantagesError } from '../../src/index.js';
import { DECISION_METHOD_NAMES, decisionMethod, criterionVerdict, nForPower, observedThresholds, powerTable, verdictProbabilities, type DecisionMethodName } from '../../src/stats/index.js';

interface PowerRowFixture {
  method: DecisionMethodName;
  n: number;
  discordance: number;
  difference: number;
  alpha: number;
  k: number;
  margin: number;
  p_validated: number;
  p_failed: number;
}
const fixture = JSON.parse(readFileSync(path.join(__dirname, '..', 'fixtures', 'decision-reference.json'), 'utf8')) as {
  power: PowerRowFixture[];
  spec_hoeffding_p_validated: number;
};

describe('verdictProbabilities', () => {
  it('the spec at D = 0.2: Hoeffding validates with probability 0.023 +- 0.005 when the arms are equal', () => {
    const p = verdictProbabilities({ n: 1319, discordance: 0.2, alpha: 0.05, margin: -0.05, method: 'paired_hoeffding' }, 0);
    expect(Math.abs(p.validated - 0.023)).toBeLessThanOrEqual(0.005);
    // and to 1e-9 against scipy's multinomial pmf summed over every cell (the window leaves out < 2e-13).
    expect(Math.abs(p.validated - fixture.spec_hoeffding_p_validated)).toBeLessThan(1e-9);
  });

  // Tolerance 1e-9: both sum the same cells' probabilities; ours in log space with Lanczos ln Gamma (about 1e-12
  // relative per cell), scipy's multinomial pmf; the window leaves out at most 2e-13.
  it.each(fixture.power)('$method at n = $n, D = $discordance, delta = $difference, margin $margin matches brute force', (row) => {
    const p = verdictProbabilities(
      { n: row.n, discordance: row.discordance, alpha: row.alpha, comparisons: row.k, margin: row.margin, method: row.method },
      row.difference,
    );
    expect(Math.abs(p.validated - row.p_validated)).toBeLessThan(1e-9);
    expect(Math.abs(p.failed - row.p_failed)).toBeLessThan(1e-9);
  });

  it('the exact method: the thresholds it sums over agree with the interval it decides with, cell by cell', () => {
    // Brute force with pairedExactBinomial's own verdicts at n = 30: the same probabilities to 1e-12.
    const n = 30;
    for (const margin of [-0.1, 0, 0.05]) {
      for (const [D, delta] of [
        [0.4, 0.1],
        [1, -0.3],
      ] as const) {
        let validated = 0;
        let failed = 0;
        const q = [(D + delta) / 2, (D - delta) / 2, 1 - D];
        const lf = (k: number): number => (k < 2 ? 0 : Math.log(k) + lf(k - 1));
        for (let a = 0; a <= n; a++) {
          for (let b = 0; a + b <= n; b++) {
            const term = (count: number, p: number): number => (count === 0 ? 0 : count * Math.log(p));
            const pr = Math.exp(lf(n) - lf(a) - lf(b) - lf(n - a - b) + term(a, q[0] as number) + term(b, q[1] as number) + term(n - a - b, q[2] as number));
            const iv = decisionMethod('paired_exact_binomial').fromCounts({ n10: a, n01: b, n, alpha: 0.05 });
            const v = criterionVerdict({ lower: iv.lower, upper: iv.upper, margin });
            if (v === 'validated') validated += pr;
            if (v === 'failed') failed += pr;
          }
        }
        const p = verdictProbabilities({ n, discordance: D, alpha: 0.05, margin, method: 'paired_exact_binomial' }, delta);
        expect(Math.abs(p.validated - validated)).toBeLessThan(1e-12);
        expect(Math.abs(p.failed - failed)).toBeLessThan(1e-12);
      }
    }
  });

  it('refuses a difference larger than the discordance and a discordance outside (0, 1]', () => {
    const design = { n: 100, discordance: 0.02, alpha: 0.05, margin: -0.05, method: 'paired_hoeffding' as const };
    expect(() => verdictProbabilities(design, 0.05)).toThrow(RlAdvantagesError);
    expect(() => verdictProbabilities({ ...design, discordance: 0 }, 0)).toThrow(/discordance must be a number in \(0, 1\]/);
  });
});

describe('powerTable, observedThresholds, nForPower', () => {
  it('gives one row per method and difference from -0.05 to +0.05, leaving out differences larger than D', () => {
    const rows = powerTable({ n: 200, discordance: 0.2, alpha: 0.05, margin: -0.05 }, DECISION_METHOD_NAMES);
    expect(rows).toHaveLength(11 * DECISION_METHOD_NAMES.length);
    expect(rows.map((r) => r.difference).slice(0, 11)).toEqual([-0.05, -0.04, -0.03, -0.02, -0.01, 0, 0.01, 0.02, 0.03, 0.04, 0.05]);
    for (const r of rows) {
      expect(r.p_validated + r.p_failed).toBeLessThanOrEqual(1 + 1e-12);
      expect(r.p_validated).toBeGreaterThanOrEqual(0);
    }
    expect(powerTable({ n: 200, discordance: 0.03, alpha: 0.05, margin: -0.05 }, ['paired_hoeffding'])).toHaveLength(7);
  });

  it('the spec: Hoeffding validates above about +0.025 observed, the exact method above about -0.015', () => {
    const design = { n: 1319, discordance: 0.2, alpha: 0.05, margin: -0.05 };
    const h = observedThresholds({ ...design, method: 'paired_hoeffding' });
    expect(h.discordant).toBe(264);
    // The first even count difference (n10 - n01 has m's parity) strictly above margin + 0.07479: 34 / 1319.
    expect(h.validatesAt).toBeCloseTo(34 / 1319, 15);
    const e = observedThresholds({ ...design, method: 'paired_exact_binomial' });
    expect(e.validatesAt).not.toBeNull();
    expect(e.validatesAt as number).toBeLessThan(0);
  });

  it('n for 80% power at delta = 0: the exact method needs fewer items than Hoeffding; none when the margin is not below 0', () => {
    const design = { discordance: 0.2, alpha: 0.05, margin: -0.05 };
    const h = nForPower({ ...design, method: 'paired_hoeffding' }) as number;
    const e = nForPower({ ...design, method: 'paired_exact_binomial' }) as number;
    expect(e).toBeLessThan(h);
    expect(verdictProbabilities({ ...design, n: h, method: 'paired_hoeffding' }, 0).validated).toBeGreaterThanOrEqual(0.8);
    expect(verdictProbabilities({ ...design, n: h - 1, method: 'paired_hoeffding' }, 0).validated).toBeLessThan(0.8);
    expect(nForPower({ ...design, margin: 0, method: 'paired_exact_binomial' })).toBeNull();
  });
});

describe('invariants of the power (real properties of valid intervals)', () => {
  const design = fc.record({
    n: fc.integer({ min: 5, max: 150 }),
    discordance: fc.double({ min: 0.05, max: 1, noNaN: true }),
    margin: fc.double({ min: -0.2, max: 0.1, noNaN: true }),
  });

  // The guaranteed methods only: paired_tango is asymptotic (docs/method.md section 5.4.2).
  const guaranteed = DECISION_METHOD_NAMES.filter((m) => !decisionMethod(m).asymptotic);
  test.prop([design, fc.constantFrom(...guaranteed), fc.double({ min: 0, max: 1, noNaN: true })], { numRuns: 40 })(
    'validity: when the true difference is at or below the margin, P(validated) <= alpha (and at or above it, P(failed) <= alpha)',
    (d, method, u) => {
      const lo = Math.max(-d.discordance, -1);
      // A true difference in [-D, margin] (when there is one): validating there is an error of the interval.
      if (d.margin >= lo) {
        const delta = lo + u * (Math.min(d.margin, d.discordance) - lo);
        const p = verdictProbabilities({ ...d, alpha: 0.05, method }, delta);
        expect(p.validated).toBeLessThanOrEqual(0.05 + 1e-9);
      }
      if (d.margin <= d.discordance) {
        const delta = Math.max(d.margin, -d.discordance) + u * (d.discordance - Math.max(d.margin, -d.discordance));
        const p = verdictProbabilities({ ...d, alpha: 0.05, method }, delta);
        expect(p.failed).toBeLessThanOrEqual(0.05 + 1e-9);
      }
    },
  );

  test.prop([design, fc.constantFrom('paired_hoeffding', 'paired_exact_binomial' as const)], { numRuns: 30 })(
    'Hoeffding and the exact method: P(validated) does not decrease as the true difference grows',
    (d, method) => {
      const deltas = [-0.5, -0.25, 0, 0.25, 0.5].map((f) => f * d.discordance);
      const p = deltas.map((delta) => verdictProbabilities({ ...d, alpha: 0.05, method }, delta).validated);
      for (let i = 1; i < p.length; i++) expect(p[i] as number).toBeGreaterThanOrEqual((p[i - 1] as number) - 1e-12);
    },
  );
});

