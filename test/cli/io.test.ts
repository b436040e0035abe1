// The CLI's file reading: JSON-lines rows whose errors name the file, line and field.
import { describe, expect, it } from 'vitest';
import { RlAdvantagesError } from '../../src/errors.js';
import { CliUsageError } from '../../src/cli/core.js';
import { atRow, lineOfPath, parseJson, parseJsonl } from '../../src/cli/io.js';

function messageOf(f: () => unknown): string {
  try {
    f();
  } catch (error) {
    expect(error).toBeInstanceOf(CliUsageError);
    return (error as Error).message;
  }
  throw new Error('did not throw');
}

describe('parseJsonl', () => {
  it('counts every physical line, skips blank ones, keeps CRLF files and extra fields', () => {
    const rows = parseJsonl('{"a": 1}\r\n\n  \n{"a": 2, "b": "x"}\n', 'f.jsonl');
    expect(rows.map((r) => [r.line, r.value])).toEqual([
      [1, { a: 1 }],
      [4, { a: 2, b: 'x' }],
    ]);
  });

  it('names the line of bad JSON and of a row that is not an object', () => {
    expect(messageOf(() => parseJsonl('{"a": 1}\n{"a": }\n', 'f.jsonl'))).toBe(`f.jsonl:2: not valid JSON (Unexpected token '}')`);
    expect(messageOf(() => parseJsonl('\n"text"\n', 'f.jsonl'))).toBe('f.jsonl:2: must be a JSON object, got "text"');
    expect(messageOf(() => parseJsonl('{}', '-')[0]?.number('x'))).toBe('<stdin>:1: field "x": is missing (a finite number)');
  });
});

describe('Row', () => {
  const [row] = parseJsonl('\n{"reward": "x", "n": 1e400, "ok": true, "id": "", "v": [1, null]}\n', 'in.jsonl');
  it('reports the file, line and field with what was found', () => {
    expect(messageOf(() => row?.number('reward'))).toBe('in.jsonl:2: field "reward": must be a finite number, got "x"');
    expect(messageOf(() => row?.number('n'))).toBe('in.jsonl:2: field "n": must be a finite number, got Infinity');
    expect(messageOf(() => row?.string('prompt', 'the prompt text'))).toBe('in.jsonl:2: field "prompt": is missing (the prompt text)');
    expect(messageOf(() => row?.id('id'))).toBe('in.jsonl:2: field "id": must be a non-empty string or an integer within +-(2^53 - 1), got ""');
    expect(messageOf(() => row?.numbers('v'))).toBe('in.jsonl:2: field "v[1]": must be a finite number, got null');
    expect(row?.boolean('ok')).toBe(true);
    expect(row?.optionalString('absent')).toBeUndefined();
  });

  it('reads ids exactly: integers within 2^53 - 1 and strings; a larger number or a fraction is refused', () => {
    const [ids] = parseJsonl('{"a": 9007199254740991, "b": "9007199254740993", "c": 9007199254740993, "d": 1.5, "e": true}\n', 'g.jsonl');
    expect([ids?.id('a'), ids?.id('b')]).toEqual([9007199254740991, '9007199254740993']);
    expect(messageOf(() => ids?.id('c'))).toBe(
      'g.jsonl:1: field "c": must be a non-empty string or an integer within +-(2^53 - 1), got 9007199254740992 (a JSON number beyond loses its identity: write such ids as strings)',
    );
    expect(messageOf(() => ids?.id('d'))).toMatch(/field "d": must be a non-empty string or an integer within/);
    expect(messageOf(() => ids?.id('e'))).toMatch(/field "e": .* got boolean$/);
  });
});

describe('atRow', () => {
  it("restates a library error about element i as the row's line and field", () => {
    const error = new RlAdvantagesError('rewards[1] must be a finite number, got NaN', { code: 'non_finite', field: 'rewards', index: 1 });
    expect(atRow(error, 'b.jsonl', { rewards: 'reward' }, (i) => [3, 7][i]).message).toBe('b.jsonl:7: field "reward": must be a finite number, got NaN');
    const whole = new RlAdvantagesError('groupIds is required: group_mean takes its baseline within each group', { code: 'missing_field', field: 'groupIds' });
    expect(atRow(whole, 'b.jsonl', { groupIds: 'group' }, () => 1).message).toBe(
      'b.jsonl: field "group": is required: group_mean takes its baseline within each group',
    );
  });
});

describe('parseJson and lineOfPath', () => {
  const text = '{\n  "a": {\n    "b": 1,\n    "x.y": {"c": 2}\n  },\n  "c": 3\n}\n';
  it('finds the line of a JSON path, a key searched after its parent', () => {
    expect(lineOfPath(text, 'a.b')).toBe(3);
    expect(lineOfPath(text, 'c')).toBe(4); // the first "c": key, inside "x.y" (the approximation the TSDoc states)
    expect(lineOfPath(text, ['a', 'x.y', 'c'])).toBe(4);
    expect(lineOfPath(text, 'a.missing')).toBeUndefined();
    expect(lineOfPath(text, 'arms[1].name')).toBeUndefined();
  });
  it('names the line of a JSON syntax error when V8 gives its position', () => {
    expect(messageOf(() => parseJson('{\n  "a": 1,\n}\n', 'm.json'))).toMatch(/^m\.json:3: not valid JSON/);
    expect(parseJson('[1]', 'm.json')).toEqual([1]);
  });
});
