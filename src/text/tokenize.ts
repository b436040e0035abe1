/**
 * A tokenizer turns one document into its list of terms. The default, {@link sklearnTokenizer},
 * reproduces scikit-learn's `TfidfVectorizer()` analyzer exactly; any other tokenizer makes a
 * kernel *variant*, recorded by its `name` in the vectorizer's JSON so a saved vectorizer
 * cannot silently be reloaded with a different one.
 */
export interface Tokenizer {
  /** A stable name saved with a fitted vectorizer (`sklearn` for the default). */
  readonly name: string;
  /** The terms of `text`, in order, repeats kept (term frequency counts them). */
  tokenize(text: string): string[];
}

// Python's `(?u)\b\w\w+\b`: a word character is a Unicode letter, a Unicode number, or `_`.
// A greedy run scanned left to right can only start at a run's first character, so every match
// is a maximal run of length >= 2 (counted in code points, as Python counts them).
const SKLEARN_TOKEN = /[\p{L}\p{N}_]{2,}/gu;

/**
 * scikit-learn's default word analyzer without lower-casing: maximal runs of two or more word
 * characters (docs/method.md section 3). Lower-casing is the vectorizer's `lowercase` option, applied
 * before tokenizing, as scikit-learn's preprocessor does.
 *
 * @example
 * ```ts
 * sklearnTokenizer.tokenize("it's 3.5 km_h a"); // ["it", "km_h"]: "s", "3", "5", "a" are single characters
 * ```
 */
export const sklearnTokenizer: Tokenizer = Object.freeze({
  name: 'sklearn',
  tokenize(text: string): string[] {
    return text.match(SKLEARN_TOKEN) ?? [];
  },
});

/**
 * Orders strings by Unicode code point, as Python's `sorted()` does (scikit-learn sorts its
 * vocabulary this way). JavaScript's default comparison uses UTF-16 code units, which puts
 * astral characters (surrogate pairs, 0xD800-0xDFFF) before U+E000-U+FFFF; remapping the unit
 * ranges restores code point order without decoding.
 */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return remapUnit(x) - remapUnit(y);
  }
  return a.length - b.length;
}

function remapUnit(unit: number): number {
  if (unit >= 0xe000) return unit - 0x800;
  if (unit >= 0xd800) return unit + 0x2000;
  return unit;
}
