import { describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { extractBoxed } from '../../src/grading/boxed.js';

// Text with no braces and no backslashes, so it can neither open nor close a box.
const plain = fc.string({ maxLength: 30 }).map((s) => s.replace(/[{}\\]/g, ''));

describe('extractBoxed', () => {
  it('returns the content of a single box verbatim', () => {
    expect(extractBoxed('The answer is \\boxed{ 18 }.')).toBe(' 18 ');
  });

  it('keeps nested brace groups whole', () => {
    expect(extractBoxed('\\boxed{\\frac{\\text{a}}{b}} done')).toBe('\\frac{\\text{a}}{b}');
  });

  it('returns the box that closes last', () => {
    expect(extractBoxed('\\boxed{1} \\boxed{2} \\boxed{3}')).toBe('3');
    expect(extractBoxed('\\boxed{\\boxed{3}}')).toBe('\\boxed{3}');
  });

  it('ignores a box that never closes and a stray closing brace', () => {
    expect(extractBoxed('\\boxed{12} then \\boxed{13')).toBe('12');
    expect(extractBoxed('\\boxed{13')).toBeNull();
    expect(extractBoxed('}} \\boxed{4} }')).toBe('4');
  });

  it('needs the brace right after \\boxed', () => {
    expect(extractBoxed('\\boxed {18}')).toBeNull();
    expect(extractBoxed('\\boxed 18')).toBeNull();
    expect(extractBoxed('boxed{18}')).toBeNull();
  });

  it('returns the empty string for an empty box and null for no box', () => {
    expect(extractBoxed('\\boxed{}')).toBe('');
    expect(extractBoxed('')).toBeNull();
  });

  test.prop([plain, plain, plain])('finds a brace-free answer between brace-free text', (before, inner, after) => {
    expect(extractBoxed(`${before}\\boxed{${inner}}${after}`)).toBe(inner);
  });

  test.prop([plain, plain, plain, plain])('the later of two boxes wins', (first, middle, second, after) => {
    expect(extractBoxed(`\\boxed{${first}}${middle}\\boxed{${second}}${after}`)).toBe(second);
  });

  test.prop([fc.string({ maxLength: 60 })])('text without "\\boxed{" has no box', (text) => {
    fc.pre(!text.includes('\\boxed{'));
    expect(extractBoxed(text)).toBeNull();
  });

  test.prop([fc.string({ maxLength: 60 }), plain])(
    'any extracted content is a substring that follows "\\boxed{"',
    (text, tail) => {
      const found = extractBoxed(text + tail);
      if (found !== null) expect((text + tail).includes(`\\boxed{${found}}`)).toBe(true);
    },
  );
});
