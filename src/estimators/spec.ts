// One way to name an estimator: a base name with its parameters (a structured spec), or a short form that
// carries one parameter in the name (`tfidf_kernel_loo_T0.1`, `passk_k4`, `kernel:PATH`), read by one strict parser.
import { RlAdvantagesError } from '../errors.js';
import { canonicalDecimal, readCanonicalDecimal, readCanonicalInteger } from '../internal/decimal.js';
import { didYouMean } from '../internal/suggest.js';
import { describe } from '../internal/validate.js';
import { estimatorDescriptors, findDescriptor } from './catalogue.js';
import type { EstimatorDescriptor, EstimatorParams, ParameterDescriptor } from './descriptor.js';

/**
 * A structured estimator spec: the base name and its parameters (camelCase keys in TypeScript), e.g.
 * `{ name: 'tfidf_kernel_loo', temperature: 0.1 }`. The wire form (CLI, spec files, serve) uses snake_case keys.
 */
export interface EstimatorSpec {
  readonly name: string;
  readonly [parameter: string]: unknown;
}

/** An estimator resolved against the catalogue: its descriptor, its checked parameters and its canonical name. */
export interface ResolvedEstimator {
  readonly descriptor: EstimatorDescriptor;
  /** The parameters given (checked; defaults are not filled in). */
  readonly params: EstimatorParams;
  /** The canonical short name, e.g. `tfidf_kernel_loo_T0.1` (the base name when the short form's parameter is not given). */
  readonly name: string;
}

/** The resource keys of a context: objects, not parameters. */
export const RESOURCE_KEYS: readonly string[] = Object.freeze(['vectorizer', 'similarity', 'kernel', 'baseDir']);

/** How a name shows an estimator: `tfidf_kernel_loo_T<temperature>`, `kernel_loo or kernel_loo_T<temperature>`. */
export function displayName(d: EstimatorDescriptor): string {
  if (d.shortForm === undefined) return d.name;
  const short = `${d.shortForm.prefix}<${snake(d.shortForm.parameter)}>`;
  return d.shortForm.bare ? `${d.name} or ${short}` : short;
}

