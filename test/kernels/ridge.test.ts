// Ridge against scikit-learn's Ridge(alpha, fit_intercept=True): test/fixtures/ridge-reference.json, written by
// test/fixtures/generate_ridge_fixture.py. Tolerance 1e-10: both solve a 12 x 12 positive definite system in float64
// (condition number below 1e3 here), so the solutions agree to about 1e-13; 1e-10 leaves room for summation order.
import { describe, expect, it } from 'vitest';
import { fitRidge, predictRidge } from '../../src/index.js';
import { readFixture } from '../helpers/paths.js';

interface Case {
  alpha: number;
  dimension: number;
  z: number[];
  y: number[];
  weights: number[];
  intercept: number;
}

describe('fitRidge', () => {
  const { cases } = readFixture<{ cases: Case[] }>('ridge-reference.json');
  it.each(cases.map((c, i) => [i, c] as const))('matches scikit-learn Ridge, case %i', (_i, c) => {
    const rows = Int32Array.from(c.y, (_, r) => r);
    const fit = fitRidge(Float64Array.from(c.z), c.dimension, rows, Float64Array.from(c.y), c.alpha);
    fit.weights.forEach((w, d) => expect(Math.abs(w - (c.weights[d] as number))).toBeLessThan(1e-10));
    expect(Math.abs(fit.intercept - c.intercept)).toBeLessThan(1e-10);
  });

  it('recovers an exact line with a tiny penalty, and predicts it', () => {
    const fit = fitRidge(Float64Array.from([0, 1, 2]), 1, Int32Array.from([0, 1, 2]), Float64Array.from([1, 3, 5]), 1e-12);
    expect(fit.weights[0]).toBeCloseTo(2, 10);
    expect(fit.intercept).toBeCloseTo(1, 10);
    expect(Array.from(predictRidge(fit, Float64Array.from([3]), 1))[0]).toBeCloseTo(7, 9);
  });

  it('refuses a non-positive alpha', () => {
    expect(() => fitRidge(Float64Array.from([0]), 1, Int32Array.from([0]), Float64Array.from([1]), 0)).toThrow(/alpha must be a finite number > 0/);
  });
});
