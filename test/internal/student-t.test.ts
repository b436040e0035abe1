// Student's t quantile against closed forms (df = 1, 2) and a numerical integral of the density (df = 1.5, 7.3).
import { describe, expect, it } from 'vitest';
import { studentTUpperQuantile } from '../../src/internal/student-t.js';
import { logGamma } from '../../src/internal/beta.js';

/** P(T > q) by Simpson's rule on u = atan(t) over [atan(q), pi/2] (density f(tan u) sec^2 u), 200000 panels. */
function upperTailByQuadrature(q: number, df: number): number {
  const c = Math.exp(logGamma((df + 1) / 2) - logGamma(df / 2)) / Math.sqrt(df * Math.PI);
  const g = (u: number): number => {
    if (u >= Math.PI / 2) return 0;
    const t = Math.tan(u);
    return (c * (1 + (t * t) / df) ** (-(df + 1) / 2)) / Math.cos(u) ** 2;
  };
  const a = Math.atan(q);
  const b = Math.PI / 2;
  const m = 200000;
  const h = (b - a) / m;
  let s = g(a) + g(b);
  for (let i = 1; i < m; i++) s += (i % 2 === 1 ? 4 : 2) * g(a + i * h);
  return (s * h) / 3;
}

describe('studentTUpperQuantile', () => {
  it('matches the closed forms for df = 1 (Cauchy) and df = 2', () => {
    for (const p of [0.025, 0.0125, 0.05, 0.2]) {
      expect(studentTUpperQuantile(p, 1)).toBeCloseTo(Math.tan(Math.PI * (0.5 - p)), 8);
      expect(studentTUpperQuantile(p, 2)).toBeCloseTo((1 - 2 * p) / Math.sqrt(2 * p * (1 - p)), 10);
    }
  });

  it('its upper tail is p for non-integer df (numerical integral of the density)', () => {
    for (const df of [1.5, 7.3, 40]) {
      for (const p of [0.025, 0.0125]) {
        expect(upperTailByQuadrature(studentTUpperQuantile(p, df), df)).toBeCloseTo(p, 8);
      }
    }
  });

  it('is 0 at p = 1/2 and NaN outside its domain', () => {
    expect(studentTUpperQuantile(0.5, 3)).toBe(0);
    expect(studentTUpperQuantile(0, 3)).toBeNaN();
    expect(studentTUpperQuantile(0.025, 0)).toBeNaN();
  });
});
