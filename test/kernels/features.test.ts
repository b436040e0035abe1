// Text features (docs/method.md section 2.5), known answers counted by hand.
import { describe, expect, it } from 'vitest';
import { TEXT_FEATURE_NAMES, lengthCount, textFeatures } from '../../src/index.js';

describe('textFeatures', () => {
  const prompt = 'Tom has 3 apples and buys twelve more each day. How many are left after 2 days? He pays $1.50 per apple.';
  const f = textFeatures(prompt);
  const get = (name: string) => f[TEXT_FEATURE_NAMES.indexOf(name as (typeof TEXT_FEATURE_NAMES)[number])];

  it('counts characters and words on a log scale', () => {
    expect(get('log_chars')).toBe(Math.log1p([...prompt].length));
    expect(get('log_words')).toBe(Math.log1p(22));
  });
  it('counts numerals and number words', () => {
    // 3, twelve, 2, 1.50
    expect(get('numbers')).toBe(4);
    expect(lengthCount(prompt, 'numbers')).toBe(4);
  });
  it('counts sentences and the operation-word groups', () => {
    expect(get('sentences')).toBe(3);
    expect(get('each_per')).toBe(2); // each, per
    expect(get('compare')).toBe(1); // more
    expect(get('money')).toBe(3); // buys, $, pays
    expect(get('time')).toBe(2); // day, days
    expect(get('left')).toBe(1);
    expect(get('total')).toBe(0);
  });
  it('gives at least one sentence and zero words for an empty prompt', () => {
    const empty = textFeatures('');
    expect(empty[0]).toBe(0);
    expect(empty[1]).toBe(0);
    expect(empty[3]).toBe(1);
    expect(lengthCount('', 'tokens')).toBe(0);
  });
});
