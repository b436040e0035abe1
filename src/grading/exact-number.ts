// Exact rational numbers for answer grading: normalisation, parsing and formatting (docs/method.md section 7).
// No floating point anywhere: "0.1 + 0.2" style rounding must never decide whether an answer is correct.
import { RlAdvantagesError } from '../errors.js';
import { describe } from '../internal/validate.js';

/**
 * An exact rational number `num / den`. Values returned by this module are reduced:
 * `den > 0` and `gcd(|num|, den) = 1`, with zero as `{ num: 0n, den: 1n }`.
 */
export interface ExactNumber {
  readonly num: bigint;
  readonly den: bigint;
}

/**
 * The most digits one numeric part (numerator, denominator or a plain decimal) may have before
 * `parseExactNumber` gives up and returns `null`. It bounds BigInt work on adversarial responses and
 * keeps the Python twin (whose `int()` refuses more than 4300 digits by default) in step.
 */
export const MAX_ANSWER_DIGITS = 1000;

// The whitespace trimmed from answers: an explicit set, so the TypeScript and Python graders agree
// character for character (JS `trim()` and Python `str.strip()` disagree on a few code points).
const TRIM_RE = /^[ \t\n\r\f\v\u00a0]+|[ \t\n\r\f\v\u00a0]+$/g;

// LaTeX spacing commands (thin, medium, thick, negative thin space), as in `1\,000`.
const LATEX_SPACING_RE = /\\[,:;!]/g;
const DECIMAL_RE = /^([+-]?)([0-9]*)(?:\.([0-9]*))?$/;
const LATEX_FRAC_RE = /^([+-]?)\\[dt]?frac\{([^{}]*)\}\{([^{}]*)\}$/;
const SLASH_FRAC_RE = /^([^/]*)\/([^/]*)$/;

/**
 * Trims the answer whitespace set (space, tab, CR, LF, FF, VT, NBSP) from both ends. Internal: shared
 * with `gsm8k.ts` so reference answers are trimmed exactly as the Python twin trims them.
 * @internal
 */
export function trimAnswerWhitespace(text: string): string {
  return text.replace(TRIM_RE, '');
}

/**
 * Normalises an answer string before it is parsed as a number (docs/method.md section 7).
 *
 * In order: replace the Unicode minus `−` (U+2212) with `-`; delete LaTeX spacing commands
 * (`\,` `\:` `\;` `\!`); delete every `\$` and `$`; delete every `,` (thousands separators); then, until
 * nothing changes: trim whitespace (space, tab, CR, LF, FF, VT, NBSP), unwrap a surrounding `\text{...}`
 * or a surrounding brace group `{...}`, drop one trailing `%` or `\%`, drop one trailing `.`.
 *
 * A trailing percent sign is dropped without dividing by 100: GSM8K writes the answer to a "what
 * percent" question as the bare number (`#### 25`), and the cookbook's normaliser drops `%` the same way.
 * docs/method.md names trim, `$`, `,`, trailing `.` and `\text{}`; the other steps are our additions and are
 * pinned by cases in `test/fixtures/grading-cases.jsonl`.
 *
 * @param text - A raw answer, e.g. the content of a `\boxed{}`.
 * @returns The normalised text (possibly empty).
 * @throws {RlAdvantagesError} `bad_type` when `text` is not a string.
 * @example
 * ```ts
 * import { normalizeAnswer } from 'rl-advantages/data';
 * normalizeAnswer(' \\text{\\$1,000.} '); // '1000'
 * normalizeAnswer('{25\\%}'); // '25'
 * ```
 */
export function normalizeAnswer(text: string): string {
  checkText('text', text);
  let s = text
    .replace(/\u2212/g, '-')
    .replace(LATEX_SPACING_RE, '')
    .replace(/\\\$/g, '')
    .replace(/\$/g, '')
    .replace(/,/g, '');
  for (;;) {
    const before = s;
    s = trimAnswerWhitespace(s);
    s = unwrapSurrounding(s, '\\text{') ?? unwrapSurrounding(s, '{') ?? s;
    if (s.endsWith('\\%')) s = s.slice(0, -2);
    else if (s.endsWith('%')) s = s.slice(0, -1);
    if (s.endsWith('.')) s = s.slice(0, -1);
    if (s === before) return s;
  }
}

