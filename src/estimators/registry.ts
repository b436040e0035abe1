// createEstimator and createStatefulEstimator: an estimator from a name or a structured spec, through the catalogue
// (src/estimators/catalogue.ts). Nothing here knows one estimator from another.
import { RlAdvantagesError } from '../errors.js';
import type { LoadedKernel } from '../kernels/kernel-file.js';
import type { TfidfVectorizer } from '../text/tfidf.js';
import { ESTIMATOR_BASE_NAMES, estimatorDescriptors, type EstimatorBaseName } from './catalogue.js';
import type { EstimatorResources } from './descriptor.js';
import type { PromptValueOptions, StatefulEstimator } from './prompt-value.js';
import { displayName, parseName, RESOURCE_KEYS, resolveEstimator, type EstimatorSpec, type ResolvedEstimator } from './spec.js';
import type { Batch, Estimator, Normalize } from './types.js';

export { ESTIMATOR_BASE_NAMES, type EstimatorBaseName };

/**
 * What named estimators may need beyond the batch: resources (`vectorizer`, `similarity`, `kernel`, `baseDir`) and,
 * as an older alternative to a structured spec, parameters (`temperature`, `epsilon`, ...). A parameter the
 * estimator does not take is an error; one given both here and in the name or spec must agree.
 */
export interface EstimatorContext {
  /** Fitted vectorizer, for `tfidf_kernel_loo_T<T>` and `length_bucket_loo`. */
  vectorizer?: TfidfVectorizer;
  /** Temperature for `kernel_loo` (or in its name, `kernel_loo_T<T>`; both given must agree). */
  temperature?: number;
  /** Similarity for `kernel_loo`; without it, `kernel_loo` uses the cosine of `batch.features`. */
  similarity?: (i: number, j: number, batch: Batch) => number;
  /** Epsilon of the normalisation (default per estimator: 1e-6, 1e-8 for `reinforce_plus_plus_baseline`). */
  epsilon?: number;
  /** `normalize` for the centred estimators (docs/method.md section 2.1); `grpo_passk` and `passk` take 'group' or 'none'. */
  normalize?: Normalize;
  /** A minimum std (default 0). */
  stdFloor?: number;
  /** A group estimator's group of one: 'error', 'zero' or 'raw' (verl's A = r); the default is the estimator's. */
  singleton?: 'error' | 'zero' | 'raw';
  /** k for `passk` (or in its name, `passk_k<k>`; both given must agree). */
  k?: number;
  /** Options of `prompt_value` (kind, decay, prior, priorStrength). */
  promptValue?: PromptValueOptions;
  /** The kernel of `kernel_file`, from `loadKernel` (docs/method.md section 2.4). */
  kernel?: LoadedKernel;
  /** The folder a relative `kernel:PATH` is read from (default: the current directory). */
  baseDir?: string;
}

/**
 * The base names that take a temperature as a `_T<T>` suffix (`kernel_loo` may instead take it from the context;
 * `tfidf_kernel_loo` must carry it in its name).
 */
export const TEMPERATURE_ESTIMATOR_BASE_NAMES = Object.freeze(['tfidf_kernel_loo', 'kernel_loo'] as const satisfies readonly EstimatorBaseName[]);

/** The estimator base names that take a `_T<T>` temperature suffix. */
export type TemperatureEstimatorBaseName = (typeof TEMPERATURE_ESTIMATOR_BASE_NAMES)[number];

/**
 * Every name {@link createEstimator} accepts, as a type: the base names, and `<base>_T<T>` for the bases that take a
 * temperature (e.g. `tfidf_kernel_loo_T0.1`), `passk_k<k>`, the priors' short forms and `kernel:PATH`. A literal that
 * is not one of them is a compile error; a name of type `string` (e.g. read from a spec) is checked at run time
 * instead. A registered estimator is called by a spec (`{ name: 'mine' }`) or a `string`.
 */
export type EstimatorName =
  | Exclude<EstimatorBaseName, 'tfidf_kernel_loo'>
  | `${TemperatureEstimatorBaseName}_T${number}`
  | `passk_k${number}`
  | `${'shrinkage_loo' | 'prompt_value'}_tfidf_kernel_loo_T${number}`
  | `kernel:${string}`;


/** The names {@link createEstimator} accepts (the built-in ones), as its error message shows them. */
export const ESTIMATOR_NAMES: readonly string[] = Object.freeze(estimatorDescriptors().map(displayName));

/** A context split into resources and parameters (`promptValue`'s options are parameters of `prompt_value`). */
function splitContext(context: EstimatorContext | undefined): { resources: EstimatorResources; params: Record<string, unknown> } {
  const resources: Record<string, unknown> = {};
  const params: Record<string, unknown> = {};
  if (context === undefined || context === null) return { resources, params };
  if (typeof context !== 'object') {
    throw new RlAdvantagesError(`context must be an object ({ vectorizer, ... }), got ${typeof context}`, { code: 'bad_type', field: 'context' });
  }
  for (const [key, value] of Object.entries(context)) {
    if (value === undefined) continue;
    if (RESOURCE_KEYS.includes(key)) resources[key] = value;
    else if (key === 'promptValue' && typeof value === 'object' && value !== null) Object.assign(params, value as PromptValueOptions);
    else params[key] = value;
  }
  return { resources, params };
}

/**
 * Splits an estimator name into its base name and the temperature (or k) its short form carries:
 * `tfidf_kernel_loo_T0.1` -> `{ base: 'tfidf_kernel_loo', temperature: 0.1 }`; a prior's temperature
 * (`shrinkage_loo_tfidf_kernel_loo_T0.1`) is reported as `temperature`.
 *
 * @throws {@link RlAdvantagesError} `unknown_estimator` for a name the catalogue does not know (listing the known
 *   ones); `bad_name` for a number not in canonical decimal form (`T01`, `T.1`, `T1e-1`), showing the canonical one.
 * @example
 * ```ts
 * parseEstimatorName('tfidf_kernel_loo_T0.1'); // { base: 'tfidf_kernel_loo', temperature: 0.1 }
 * ```
 */
