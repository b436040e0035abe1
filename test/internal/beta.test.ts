// src/internal/beta.ts against exact rational references (test/fixtures/beta_reference.py).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { betaQuantile, clopperPearson, regularizedBeta } from '../../src/internal/beta.js';

interface Fixture {
  regularized_beta: { x: number; a: number; b: number; value: number }[];
  clopper_pearson: { x: number; n: number; alpha: number; lower: number; upper: number }[];
}
const fixture = JSON.parse(readFileSync(path.join(__dirname, '..', 'fixtures', 'beta-reference.json'), 'utf8')) as Fixture;

describe('regularizedBeta', () => {
  // Tolerance: relative 1e-11 (measured worst: 1.3e-12, at a = 132, b = 1188). The continued fraction stops at a
  // relative step of 1e-16; the prefactor exp(a ln x + b ln(1 - x) - ln B(a, b)) carries the float64 error of the
  // exponent, about 2.2e-16 * ln Gamma(a + b) = 2.2e-16 * 8.2e3 = 1.8e-12 relative for the fixture's largest a + b = 1320.
  it.each(fixture.regularized_beta)('I_$x($a, $b) matches the exact binomial sum', ({ x, a, b, value }) => {
    const got = regularizedBeta(x, a, b);
    expect(Math.abs(got - value)).toBeLessThanOrEqual(1e-11 * value);
  });

  it('is 0 at x = 0 and 1 at x = 1', () => {
    expect(regularizedBeta(0, 3, 4)).toBe(0);
    expect(regularizedBeta(1, 3, 4)).toBe(1);
  });

  test.prop([fc.double({ min: 0.001, max: 0.999, noNaN: true }), fc.integer({ min: 1, max: 300 }), fc.integer({ min: 1, max: 300 })])(
    'satisfies I_x(a, b) = 1 - I_{1-x}(b, a) (to 1e-12)',
    (x, a, b) => {
      expect(Math.abs(regularizedBeta(x, a, b) - (1 - regularizedBeta(1 - x, b, a)))).toBeLessThan(1e-12);
    },
  );
});

describe('clopperPearson', () => {
  // The fixture's limits are the float64 roots of the exact tails; bisection on our I_x reaches them to within the
  // slope-scaled error of I_x: 1e-12 absolute is far below any figure printed (4 decimals).
  it.each(fixture.clopper_pearson)('x = $x of n = $n matches the exact root', ({ x, n, alpha, lower, upper }) => {
    const [lo, hi] = clopperPearson(x, n, alpha);
    expect(Math.abs(lo - lower)).toBeLessThan(1e-12);
    expect(Math.abs(hi - upper)).toBeLessThan(1e-12);
  });

  it('gives [0, 1] for n = 0 and the one-sided ends at x = 0 and x = n', () => {
    expect(clopperPearson(0, 0, 0.05)).toEqual([0, 1]);
    expect(clopperPearson(0, 10, 0.05)[0]).toBe(0);
    expect(clopperPearson(10, 10, 0.05)[1]).toBe(1);
  });
});

describe('betaQuantile', () => {
  test.prop([fc.double({ min: 0.001, max: 0.999, noNaN: true }), fc.integer({ min: 1, max: 200 }), fc.integer({ min: 1, max: 200 })])(
    'inverts I_x(a, b)',
    (p, a, b) => {
      expect(Math.abs(regularizedBeta(betaQuantile(p, a, b), a, b) - p)).toBeLessThan(1e-10);
    },
  );
});
