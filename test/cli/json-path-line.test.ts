// lineOfJsonPath: the line of a spec field with its indices honoured, so `arms[1].name` is the second arm's line.
import { describe, expect, it } from 'vitest';
import { lineOfJsonPath } from '../../src/cli/json-path-line.js';

const text = JSON.stringify(
  { arms: [{ name: 'a', advantage: 'group_mean' }, { name: 'b' }], decision_rule: { comparisons: [{ id: 'x', margin: -0.05 }, { id: 'y' }], alpha: 0.05 }, s: 'q"\\[{' },
  null,
  2,
);
const lineOf = (needle: string, from = 0): number => text.slice(0, text.indexOf(needle, from)).split('\n').length;

describe('lineOfJsonPath', () => {
  it('finds keys and array elements by index', () => {
    expect(lineOfJsonPath(text, 'arms[0].name')).toBe(lineOf('"name": "a"'));
    expect(lineOfJsonPath(text, 'arms[1].name')).toBe(lineOf('"name": "b"'));
    expect(lineOfJsonPath(text, 'arms[1]')).toBe(lineOf('"name": "b"') - 1);
    expect(lineOfJsonPath(text, 'decision_rule.comparisons[1].id')).toBe(lineOf('"id": "y"'));
    expect(lineOfJsonPath(text, 'decision_rule.alpha')).toBe(lineOf('"alpha"'));
    expect(lineOfJsonPath(text, 's')).toBe(lineOf('"s"'));
  });

  it('an absent field gives its nearest present parent; nothing matching, or text that is not JSON, gives undefined', () => {
    expect(lineOfJsonPath(text, 'decision_rule.comparisons[1].margin')).toBe(lineOf('"id": "y"') - 1);
    expect(lineOfJsonPath(text, 'nothing.here')).toBeUndefined();
    expect(lineOfJsonPath(text, '')).toBeUndefined();
    expect(lineOfJsonPath('{"a": [1, 2', 'a[5]')).toBe(1);
    expect(lineOfJsonPath('not json', 'a')).toBeUndefined();
  });

  it('on one line, everything is line 1', () => {
    expect(lineOfJsonPath('{"arms":[{"name":"a"},{"name":"b"}]}', 'arms[1].name')).toBe(1);
  });
});