export function parseEstimatorName(name: string): { base: EstimatorBaseName; temperature: number | undefined; k?: number } {
  const { descriptor, params } = parseName(name);
  const temperature = (params.temperature ?? params.priorTemperature) as number | undefined;
  return { base: descriptor.name as EstimatorBaseName, temperature, ...(params.k === undefined ? {} : { k: params.k as number }) };
}

/** Resolves a name or spec with a context, refusing a stateful estimator where a one-step one is asked for (or the reverse). */
function resolveWith(spec: string | EstimatorSpec, context: EstimatorContext | undefined, stateful: boolean): ResolvedEstimator & { resources: EstimatorResources } {
  const { resources, params } = splitContext(context);
  const resolved = resolveEstimator(spec, params);
  const isStateful = resolved.descriptor.createStateful !== undefined;
  if (isStateful && !stateful) {
    throw new RlAdvantagesError(
      `${resolved.name} keeps state across steps: create it with createStatefulEstimator(name, context), then compute(batch) and update(batch) each step`,
      { code: 'stateful_estimator', field: 'name' },
    );
  }
  if (!isStateful && stateful) {
    const names = estimatorDescriptors().filter((d) => d.createStateful !== undefined).map(displayName).join(', ');
    throw new RlAdvantagesError(`estimator "${resolved.name}" is a one-step estimator: use createEstimator; stateful estimators: ${names}`, {
      code: 'unknown_estimator',
      field: 'name',
    });
  }
  return { ...resolved, resources };
}

/**
 * Creates an estimator from its name (`tfidf_kernel_loo_T0.1`, `kernel:PATH`) or a structured spec
 * (`{ name: 'tfidf_kernel_loo', temperature: 0.1 }`), and checks what it needs from `context` now, not at the first
 * batch. The estimator's `name` is the canonical short name. The names and parameters are the catalogue's
 * (`rl-adv estimators`, docs/estimators.md); `registerEstimator` adds one.
 *
 * @param spec - a name (a literal must be an {@link EstimatorName}) or a spec `{ name, ...parameters }` (camelCase).
 * @param context - the fitted vectorizer, similarity, loaded kernel or kernel folder; parameters may also be given here.
 * @throws {@link RlAdvantagesError} for an unknown name (the message lists the known names and the closest one), a
 *   number not in canonical form in a name, an unknown option (with the closest one), a bad or missing parameter, a
 *   stateful estimator, or a kernel estimator without its vectorizer.
 * @example
 * ```ts
 * const estimator = createEstimator({ name: 'tfidf_kernel_loo', temperature: 0.1 }, { vectorizer });
 * estimator.name; // 'tfidf_kernel_loo_T0.1'
 * const { advantages } = estimator.compute({ rewards, prompts });
 * ```
 */
export function createEstimator(spec: EstimatorName | EstimatorSpec, context?: EstimatorContext): Estimator;
/**
 * Creates an estimator by a name known only at run time (a `string`, e.g. a spec's `arms[].advantage`, or
 * `string | EstimatorSpec`); a string literal must be an {@link EstimatorName}.
 *
 * @throws {@link RlAdvantagesError} as the other overload.
 * @example
 * ```ts
 * const name: string = spec.arms[1].advantage;
 * const estimator = createEstimator(name, { vectorizer });
 * ```
 */
export function createEstimator<N extends string | EstimatorSpec>(name: string extends N ? N : never, context?: EstimatorContext): Estimator;
export function createEstimator(spec: string | EstimatorSpec, context?: EstimatorContext): Estimator {
  const { descriptor, params, name, resources } = resolveWith(spec, context, false);
  const compute = (descriptor.create as NonNullable<typeof descriptor.create>)(params, resources);
  return Object.freeze({ name, compute });
}

/**
 * Creates a stateful estimator (`prompt_value`, `prompt_value_tfidf_kernel_loo_T<T>`, or a registered one): each
 * training step calls compute(batch), trains on the advantages, then update(batch); toJSON() and
 * `PromptValueEstimator.fromJSON` checkpoint and resume it bit for bit.
 *
 * @param context - the vectorizer for a kernel prior; `promptValue` options (or give them in the spec).
 * @throws {@link RlAdvantagesError} for an unknown or one-step name (the message lists the names),
 *   a bad option, or a kernel prior without its vectorizer.
 * @example
 * ```ts
 * const estimator = createStatefulEstimator({ name: 'prompt_value', kind: 'beta' });
 * const { advantages } = estimator.compute({ rewards: [1, 0], prompts: ['a', 'b'] }); // [0.5, -0.5]
 * estimator.update({ rewards: [1, 0], prompts: ['a', 'b'] });
 * ```
 */
export function createStatefulEstimator(spec: string | EstimatorSpec, context: EstimatorContext = {}): StatefulEstimator {
  const { descriptor, params, name, resources } = resolveWith(spec, context, true);
  return (descriptor.createStateful as NonNullable<typeof descriptor.createStateful>)(params, resources, name);
}

/** Whether `spec` names a stateful estimator (created with {@link createStatefulEstimator}); false for a name it cannot parse. */
export function isStatefulEstimator(spec: string | EstimatorSpec): boolean {
  try {
    const name = typeof spec === 'object' && spec !== null ? spec.name : spec;
    return parseName(name).descriptor.createStateful !== undefined;
  } catch {
    return false;
  }
}
