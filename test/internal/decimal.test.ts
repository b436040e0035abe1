import { describe, expect, it } from 'vitest';
import { canonicalDecimal, readCanonicalDecimal, readCanonicalInteger } from '../../src/internal/decimal.js';

describe('canonicalDecimal', () => {
  it("writes JavaScript's shortest digits without an exponent, and reads back the same float64", () => {
    const cases: [number, string][] = [
      [0.1, '0.1'],
      [2e-3, '0.002'],
      [1e-7, '0.0000001'],
      [1.5e-10, '0.00000000015'],
      [1, '1'],
      [1e21, '1000000000000000000000'],
      [1.25e22, '12500000000000000000000'],
      [123.456, '123.456'],
      [-1e-7, '-0.0000001'],
    ];
    for (const [x, text] of cases) {
      expect(canonicalDecimal(x)).toBe(text);
      expect(Number(text)).toBe(x);
    }
    for (let i = 0; i < 2000; i++) {
      const x = Math.exp((i - 1000) / 20) * (1 + i / 7919);
      expect(Number(canonicalDecimal(x))).toBe(x);
      expect(canonicalDecimal(x)).not.toMatch(/e/);
    }
  });
});

describe('readCanonicalDecimal', () => {
  it('reads a canonical decimal and refuses every other spelling, suggesting the canonical ones', () => {
    expect(readCanonicalDecimal('0.1')).toEqual({ value: 0.1, suggestions: [] });
    expect(readCanonicalDecimal('2')).toEqual({ value: 2, suggestions: [] });
    expect(readCanonicalDecimal('01')).toEqual({ value: undefined, suggestions: ['1', '0.1'] });
    expect(readCanonicalDecimal('.1')).toEqual({ value: undefined, suggestions: ['0.1'] });
    expect(readCanonicalDecimal('1e-1')).toEqual({ value: undefined, suggestions: ['0.1'] });
    expect(readCanonicalDecimal('00.1')).toEqual({ value: undefined, suggestions: ['0.1'] });
    expect(readCanonicalDecimal('0.10')).toEqual({ value: undefined, suggestions: ['0.1'] });
    expect(readCanonicalDecimal('1.')).toEqual({ value: undefined, suggestions: ['1'] });
    expect(readCanonicalDecimal('+1')).toEqual({ value: undefined, suggestions: ['1'] });
    expect(readCanonicalDecimal(' 1')).toEqual({ value: undefined, suggestions: [] });
    expect(readCanonicalDecimal('0x1')).toEqual({ value: undefined, suggestions: [] });
    expect(readCanonicalDecimal('Infinity')).toEqual({ value: undefined, suggestions: [] });
    expect(readCanonicalDecimal('')).toEqual({ value: undefined, suggestions: [] });
  });

  it('reads integers only in canonical form', () => {
    expect(readCanonicalInteger('4')).toEqual({ value: 4, suggestions: [] });
    expect(readCanonicalInteger('0')).toEqual({ value: 0, suggestions: [] });
    expect(readCanonicalInteger('04')).toEqual({ value: undefined, suggestions: ['4'] });
    expect(readCanonicalInteger('4.0')).toEqual({ value: undefined, suggestions: ['4'] });
    expect(readCanonicalInteger('+4')).toEqual({ value: undefined, suggestions: ['4'] });
    expect(readCanonicalInteger('4e0')).toEqual({ value: undefined, suggestions: [] });
  });
});