/**
 * Parses an answer as an exact rational number, after `normalizeAnswer`.
 *
 * Accepted forms (whole string, no inner spaces except around `/` and inside `\frac` braces):
 * - a decimal: optional sign, digits, optional `.` and digits, at least one digit: `18`, `-3.5`,
 *   `.5`, `+7`, `18.00`; no exponents (`1e3`), no mixed numbers (`7 3/4`), no units;
 * - `a/b` where `a` is a signed decimal and `b` an unsigned decimal: `3/4`, `-1.5/2`;
 * - `\frac{a}{b}`, `\dfrac{a}{b}` or `\tfrac{a}{b}`, optionally preceded by a sign, with the same
 *   `a` and `b` (`-\frac{3}{4}`, `\frac{-3}{4}`); the shorthand `\frac34` is not accepted.
 *
 * A zero denominator, or a part with more than `MAX_ANSWER_DIGITS` digits, gives `null`.
 *
 * Formula: a decimal `d.f` with `k` fraction digits is `(d·10^k + f) / 10^k`; a fraction is the
 * quotient of its parts; the result is reduced by their gcd. Reference: docs/method.md section 7.
 *
 * @param text - A raw or normalised answer.
 * @returns The reduced rational, or `null` when the text is not one of the forms above.
 * @throws {RlAdvantagesError} `bad_type` when `text` is not a string.
 * @example
 * ```ts
 * import { parseExactNumber } from 'rl-advantages/data';
 * parseExactNumber('$1,000.00'); // { num: 1000n, den: 1n }
 * parseExactNumber('\\frac{6}{8}'); // { num: 3n, den: 4n }
 * parseExactNumber('0.75'); // { num: 3n, den: 4n }
 * parseExactNumber('18 apples'); // null
 * ```
 */
export function parseExactNumber(text: string): ExactNumber | null {
  const s = normalizeAnswer(text);
  const latex = LATEX_FRAC_RE.exec(s);
  if (latex) {
    const [, outerSign = '', numText = '', denText = ''] = latex;
    const value = parseQuotient(numText, denText);
    return value !== null && outerSign === '-' ? { num: -value.num, den: value.den } : value;
  }
  const slash = SLASH_FRAC_RE.exec(s);
  if (slash) {
    const [, numText = '', denText = ''] = slash;
    return parseQuotient(numText, denText);
  }
  const value = parseDecimal(s);
  return value === null ? null : reduce(value.num, value.den);
}

/**
 * Formats an exact number so that `parseExactNumber` reads it back to the same value: an integer as
 * `-12`; a number whose reduced denominator has no prime factors other than 2 and 5 as a terminating
 * decimal (`0.75`, `-3.5`); anything else as `num/den` (`1/3`).
 *
 * @param value - A rational with a nonzero denominator (it need not be reduced).
 * @returns The canonical text of the reduced value.
 * @throws {RlAdvantagesError} `bad_denominator` when `value.den` is zero; `bad_type` when a part is not a bigint.
 * @example
 * ```ts
 * import { formatExactNumber } from 'rl-advantages/data';
 * formatExactNumber({ num: 3n, den: 4n }); // '0.75'
 * formatExactNumber({ num: 2n, den: 6n }); // '1/3'
 * ```
 */
export function formatExactNumber(value: ExactNumber): string {
  const { num, den } = checkExact('value', value);
  const sign = num < 0n ? '-' : '';
  const abs = num < 0n ? -num : num;
  if (den === 1n) return sign + abs.toString();
  let twos = 0;
  let fives = 0;
  let rest = den;
  while (rest % 2n === 0n) {
    rest /= 2n;
    twos++;
  }
  while (rest % 5n === 0n) {
    rest /= 5n;
    fives++;
  }
  if (rest !== 1n) return `${num}/${den}`;
  // den = 2^a 5^b divides 10^k for k = max(a, b), so the decimal terminates after k digits.
  const k = Math.max(twos, fives);
  const digits = ((abs * 10n ** BigInt(k)) / den).toString().padStart(k + 1, '0');
  return `${sign}${digits.slice(0, -k)}.${digits.slice(-k)}`;
}

