import { describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { RlAdvantagesError } from '../../src/errors.js';
import {
  MAX_ANSWER_DIGITS,
  exactNumbersEqual,
  formatExactNumber,
  normalizeAnswer,
  parseExactNumber,
  type ExactNumber,
} from '../../src/grading/exact-number.js';

const bigInt = fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n });
const positiveBigInt = fc.bigInt({ min: 1n, max: 10n ** 12n });
const rational = fc.record({ num: bigInt, den: positiveBigInt });

function gcd(a: bigint, b: bigint): bigint {
  a = a < 0n ? -a : a;
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}

describe('normalizeAnswer', () => {
  it('drops dollars, commas, a trailing period and a surrounding \\text{}', () => {
    expect(normalizeAnswer(' \\text{\\$1,000.} ')).toBe('1000');
    expect(normalizeAnswer('$18$.')).toBe('18');
  });

  it('drops LaTeX spacing, brace groups and a trailing percent sign', () => {
    expect(normalizeAnswer('1\\,000')).toBe('1000');
    expect(normalizeAnswer('{{25\\%}}')).toBe('25');
    expect(normalizeAnswer('25%')).toBe('25');
  });

  it('only unwraps a group that spans the whole answer', () => {
    expect(normalizeAnswer('\\text{3}/\\text{4}')).toBe('\\text{3}/\\text{4}');
    expect(normalizeAnswer('{3}{4}')).toBe('{3}{4}');
  });

  it('maps the Unicode minus to a hyphen', () => {
    expect(normalizeAnswer('\u22125')).toBe('-5');
  });

  test.prop([fc.string({ maxLength: 40 })])('is idempotent', (text) => {
    const once = normalizeAnswer(text);
    expect(normalizeAnswer(once)).toBe(once);
  });

  it('throws a named error for a non-string', () => {
    expect(() => normalizeAnswer(18 as unknown as string)).toThrow(/text must be a string, got 18/);
  });
});

describe('parseExactNumber', () => {
  it.each<[string, bigint, bigint]>([
    ['18', 18n, 1n],
    ['18.00', 18n, 1n],
    ['-3.5', -7n, 2n],
    ['.5', 1n, 2n],
    ['+7', 7n, 1n],
    ['-0', 0n, 1n],
    ['0.75', 3n, 4n],
    ['3/4', 3n, 4n],
    ['6 / 8', 3n, 4n],
    ['-1.5/2', -3n, 4n],
    ['\\frac{3}{4}', 3n, 4n],
    ['\\dfrac{ 6 }{ 8 }', 3n, 4n],
    ['-\\tfrac{3}{4}', -3n, 4n],
    ['\\frac{-3}{4}', -3n, 4n],
    ['-\\frac{-3}{4}', 3n, 4n],
    ['\\frac{1.5}{0.5}', 3n, 1n],
    ['$1,000.00', 1000n, 1n],
    ['123456789012345678901234567890', 123456789012345678901234567890n, 1n],
  ])('parses %j as %d/%d', (text, num, den) => {
    expect(parseExactNumber(text)).toEqual({ num, den });
  });

  it.each(['', '.', '-', '+', '1e3', '7 3/4', '3/0', '\\frac{3}{0}', '3/-4', '--5', '1.2.3', 'eighteen', '18 apples', '\\frac34', '0x10', '١٨'])(
    'rejects %j',
    (text) => {
      expect(parseExactNumber(text)).toBeNull();
    },
  );

  it(`rejects a part with more than ${MAX_ANSWER_DIGITS} digits`, () => {
    expect(parseExactNumber('9'.repeat(MAX_ANSWER_DIGITS))).toEqual({ num: BigInt('9'.repeat(MAX_ANSWER_DIGITS)), den: 1n });
    expect(parseExactNumber('9'.repeat(MAX_ANSWER_DIGITS + 1))).toBeNull();
    expect(parseExactNumber(`1/${'9'.repeat(MAX_ANSWER_DIGITS + 1)}`)).toBeNull();
  });

  test.prop([rational])('returns reduced values with a positive denominator', ({ num, den }) => {
    const parsed = parseExactNumber(`${num}/${den}`);
    expect(parsed).not.toBeNull();
    const { num: n, den: d } = parsed as ExactNumber;
    expect(d > 0n).toBe(true);
    expect(gcd(n, d)).toBe(1n);
    expect(n * den).toBe(num * d);
  });

  test.prop([bigInt, fc.nat({ max: 6 }), fc.nat({ max: 6 })])(
    'trailing zeros after the point do not change the value',
    (n, k, zeros) => {
      const abs = (n < 0n ? -n : n).toString().padStart(k + 1, '0');
      const sign = n < 0n ? '-' : '';
      const text = k === 0 ? `${sign}${abs}` : `${sign}${abs.slice(0, -k)}.${abs.slice(-k)}`;
      const padded = `${text}${k === 0 && zeros > 0 ? '.' : ''}${'0'.repeat(zeros)}`;
      const a = parseExactNumber(text);
      const b = parseExactNumber(padded);
      expect(a).not.toBeNull();
      expect(b).toEqual(a);
      // The value is n / 10^k exactly.
      expect(exactNumbersEqual(a as ExactNumber, { num: n, den: 10n ** BigInt(k) })).toBe(true);
    },
  );
});

