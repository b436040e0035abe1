// Counting a document's known terms without building a string per token (the transform of
// src/text/tfidf.ts for the default scikit-learn analyzer on pure-ASCII text, most prompts).
//
// scikit-learn's token pattern `(?u)\b\w\w+\b` on ASCII text is "maximal runs of two or more of
// [A-Za-z0-9_]". One left-to-right scan finds the runs, folds A-Z to a-z when lower-casing (what
// toLowerCase does to ASCII), hashes each run's char codes as it goes, and looks the run up in an
// open-addressing table built once from the fitted terms: a slot holds a column, its term's hash
// and, through `start`, its characters, compared code by code. No slice, no Map, no garbage.
// Any character above 127 makes the scan give up (the caller then takes the Unicode regex path).

/** 1 for the ASCII word characters of `(?u)\w`: letters, digits and `_`. */
export const ASCII_WORD = new Uint8Array(128);
for (let c = 0; c < 128; c++) ASCII_WORD[c] = /[A-Za-z0-9_]/.test(String.fromCharCode(c)) ? 1 : 0;

/** FNV-1a step over one char code (32-bit). */
function mix(hash: number, code: number): number {
  return Math.imul(hash ^ code, 16777619);
}
const SEED = 2166136261 | 0;

/** The fitted terms that are pure ASCII, hashed into a power-of-two table at load factor <= 1/4. */
export interface TermTable {
  /** slot -> column, -1 for an empty slot. */
  readonly column: Int32Array;
  /** slot -> hash of the slot's term. */
  readonly hash: Int32Array;
  readonly mask: number;
  /** column -> offset of its term in `chars` (columns of non-ASCII terms are never looked at). */
  readonly start: Int32Array;
  /** column -> its term's length. */
  readonly length: Int32Array;
  /** The ASCII terms' char codes, back to back. */
  readonly chars: Uint8Array;
}

/** Builds the table of the ASCII terms among `terms` (column = index in `terms`). */
export function buildTermTable(terms: readonly string[]): TermTable {
  let capacity = 16;
  while (capacity < 4 * terms.length) capacity *= 2;
  const mask = capacity - 1;
  const column = new Int32Array(capacity).fill(-1);
  const hash = new Int32Array(capacity);
  const start = new Int32Array(terms.length);
  const length = new Int32Array(terms.length);
  let total = 0;
  for (const term of terms) total += term.length;
  const chars = new Uint8Array(total);
  let at = 0;
  outer: for (let t = 0; t < terms.length; t++) {
    const term = terms[t] as string;
    let h = SEED;
    for (let i = 0; i < term.length; i++) {
      const code = term.charCodeAt(i);
      if (code > 127) continue outer;
      chars[at + i] = code;
      h = mix(h, code);
    }
    start[t] = at;
    length[t] = term.length;
    at += term.length;
    let slot = h & mask;
    while ((column[slot] as number) >= 0) slot = (slot + 1) & mask;
    column[slot] = t;
    hash[slot] = h;
  }
  return { column, hash, mask, start, length, chars };
}

/**
 * Adds the known tokens of an ASCII `text` to `counts` (column -> count), listing each column's
 * first occurrence in `touched`; returns how many columns were touched, or -1 if `text` has a
 * character above 127, in which case `counts` is left all zero (touched columns are reset).
 * `fold` lower-cases A-Z. `touched` must have room for text.length / 3 + 1 columns (a token
 * takes at least 2 characters plus a separator).
 */
export function countAsciiTerms(
  table: TermTable,
  text: string,
  fold: boolean,
  counts: Int32Array,
  touched: Int32Array,
): number {
  const { column, hash, mask, start, length: termLength, chars } = table;
  let distinct = 0;
  let tokenStart = -1;
  let h = SEED;
  const n = text.length;
  for (let i = 0; i <= n; i++) {
    // One past the end acts as a separator, closing a token that runs to the end.
    let code = i < n ? text.charCodeAt(i) : 32;
    if (code > 127) {
      for (let k = 0; k < distinct; k++) counts[touched[k] as number] = 0;
      return -1;
    }
    if (ASCII_WORD[code] === 1) {
      if (fold && code >= 65 && code <= 90) code += 32;
      if (tokenStart < 0) {
        tokenStart = i;
        h = SEED;
      }
      h = mix(h, code);
      continue;
    }
    if (tokenStart < 0) continue;
    const size = i - tokenStart;
    if (size >= 2) {
      let slot = h & mask;
      for (;;) {
        const c = column[slot] as number;
        if (c < 0) break;
        if (hash[slot] === h && termLength[c] === size && sameChars(text, tokenStart, size, chars, start[c] as number, fold)) {
          const before = counts[c] as number;
          if (before === 0) touched[distinct++] = c;
          counts[c] = before + 1;
          break;
        }
        slot = (slot + 1) & mask;
      }
    }
    tokenStart = -1;
  }
  return distinct;
}

function sameChars(text: string, from: number, size: number, chars: Uint8Array, at: number, fold: boolean): boolean {
  for (let j = 0; j < size; j++) {
    let code = text.charCodeAt(from + j);
    if (fold && code >= 65 && code <= 90) code += 32;
    if (code !== chars[at + j]) return false;
  }
  return true;
}