function snake(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** The known names, as an error lists them. */
export function knownNames(): string {
  return estimatorDescriptors().map(displayName).join(', ');
}

function unknown(name: string): never {
  const candidates = estimatorDescriptors().flatMap((d) => (d.shortForm === undefined ? [d.name] : [d.name, `${d.shortForm.prefix}`]));
  throw new RlAdvantagesError(`unknown estimator ${JSON.stringify(name)}${didYouMean(name, candidates)}; known estimators: ${knownNames()}`, {
    code: 'unknown_estimator',
    field: 'name',
  });
}

/** An example value of a short form's parameter, for messages. */
function example(p: ParameterDescriptor): string {
  if (p.type === 'integer') return String(Math.max(4, p.minimum ?? 0));
  if (p.type === 'number') return '0.1';
  return 'kernel.json';
}

/** The value a short form carries, read strictly (canonical decimal for numbers). */
function shortFormValue(name: string, d: EstimatorDescriptor, text: string): unknown {
  const { prefix, parameter } = d.shortForm as NonNullable<EstimatorDescriptor['shortForm']>;
  const p = d.parameters.find((q) => q.name === parameter) as ParameterDescriptor;
  if (p.type === 'string') {
    if (text.trim() === '') throw new RlAdvantagesError(`estimator ${JSON.stringify(name)} names no ${snake(parameter)}: write ${prefix}<${snake(parameter)}>, e.g. ${prefix}${example(p)}`, { code: 'bad_name', field: 'name' });
    return text;
  }
  const read = p.type === 'integer' ? readCanonicalInteger(text) : readCanonicalDecimal(text);
  if (read.value !== undefined) {
    checkParameter(p, read.value);
    return read.value;
  }
  const what = p.type === 'integer' ? 'an integer' : 'a decimal number';
  const fix =
    read.suggestions.length > 0
      ? `write ${read.suggestions.map((s) => `${prefix}${s}`).join(' or ')}`
      : `write ${prefix}<${snake(parameter)}>, e.g. ${prefix}${example(p)}`;
  throw new RlAdvantagesError(
    `estimator ${JSON.stringify(name)}: ${snake(parameter)} ${JSON.stringify(text)} is not ${what} in canonical form (no exponent, sign, leading or trailing zero); ${fix}`,
    { code: 'bad_name', field: 'name' },
  );
}

/**
 * Reads an estimator name: a base name, or a short form (`tfidf_kernel_loo_T0.1`, `passk_k4`,
 * `shrinkage_loo_tfidf_kernel_loo_T0.1`, `kernel:PATH`). A number in a name must be in canonical decimal form
 * ({@link canonicalDecimal}): `tfidf_kernel_loo_T01`, `T.1`, `T1e-1`, `T00.1` and `T0.10` are refused with the
 * canonical spelling.
 *
 * @throws {@link RlAdvantagesError} `unknown_estimator` for a name the catalogue does not know (with the closest
 *   name and the known ones); `bad_name` for a short form whose value is not in canonical form.
 * @example
 * ```ts
 * parseName('tfidf_kernel_loo_T0.1'); // { descriptor: <tfidf_kernel_loo>, params: { temperature: 0.1 } }
 * ```
 */
export function parseName(name: string): { descriptor: EstimatorDescriptor; params: EstimatorParams } {
  if (typeof name !== 'string') {
    throw new RlAdvantagesError(`estimator name must be a string, got ${describe(name)}`, { code: 'unknown_estimator', field: 'name' });
  }
  const exact = findDescriptor(name);
  if (exact !== undefined) return { descriptor: exact, params: {} };
  let best: EstimatorDescriptor | undefined;
  for (const d of estimatorDescriptors()) {
    if (d.shortForm !== undefined && name.startsWith(d.shortForm.prefix) && (best === undefined || d.shortForm.prefix.length > (best.shortForm?.prefix.length ?? 0))) best = d;
  }
  if (best === undefined) unknown(name);
  const { prefix, parameter } = best.shortForm as NonNullable<EstimatorDescriptor['shortForm']>;
  return { descriptor: best, params: { [parameter]: shortFormValue(name, best, name.slice(prefix.length)) } };
}

/** What a parameter must be, in words: `a finite number > 0`, `one of 'none', 'group'`. */
function requirement(p: ParameterDescriptor): string {
  if (p.choices !== undefined) return `one of ${p.choices.map((c) => (typeof c === 'string' ? `'${c}'` : String(c))).join(', ')}`;
  const word = { number: 'a finite number', integer: 'an integer', string: 'a string', boolean: 'true or false', object: 'an object' }[p.type];
  const range: string[] = [];
  if (p.exclusiveMinimum !== undefined) range.push(`> ${p.exclusiveMinimum}`);
  if (p.minimum !== undefined && p.maximum !== undefined) range.push(`in [${p.minimum}, ${p.maximum}]`);
  else if (p.minimum !== undefined) range.push(`>= ${p.minimum}`);
  else if (p.maximum !== undefined) range.push(`<= ${p.maximum}`);
  return [word, ...range].join(' ');
}

/** Checks one parameter's value against its descriptor. */
export function checkParameter(p: ParameterDescriptor, value: unknown): void {
  let ok: boolean;
  if (p.type === 'number' || p.type === 'integer') {
    ok =
      typeof value === 'number' &&
      Number.isFinite(value) &&
      (p.type === 'number' || Number.isSafeInteger(value)) &&
      (p.minimum === undefined || value >= p.minimum) &&
      (p.maximum === undefined || value <= p.maximum) &&
      (p.exclusiveMinimum === undefined || value > p.exclusiveMinimum);
  } else if (p.type === 'string') ok = typeof value === 'string';
  else if (p.type === 'boolean') ok = typeof value === 'boolean';
  // 'object': a JSON object or array (gdpo's componentWeights is an array of numbers; the estimator checks its items).
  else ok = typeof value === 'object' && value !== null;
  if (ok && p.choices !== undefined) ok = p.choices.includes(value as string | number);
  if (!ok) throw new RlAdvantagesError(`${p.name} must be ${requirement(p)}, got ${describe(value)}`, { code: 'bad_option', field: p.name });
}

/** The parameters of `d` from its sources (the name's, a spec's, a context's), checked: unknown, clashing and missing ones are errors. */
function checkParameters(d: EstimatorDescriptor, sources: readonly (readonly [string, Readonly<Record<string, unknown>>])[]): EstimatorParams {
  const params: Record<string, unknown> = {};
  const from: Record<string, string> = {};
  for (const [where, given] of sources) {
    for (const [key, value] of Object.entries(given)) {
      if (value === undefined) continue;
      const p = d.parameters.find((q) => q.name === key);
      if (p === undefined) {
        const takes = d.parameters.length === 0 ? 'it takes none' : `its options: ${d.parameters.map((q) => q.name).join(', ')}`;
        throw new RlAdvantagesError(`${key} is not an option of ${d.name}${didYouMean(key, [...d.parameters.map((q) => q.name), ...RESOURCE_KEYS])}; ${takes}`, {
          code: 'unknown_option',
          field: key,
        });
      }
      checkParameter(p, value);
      if (Object.hasOwn(params, key) && params[key] !== value) {
        throw new RlAdvantagesError(`${key} is given twice: ${describe(params[key])} in ${from[key]} and ${describe(value)} in ${where}`, { code: 'conflicting_option', field: key });
      }
      params[key] = value;
      from[key] = where;
    }
  }
  for (const p of d.parameters) {
    if (!p.required || Object.hasOwn(params, p.name)) continue;
    const short = d.shortForm?.parameter === p.name ? `write ${d.shortForm.prefix}<${snake(p.name)}> (e.g. ${d.shortForm.prefix}${example(p)}) or ` : '';
    throw new RlAdvantagesError(`estimator "${d.name}" needs ${p.name} (${requirement(p)}): ${short}give { name: "${d.name}", ${p.name}: ${example(p)} }`, {
      code: 'missing_option',
      field: p.name,
    });
  }
  return Object.freeze(params);
}

/** The canonical short name of a descriptor with checked parameters. */
function canonicalName(d: EstimatorDescriptor, params: EstimatorParams): string {
  const short = d.shortForm;
  const value = short === undefined ? undefined : params[short.parameter];
  if (short === undefined || value === undefined) return d.name;
  return short.prefix + (typeof value === 'number' ? canonicalDecimal(value) : String(value));
}

/**
 * Resolves a name or a structured spec against the catalogue, with extra parameters (e.g. a context's `epsilon`).
 * A parameter given in two places with different values is an error; so is an unknown or missing one.
 *
 * @throws {@link RlAdvantagesError} `unknown_estimator`, `bad_name`, `unknown_option` (with the closest option),
 *   `bad_option`, `conflicting_option`, `missing_option`.
 * @example
 * ```ts
 * resolveEstimator({ name: 'tfidf_kernel_loo', temperature: 0.1 }).name; // 'tfidf_kernel_loo_T0.1'
 * ```
 */
export function resolveEstimator(spec: string | EstimatorSpec, extra: Readonly<Record<string, unknown>> = {}): ResolvedEstimator {
  let text: unknown = spec;
  let rest: Record<string, unknown> = {};
  if (typeof spec === 'object' && spec !== null && !Array.isArray(spec)) {
    ({ name: text, ...rest } = spec);
    if (typeof text !== 'string') {
      throw new RlAdvantagesError(`an estimator spec needs "name", the base name (e.g. { name: "tfidf_kernel_loo", temperature: 0.1 }), got ${describe(text)}`, { code: 'unknown_estimator', field: 'name' });
    }
  } else if (typeof spec !== 'string') {
    throw new RlAdvantagesError(`estimator must be a name or a spec { name, ...parameters }, got ${describe(spec)}`, { code: 'unknown_estimator', field: 'name' });
  }
  const { descriptor, params: named } = parseName(text as string);
  const params = checkParameters(descriptor, [
    ['the name', named],
    ['the spec', rest],
    ['the options', extra],
  ]);
  return Object.freeze({ descriptor, params, name: canonicalName(descriptor, params) });
}

/**
 * The canonical short name of an estimator: `tfidf_kernel_loo_T0.1` for `{ name: 'tfidf_kernel_loo', temperature:
 * 0.1 }` and for `tfidf_kernel_loo_T0.1`; the base name when its short form's parameter is not given. Results and
 * logs carry it.
 *
 * @throws {@link RlAdvantagesError} as {@link resolveEstimator}.
 * @example
 * ```ts
 * canonicalEstimatorName({ name: 'passk', k: 4 }); // 'passk_k4'
 * ```
 */
export function canonicalEstimatorName(spec: string | EstimatorSpec): string {
  return resolveEstimator(spec).name;
}
