// Text features of a prompt (docs/method.md section 2.5), shared by the `length`, `features` and `difficulty`
// kernel families and the tuner.
import { sklearnTokenizer } from '../text/tokenize.js';

/** The names of {@link textFeatures}' entries, in order. */
export const TEXT_FEATURE_NAMES = Object.freeze([
  'log_chars',
  'log_words',
  'numbers',
  'sentences',
  'each_per',
  'fraction',
  'compare',
  'money',
  'time',
  'left',
  'total',
  'rate',
] as const);

/** A text feature name. */
export type TextFeatureName = (typeof TEXT_FEATURE_NAMES)[number];

/** Counts the `length` family can use (docs/method.md section 2.4). */
export const LENGTH_MEASURES = Object.freeze(['chars', 'words', 'tokens', 'numbers', 'sentences'] as const);

/** A count of the `length` family. */
export type LengthMeasure = (typeof LENGTH_MEASURES)[number];

const NUMBER_WORDS =
  'one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand|million|dozen|twice|half|double|triple';
const NUMERALS = new RegExp(`\\d+(?:[.,]\\d+)*|\\b(?:${NUMBER_WORDS})\\b`, 'gi');
const SENTENCES = /[.!?]+(?=\s|$)/g;
const GROUPS: readonly RegExp[] = [
  /\b(?:each|per|every|times|twice|double|triple)\b/gi,
  /\b(?:percent|half|quarter|third|fraction)\b|%/gi,
  /\b(?:more|less|fewer|than|longer|shorter|older|younger)\b/gi,
  /\$|\b(?:dollars?|cents?|price|costs?|pays?|paid|earns?|sells?|sold|buys?|bought)\b/gi,
  /\b(?:seconds?|minutes?|hours?|days?|weeks?|months?|years?)\b/gi,
  /\b(?:left|remaining|remain|rest)\b/gi,
  /\b(?:total|altogether|combined|sum)\b/gi,
  /\b(?:rate|speed|mph|average)\b/gi,
];

function count(text: string, pattern: RegExp): number {
  pattern.lastIndex = 0;
  let n = 0;
  while (pattern.exec(text) !== null) n++;
  return n;
}

function codePoints(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

function words(text: string): number {
  const trimmed = text.trim();
  return trimmed === '' ? 0 : trimmed.split(/\s+/).length;
}

/**
 * The count n of one {@link LengthMeasure} of a prompt (docs/method.md section 2.4): code points, whitespace words,
 * section-3 tokens, numerals and number words, or sentences (at least 1).
 *
 * @example
 * ```ts
 * lengthCount('Ann buys twelve pens for $3.50.', 'numbers'); // 2: "twelve" and "3.50"
 * ```
 */
export function lengthCount(prompt: string, measure: LengthMeasure): number {
  switch (measure) {
    case 'chars':
      return codePoints(prompt);
    case 'words':
      return words(prompt);
    case 'tokens':
      return sklearnTokenizer.tokenize(prompt.toLowerCase()).length;
    case 'numbers':
      return count(prompt, NUMERALS);
    case 'sentences':
      return Math.max(1, count(prompt, SENTENCES));
  }
}

/**
 * The text features of a prompt, in the order of {@link TEXT_FEATURE_NAMES} (docs/method.md section 2.5).
 *
 * @example
 * ```ts
 * textFeatures('Tom has 3 apples. He buys 2 more each day.')[2]; // 2 numerals
 * ```
 */
export function textFeatures(prompt: string): Float64Array {
  const out = new Float64Array(TEXT_FEATURE_NAMES.length);
  out[0] = Math.log1p(codePoints(prompt));
  out[1] = Math.log1p(words(prompt));
  out[2] = count(prompt, NUMERALS);
  out[3] = Math.max(1, count(prompt, SENTENCES));
  GROUPS.forEach((pattern, g) => (out[4 + g] = count(prompt, pattern)));
  return out;
}

/** Mean and sd (population, n) of every column of row-major data; an sd of 0 is reported as 1 (the column is constant). */
export function columnMoments(data: Float64Array, rows: number, dimension: number): { means: number[]; sds: number[] } {
  const means: number[] = [];
  const sds: number[] = [];
  for (let d = 0; d < dimension; d++) {
    let mean = 0;
    for (let r = 0; r < rows; r++) mean += data[r * dimension + d] as number;
    mean /= rows;
    let squares = 0;
    for (let r = 0; r < rows; r++) {
      const x = (data[r * dimension + d] as number) - mean;
      squares += x * x;
    }
    const sd = Math.sqrt(squares / rows);
    means.push(mean);
    sds.push(sd > 0 && Number.isFinite(sd) ? sd : 1);
  }
  return { means, sds };
}

/** The text features of each prompt, row-major [prompts.length, 12]. */
export function featureMatrix(prompts: readonly string[]): Float64Array {
  const d = TEXT_FEATURE_NAMES.length;
  const out = new Float64Array(prompts.length * d);
  prompts.forEach((p, r) => out.set(textFeatures(p), r * d));
  return out;
}

/** (x - mean) / sd per column, into a new row-major array. */
export function standardise(data: Float64Array, rows: number, means: readonly number[], sds: readonly number[]): Float64Array {
  const d = means.length;
  const out = new Float64Array(rows * d);
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < d; c++) out[r * d + c] = ((data[r * d + c] as number) - (means[c] as number)) / (sds[c] as number);
  }
  return out;
}