/**
 * Exact equality of two rationals, `a.num · b.den = b.num · a.den` (valid for any nonzero
 * denominators, reduced or not). Symmetric and exact; `18.00` equals `18`.
 *
 * @throws {RlAdvantagesError} `bad_denominator` when a denominator is zero; `bad_type` when a part is not a bigint.
 * @example
 * ```ts
 * import { exactNumbersEqual, parseExactNumber } from 'rl-advantages/data';
 * exactNumbersEqual(parseExactNumber('3/4')!, parseExactNumber('0.75')!); // true
 * ```
 */
export function exactNumbersEqual(a: ExactNumber, b: ExactNumber): boolean {
  const x = checkRaw('a', a);
  const y = checkRaw('b', b);
  return x.num * y.den === y.num * x.den;
}

function parseQuotient(numText: string, denText: string): ExactNumber | null {
  const n = parseDecimal(trimAnswerWhitespace(numText));
  const d = parseDecimal(trimAnswerWhitespace(denText), false);
  if (n === null || d === null || d.num === 0n) return null;
  // (n.num / n.den) / (d.num / d.den), with d.num > 0 because the denominator is unsigned.
  return reduce(n.num * d.den, n.den * d.num);
}

/** Parses a plain decimal into an unreduced `num / 10^k`; `signed = false` forbids a sign. */
function parseDecimal(s: string, signed = true): { num: bigint; den: bigint } | null {
  const m = DECIMAL_RE.exec(s);
  if (!m) return null;
  const [, sign = '', intDigits = '', fracDigits = ''] = m;
  if (!signed && sign !== '') return null;
  const digitCount = intDigits.length + fracDigits.length;
  if (digitCount === 0 || digitCount > MAX_ANSWER_DIGITS) return null;
  const magnitude = BigInt(intDigits + fracDigits);
  return { num: sign === '-' ? -magnitude : magnitude, den: 10n ** BigInt(fracDigits.length) };
}

function reduce(num: bigint, den: bigint): ExactNumber {
  if (den < 0n) {
    num = -num;
    den = -den;
  }
  const g = gcd(num < 0n ? -num : num, den);
  return { num: num / g, den: den / g };
}

function gcd(a: bigint, b: bigint): bigint {
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}

/** If `s` is `opener ... }` with the opener's brace matching the final `}`, returns the inside. */
function unwrapSurrounding(s: string, opener: string): string | null {
  if (!s.startsWith(opener) || !s.endsWith('}')) return null;
  let depth = 0;
  for (let i = opener.length - 1; i < s.length; i++) {
    const ch = s[i];
    if (ch === '{') depth++;
    else if (ch === '}') {
      depth--;
      // The opener's brace closes here; it must be the last character for the wrap to be "surrounding".
      if (depth === 0) return i === s.length - 1 ? s.slice(opener.length, -1) : null;
    }
  }
  return null;
}

function checkText(field: string, value: unknown): void {
  if (typeof value !== 'string') {
    throw new RlAdvantagesError(`${field} must be a string, got ${describe(value)}`, { code: 'bad_type', field });
  }
}

function checkRaw(field: string, value: ExactNumber): ExactNumber {
  if (typeof value !== 'object' || value === null || typeof value.num !== 'bigint' || typeof value.den !== 'bigint') {
    throw new RlAdvantagesError(`${field} must be {num: bigint, den: bigint}, got ${describe(value)}`, {
      code: 'bad_type',
      field,
    });
  }
  if (value.den === 0n) {
    throw new RlAdvantagesError(`${field}.den must be nonzero, got 0`, { code: 'bad_denominator', field: `${field}.den` });
  }
  return value;
}

function checkExact(field: string, value: ExactNumber): ExactNumber {
  const raw = checkRaw(field, value);
  return reduce(raw.num, raw.den);
}
