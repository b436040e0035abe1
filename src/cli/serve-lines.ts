// The framing of rl-adv serve's input: one request a line, a line ending at LF (or CRLF), bounded in length, and
// what can be read from a line that does not parse (its id, a bare NaN), in linear time whatever its size.
import type { Readable } from 'node:stream';

/** A request id: echoed in the response. */
export type RequestId = string | number;

/** The default longest request line, in bytes (`rl-adv serve --max-request-bytes`). */
export const DEFAULT_MAX_REQUEST_BYTES = 128 * 1024 * 1024;

/** V8's longest string is about 2^29 characters: a longer line could not be parsed at all. */
export const MAX_REQUEST_BYTES_LIMIT = 512 * 1024 * 1024;

/** How much of an over-long line is kept to read its id from. */
const HEAD_BYTES = 64 * 1024;

/** One input line: its text, or, past the limit, its size and first bytes. */
export type InputLine = { readonly text: string } | { readonly tooLarge: number; readonly head: string };

/**
 * The lines of `input`, split at LF only (a CRLF's CR is dropped; a lone CR stays in the line, where JSON reads it
 * as whitespace), each at most `maxBytes` bytes: a longer one is skipped to its end without being kept, and
 * given as its size and first 64 KiB. The last line may lack its LF.
 *
 * @param maxBytes - the longest line kept, in bytes (its LF and CR not counted).
 * @example
 * for await (const line of requestLines(process.stdin, DEFAULT_MAX_REQUEST_BYTES)) console.log(line);
 */
export async function* requestLines(input: Readable | AsyncIterable<Buffer | string>, maxBytes: number): AsyncGenerator<InputLine> {
  let parts: Buffer[] = [];
  let size = 0; // bytes of the current line seen so far (kept in parts unless over the limit)
  let over = false;
  let head = '';
  const finish = (): InputLine => {
    const line: InputLine = over ? { tooLarge: size, head } : keptLine(Buffer.concat(parts, size), maxBytes);
    parts = [];
    size = 0;
    over = false;
    head = '';
    return line;
  };
  for await (const raw of input) {
    let chunk = typeof raw === 'string' ? Buffer.from(raw) : raw;
    for (let newline = chunk.indexOf(0x0a); ; newline = chunk.indexOf(0x0a)) {
      const piece = newline < 0 ? chunk : chunk.subarray(0, newline);
      if (!over && size + piece.length > maxBytes + 1) {
        // Over the limit (one byte spared for a CRLF's CR): keep the head only, drop the rest as it comes.
        head = Buffer.concat([...parts, piece], size + piece.length).subarray(0, HEAD_BYTES).toString('utf8');
        parts = [];
        over = true;
      } else if (!over && piece.length > 0) {
        parts.push(piece);
      }
      size += piece.length;
      if (newline < 0) break;
      yield finish();
      chunk = chunk.subarray(newline + 1);
    }
  }
  if (size > 0) yield finish();
}

/** A kept line as text, without a CRLF's CR (or as too large, if it is over the limit without that CR). */
function keptLine(bytes: Buffer, maxBytes: number): InputLine {
  const end = bytes.length > 0 && bytes[bytes.length - 1] === 0x0d ? bytes.length - 1 : bytes.length;
  return end > maxBytes ? { tooLarge: bytes.length, head: bytes.toString('utf8', 0, Math.min(end, HEAD_BYTES)) } : { text: bytes.toString('utf8', 0, end) };
}

/** The index after the string starting at `start` (a `"`), or the line's length if it is unterminated. */
function stringEnd(line: string, start: number): number {
  for (let j = start + 1; j < line.length; j++) {
    const c = line.charCodeAt(j);
    if (c === 0x5c) j++;
    else if (c === 0x22) return j + 1;
  }
  return line.length;
}

function skipSpace(line: string, start: number): number {
  let j = start;
  while (j < line.length && ' \t\r\n'.includes(line[j] as string)) j++;
  return j;
}

const NUMBER = /-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?/y;

/** The id value at `start`: a non-empty string or a finite number, else null. */
function idValue(line: string, start: number): RequestId | null {
  let text: string;
  if (line[start] === '"') {
    text = line.slice(start, stringEnd(line, start));
  } else {
    NUMBER.lastIndex = start;
    const m = NUMBER.exec(line);
    if (m === null) return null;
    text = m[0];
  }
  try {
    const id = JSON.parse(text) as unknown;
    return (typeof id === 'string' && id !== '') || (typeof id === 'number' && Number.isFinite(id)) ? id : null;
  } catch {
    return null;
  }
}

/**
 * What a line that is not valid JSON still tells: the `"id"` of its top-level object (so the client waiting for
 * it gets its answer), and whether it holds a bare `NaN` / `Infinity` (Python's json.dumps writes them by default).
 * One pass, no regular expression over the whole line: linear in its length, whatever it holds.
 *
 * @example
 * scanBrokenLine('{"id": 7, "rewards": [NaN]}'); // { id: 7, nonFinite: true }
 */
export function scanBrokenLine(line: string): { id: RequestId | null; nonFinite: boolean } {
  let depth = 0;
  let id: RequestId | null = null;
  let nonFinite = false;
  let keyNext = false;
  for (let i = 0; i < line.length; ) {
    const c = line[i] as string;
    if (c === '"') {
      const end = stringEnd(line, i);
      if (depth === 1 && keyNext && id === null && end - i === 4 && line.startsWith('"id"', i)) {
        const colon = skipSpace(line, end);
        if (line[colon] === ':') id = idValue(line, skipSpace(line, colon + 1));
      }
      keyNext = false;
      i = end;
      continue;
    }
    if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') depth--;
    if (c === '{' || c === ',') keyNext = true;
    else if (!' \t\r\n'.includes(c)) keyNext = false;
    if (line.startsWith('NaN', i) || line.startsWith('Infinity', i)) nonFinite = true;
    i++;
  }
  return { id, nonFinite };
}
