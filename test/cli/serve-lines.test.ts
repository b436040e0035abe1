// The framing of rl-adv serve's input: LF (or CRLF) ends a line, a lone CR does not; a line over the limit is
// given as its size and head; what a broken line tells is read in one pass, whatever its size.
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { requestLines, scanBrokenLine, type InputLine } from '../../src/cli/serve-lines.js';

async function lines(chunks: readonly string[], maxBytes = 1000): Promise<InputLine[]> {
  const out: InputLine[] = [];
  for await (const line of requestLines(Readable.from(chunks.map((c) => Buffer.from(c))), maxBytes)) out.push(line);
  return out;
}

describe('requestLines', () => {
  it('splits at LF and CRLF only: a lone CR stays inside its line, where JSON reads it as whitespace', async () => {
    expect(await lines(['{"id":1,\r"a":2}\r\n{"id"', ':2}\n\n{"id":3}'])).toEqual([{ text: '{"id":1,\r"a":2}' }, { text: '{"id":2}' }, { text: '' }, { text: '{"id":3}' }]);
    const request = '{"id":7,\r"estimator":"group_mean",\r"rewards":[1,0]}';
    expect(JSON.parse(((await lines([request + '\n']))[0] as { text: string }).text)).toEqual({ id: 7, estimator: 'group_mean', rewards: [1, 0] });
  });

  it('keeps multi-byte characters split across chunks', async () => {
    const bytes = Buffer.from('{"p":"é漢"}\n');
    const parts = [bytes.subarray(0, 7), bytes.subarray(7, 9), bytes.subarray(9)];
    const out: InputLine[] = [];
    for await (const line of requestLines(Readable.from(parts), 100)) out.push(line);
    expect(out).toEqual([{ text: '{"p":"é漢"}' }]);
  });

  it('gives a line over the limit as its size and head, without keeping it, and goes on with the next line', async () => {
    const long = '{"id":"big","x":"' + 'a'.repeat(5000) + '"}';
    const out = await lines([long.slice(0, 3000), long.slice(3000) + '\n{"id":2}\n'], 100);
    expect(out).toEqual([{ tooLarge: long.length, head: expect.stringMatching(/^\{"id":"big","x":"a+$/) as string }, { text: '{"id":2}' }]);
    // At the limit exactly (a CRLF's CR not counted) a line is kept; one byte more is not.
    expect(await lines(['x'.repeat(10) + '\r\n' + 'y'.repeat(11) + '\n'], 10)).toEqual([{ text: 'x'.repeat(10) }, { tooLarge: 11, head: 'y'.repeat(11) }]);
    expect(await lines(['z'.repeat(12)], 10)).toEqual([{ tooLarge: 12, head: 'z'.repeat(12) }]);
  });
});

describe('scanBrokenLine', () => {
  it('reads the top-level id of a line that does not parse, wherever it is, and a bare NaN or Infinity', () => {
    expect(scanBrokenLine('{"id": 7, "rewards": [NaN]}')).toEqual({ id: 7, nonFinite: true });
    expect(scanBrokenLine('{"rewards": [1, 0], "x": {"id": 3}, "id": "step-2", oops}')).toEqual({ id: 'step-2', nonFinite: false });
    expect(scanBrokenLine('{"prompts": ["NaN \\"id\\": 4"], "id": -Infinity')).toEqual({ id: null, nonFinite: true });
    expect(scanBrokenLine('{"id": "", "x": 1,')).toEqual({ id: null, nonFinite: false });
  });

  it('takes linear time and no recursion on a 10 MB unterminated string', () => {
    const line = '{"id": 9, "prompts": ["' + 'a\\"'.repeat(3_500_000);
    expect(scanBrokenLine(line)).toEqual({ id: 9, nonFinite: false });
  });
});
