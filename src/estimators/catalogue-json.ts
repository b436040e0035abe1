// The catalogue as JSON (`rl-adv estimators --json`, serve's describe, the Python side), and the wire form of an
// estimator spec: snake_case parameter keys and batch field names.
import { RlAdvantagesError } from '../errors.js';
import { describe } from '../internal/validate.js';
import { VERSION } from '../version.js';
import { estimatorDescriptors, isUserEstimator } from './catalogue.js';
import { camelCase, snakeCase, type EstimatorDescriptor, type ParameterDescriptor } from './descriptor.js';
import { parseName, type EstimatorSpec } from './spec.js';
import { didYouMean } from '../internal/suggest.js';

/** The version of the catalogue's JSON shape (and of serve's protocol). */
export const CATALOGUE_PROTOCOL = 1;

/** One parameter on the wire. */
export interface ParameterJson {
  name: string;
  type: ParameterDescriptor['type'];
  default: string | number | boolean | null;
  required: boolean;
  minimum: number | null;
  maximum: number | null;
  exclusive_minimum: number | null;
  choices: (string | number)[] | null;
  unit: string | null;
  description: string;
}

/** One estimator on the wire. */
export interface EstimatorJson {
  name: string;
  family: string;
  summary: string;
  parameters: ParameterJson[];
  fields: { required: string[]; optional: string[] };
  needs_vectorizer: boolean;
  needs_kernel_file: boolean;
  stateful: boolean;
  group_of_one: string;
  sources: { title: string; url: string | null }[];
  short_form: string | null;
  user_defined: boolean;
}

/** The catalogue on the wire. */
export interface CatalogueJson {
  protocol: number;
  version: string;
  estimators: EstimatorJson[];
}

function parameterJson(p: ParameterDescriptor): ParameterJson {
  return {
    name: snakeCase(p.name),
    type: p.type,
    default: p.default,
    required: p.required,
    minimum: p.minimum ?? null,
    maximum: p.maximum ?? null,
    exclusive_minimum: p.exclusiveMinimum ?? null,
    choices: p.choices === undefined ? null : [...p.choices],
    unit: p.unit ?? null,
    description: p.description,
  };
}

/** One descriptor as JSON (the factory left out). A user's estimator also reads `mask` (the catalogue applies it). */
export function estimatorJson(d: EstimatorDescriptor): EstimatorJson {
  const user = isUserEstimator(d);
  const optional = user && !d.fields.optional.includes('mask') && !d.fields.required.includes('mask') ? [...d.fields.optional, 'mask' as const] : d.fields.optional;
  return {
    name: d.name,
    family: d.family,
    summary: d.summary,
    parameters: d.parameters.map(parameterJson),
    fields: { required: d.fields.required.map(snakeCase), optional: optional.map(snakeCase) },
    needs_vectorizer: d.needsVectorizer !== false,
    needs_kernel_file: d.needsKernelFile,
    stateful: d.createStateful !== undefined,
    group_of_one: d.groupOfOne,
    sources: d.sources.map((s) => ({ title: s.title, url: s.url })),
    short_form: d.shortForm === undefined ? null : `${d.shortForm.prefix}<${snakeCase(d.shortForm.parameter)}>`,
    user_defined: user,
  };
}

/**
 * The catalogue as plain JSON: `{ protocol: 1, version, estimators: [...] }`, every estimator (built-in, then the
 * registered ones) with its parameters (snake_case), the batch fields it reads, and its sources. What
 * `rl-adv estimators --json` prints and serve's `{"op": "describe"}` answers.
 *
 * `needs_vectorizer` is true also when only the short form (a TF-IDF kernel prior) needs one.
 *
 * @example
 * ```ts
 * catalogueJson().estimators.map((e) => e.name); // ['group_mean', 'group_mean_std', ...]
 * ```
 */
export function catalogueJson(): CatalogueJson {
  return { protocol: CATALOGUE_PROTOCOL, version: VERSION, estimators: estimatorDescriptors().map(estimatorJson) };
}

/**
 * A wire-form spec (`{"name": "tfidf_kernel_loo", "temperature": 0.1}`, snake_case keys) as the library's
 * (camelCase keys); a string name is returned as it is.
 *
 * @param field - the field the spec was read from, for messages.
 * @throws {@link RlAdvantagesError} (`bad_type`) for a value that is neither a name nor an object with a string `name`.
 * @example
 * ```ts
 * specFromWire({ name: 'group_mean_std', std_floor: 0.1 }); // { name: 'group_mean_std', stdFloor: 0.1 }
 * ```
 */
export function specFromWire(value: unknown, field = 'estimator'): string | EstimatorSpec {
  if (typeof value === 'string') return value;
  if (typeof value !== 'object' || value === null || Array.isArray(value) || typeof (value as { name?: unknown }).name !== 'string') {
    throw new RlAdvantagesError(`${field} must be an estimator name or an object {"name": ..., parameters in snake_case}, got ${describe(value)}`, {
      code: 'bad_type',
      field,
    });
  }
  const { descriptor } = parseName((value as { name: string }).name);
  const options = descriptor.parameters.map((p) => snakeCase(p.name));
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    if (key === 'name') {
      out.name = v;
      continue;
    }
    if (snakeCase(camelCase(key)) !== key) {
      // Not echoed: a message in wire words turns every parameter name to snake_case.
      throw new RlAdvantagesError(`${field}: option names are snake_case: write ${JSON.stringify(snakeCase(key))}`, { code: 'unknown_option', field: snakeCase(key) });
    }
    if (!options.includes(key)) {
      const takes = options.length === 0 ? 'it takes none' : `its options: ${options.join(', ')}`;
      throw new RlAdvantagesError(`${key} is not an option of ${descriptor.name}${didYouMean(key, options)}; ${takes}`, { code: 'unknown_option', field: key });
    }
    out[camelCase(key)] = v;
  }
  return out as EstimatorSpec;
}

/**
 * A library message in wire words: every camelCase parameter name of the catalogue and the batch fields `groupIds`,
 * `greedyRewards` become snake_case (`stdFloor` -> `std_floor`).
 */
export function wireMessage(message: string): string {
  const names = new Set(estimatorDescriptors().flatMap((d) => [...d.fields.required, ...d.fields.optional, ...d.parameters.map((p) => p.name)]));
  let out = message;
  for (const name of names) if (/[A-Z]/.test(name)) out = out.replace(new RegExp(`\\b${name}\\b`, 'g'), snakeCase(name));
  return out;
}

/** A library spec in wire form (snake_case keys). */
export function specToWire(spec: string | EstimatorSpec): string | Record<string, unknown> {
  if (typeof spec === 'string') return spec;
  return Object.fromEntries(Object.entries(spec).map(([key, v]) => [key === 'name' ? key : snakeCase(key), v]));
}