describe('formatExactNumber', () => {
  it('writes integers, terminating decimals and other fractions', () => {
    expect(formatExactNumber({ num: -12n, den: 1n })).toBe('-12');
    expect(formatExactNumber({ num: 3n, den: 4n })).toBe('0.75');
    expect(formatExactNumber({ num: -7n, den: 2n })).toBe('-3.5');
    expect(formatExactNumber({ num: 1n, den: 80n })).toBe('0.0125');
    expect(formatExactNumber({ num: 2n, den: 6n })).toBe('1/3');
    expect(formatExactNumber({ num: 5n, den: -15n })).toBe('-1/3');
    expect(formatExactNumber({ num: 0n, den: 7n })).toBe('0');
  });

  test.prop([rational])('parse(format(x)) is x, reduced', ({ num, den }) => {
    const parsed = parseExactNumber(formatExactNumber({ num, den }));
    expect(parsed).not.toBeNull();
    const g = gcd(num, den);
    expect(parsed).toEqual({ num: num / g, den: den / g });
  });

  it('throws on a zero denominator', () => {
    expect(() => formatExactNumber({ num: 1n, den: 0n })).toThrow(RlAdvantagesError);
    expect(() => formatExactNumber({ num: 1n, den: 0n })).toThrow(/value\.den must be nonzero/);
  });
});

describe('exactNumbersEqual', () => {
  it('compares values, not spellings', () => {
    expect(exactNumbersEqual({ num: 18n, den: 1n }, { num: 1800n, den: 100n })).toBe(true);
    expect(exactNumbersEqual({ num: 1n, den: 3n }, { num: -1n, den: -3n })).toBe(true);
    expect(exactNumbersEqual({ num: 1n, den: 3n }, { num: 333n, den: 1000n })).toBe(false);
  });

  test.prop([rational, rational])('is symmetric', (a, b) => {
    expect(exactNumbersEqual(a, b)).toBe(exactNumbersEqual(b, a));
  });

  test.prop([rational, fc.bigInt({ min: 1n, max: 10n ** 6n })])('is invariant to scaling both parts', (a, k) => {
    expect(exactNumbersEqual(a, { num: a.num * k, den: a.den * k })).toBe(true);
    expect(exactNumbersEqual(a, { num: a.num * k + 1n, den: a.den * k })).toBe(false);
  });

  test.prop([rational, rational])('agrees with equality of the parsed canonical texts', (a, b) => {
    const sameText = formatExactNumber(a) === formatExactNumber(b);
    expect(exactNumbersEqual(a, b)).toBe(sameText);
  });

  it('throws a named error for a bad operand', () => {
    expect(() => exactNumbersEqual({ num: 1n, den: 1n }, { num: 1n, den: 0n })).toThrow(/b\.den must be nonzero/);
    expect(() => exactNumbersEqual({ num: 1, den: 1 } as unknown as ExactNumber, { num: 1n, den: 1n })).toThrow(
      /a must be \{num: bigint, den: bigint\}/,
    );
  });
});
