// The one spelling of a number inside an estimator name (`tfidf_kernel_loo_T0.1`, `passk_k4`): the shortest
// decimal that reads back as the same float64, never in exponent form, with no sign, no leading or trailing zero.

/**
 * The canonical decimal of a finite number: JavaScript's shortest round-trip digits (`String(x)`), written out
 * without an exponent (`1e-7` -> `0.0000001`, `1e21` -> `1000000000000000000000`). `Number(canonicalDecimal(x))
 * === x` for every finite x.
 *
 * @example
 * ```ts
 * canonicalDecimal(0.1); // "0.1"
 * canonicalDecimal(2e-3); // "0.002"
 * ```
 */
export function canonicalDecimal(x: number): string {
  const text = String(x);
  const match = /^(-?)(\d)(?:\.(\d+))?e([-+]\d+)$/.exec(text);
  if (match === null) return text;
  const [, sign, lead, rest = '', exp] = match as unknown as [string, string, string, string | undefined, string];
  const digits = lead + rest;
  const point = 1 + Number(exp); // digits before the decimal point
  if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return sign + digits + '0'.repeat(point - digits.length);
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}

/**
 * Reads a number written in canonical form ({@link canonicalDecimal}); anything else (`01`, `.1`, `1e-1`, `00.1`,
 * `0.10`, `+1`, ` 1`) gives `{ value: undefined, suggestions }`, with the canonical spellings the text may have
 * meant (`01` -> `1` and `0.1`).
 *
 * @example
 * ```ts
 * readCanonicalDecimal('0.1'); // { value: 0.1, suggestions: [] }
 * readCanonicalDecimal('1e-1'); // { value: undefined, suggestions: ['0.1'] }
 * ```
 */
export function readCanonicalDecimal(text: string): { value: number | undefined; suggestions: string[] } {
  const value = /^[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$/.test(text) ? Number(text) : Number.NaN;
  if (Number.isFinite(value) && canonicalDecimal(value) === text) return { value, suggestions: [] };
  const suggestions: string[] = [];
  if (Number.isFinite(value)) suggestions.push(canonicalDecimal(value));
  // A leading zero without its point (`01`) most likely lost the point: `0.1`.
  const lost = /^0+([1-9]\d*)$/.exec(text);
  if (lost !== null) suggestions.push(canonicalDecimal(Number(`0.${lost[1] as string}`)));
  return { value: undefined, suggestions: [...new Set(suggestions)] };
}

/**
 * Reads a non-negative integer written in canonical form (`4`, not `04`, `4.0` or `+4`).
 *
 * @example
 * ```ts
 * readCanonicalInteger('4'); // { value: 4, suggestions: [] }
 * readCanonicalInteger('04'); // { value: undefined, suggestions: ['4'] }
 * ```
 */
export function readCanonicalInteger(text: string): { value: number | undefined; suggestions: string[] } {
  if (/^(?:0|[1-9]\d*)$/.test(text) && Number.isSafeInteger(Number(text))) return { value: Number(text), suggestions: [] };
  const value = /^[-+]?\d+(?:\.0*)?$/.test(text) ? Number(text) : Number.NaN;
  return { value: undefined, suggestions: Number.isSafeInteger(value) ? [String(value)] : [] };
}
