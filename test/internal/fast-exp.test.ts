// The kernel's exp against Math.exp (V8's fdlibm port, correctly rounded to within 1 ulp).
import { describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { expNonPositive } from '../../src/internal/fast-exp.js';

describe('expNonPositive', () => {
  test.prop([fc.double({ min: -745, max: 0, noNaN: true })])('is within 1e-15 relative of Math.exp on [-745, 0]', (x) => {
    const exact = Math.exp(x);
    // Below the normal range (x < -708) only absolute accuracy is meaningful: subnormals have
    // fewer bits, and a kernel weight that small never changes a sum with a term >= 1.
    const error = Math.abs(expNonPositive(x) - exact);
    expect(error).toBeLessThanOrEqual(x < -708 ? 1e-308 : 1e-15 * exact);
  });

  it('is within 1e-15 relative on a dense grid of the kernel range [-20, 0]', () => {
    let worst = 0;
    for (let i = 0; i <= 200_000; i++) {
      const x = -i / 10_000;
      worst = Math.max(worst, Math.abs(expNonPositive(x) - Math.exp(x)) / Math.exp(x));
    }
    expect(worst).toBeLessThanOrEqual(1e-15);
  });

  it('is exactly 1 at 0 and -0, and 0 at and below -745, at -Infinity and NaN', () => {
    expect(expNonPositive(0)).toBe(1);
    expect(expNonPositive(-0)).toBe(1);
    expect(expNonPositive(-745)).toBe(0);
    expect(expNonPositive(-1e300)).toBe(0);
    expect(expNonPositive(-Infinity)).toBe(0);
    expect(expNonPositive(Number.NaN)).toBe(0);
  });

  it('gives e^-1 and e^-10 within one ulp of the values Python prints (math.exp(-1), math.exp(-10))', () => {
    expect(Math.abs(expNonPositive(-1) - 0.36787944117144233)).toBeLessThanOrEqual(5.6e-17);
    expect(Math.abs(expNonPositive(-10) - 4.5399929762484854e-5)).toBeLessThanOrEqual(6.8e-21);
  });
});
