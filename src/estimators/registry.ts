import { RlAdvantagesError } from '../errors.js';
import { checkTemperature, describe } from '../internal/validate.js';
import type { TfidfVectorizer } from '../text/tfidf.js';
import { groupMean, groupMeanStd, rloo } from './group.js';
import { kernelLoo } from './kernel.js';
import { lengthBucketLoo } from './length-bucket.js';
import { looBatchMean } from './loo-batch-mean.js';
import { tfidfKernelLoo } from './tfidf-kernel.js';
import type { Batch, Estimator, EstimatorResult } from './types.js';

/** What named estimators may need beyond the batch. */
export interface EstimatorContext {
  /** Fitted vectorizer, for `tfidf_kernel_loo_T<T>` and `length_bucket_loo`. */
  vectorizer?: TfidfVectorizer;
  /** Temperature for `kernel_loo` (the `_T<T>` suffix of a name takes precedence). */
  temperature?: number;
  /** Similarity for `kernel_loo`; without it, `kernel_loo` uses the cosine of `batch.features`. */
  similarity?: (i: number, j: number, batch: Batch) => number;
  /** Epsilon for `group_mean_std` (default 1e-6). */
  epsilon?: number;
}

/**
 * The base names of the estimators, in one list: {@link EstimatorBaseName} and {@link EstimatorName} derive from
 * it, and the lookup table must have exactly these keys (a name added here without a factory, or a factory
 * without its name here, does not compile).
 */
export const ESTIMATOR_BASE_NAMES = Object.freeze([
  'group_mean',
  'group_mean_std',
  'rloo',
  'loo_batch_mean',
  'tfidf_kernel_loo',
  'length_bucket_loo',
  'kernel_loo',
] as const);

/** Base names of the estimators; `tfidf_kernel_loo` and `kernel_loo` take a `_T<T>` suffix. */
export type EstimatorBaseName = (typeof ESTIMATOR_BASE_NAMES)[number];

type Factory = (context: EstimatorContext, temperature: number | undefined) => (batch: Batch) => EstimatorResult;

function requireVectorizer(name: string, context: EstimatorContext): TfidfVectorizer {
  if (context.vectorizer === undefined) {
    throw new RlAdvantagesError(
      `${name} needs context.vectorizer: fit one with TfidfVectorizer.fit(corpus) (the study fits it on the GSM8K train questions)`,
      { code: 'missing_field', field: 'vectorizer' },
    );
  }
  return context.vectorizer;
}

/**
 * The lookup table of named estimators. Names with a temperature suffix (`_T<T>`) are matched by
 * their base name. Plain data, filled at definition: nothing registers itself at import time.
 */
const ESTIMATORS = {
  group_mean: () => groupMean,
  group_mean_std: (context) => {
    const options = context.epsilon === undefined ? {} : { epsilon: context.epsilon };
    groupMeanStd({ rewards: [0], groupIds: [0] }, options); // validates epsilon now, not at the first batch
    return (batch) => groupMeanStd(batch, options);
  },
  rloo: () => rloo,
  loo_batch_mean: () => looBatchMean,
  tfidf_kernel_loo: (context, temperature) => {
    const vectorizer = requireVectorizer('tfidf_kernel_loo', context);
    const t = checkTemperature('temperature', temperature);
    return (batch) => tfidfKernelLoo(batch, { vectorizer, temperature: t });
  },
  length_bucket_loo: (context) => {
    const vectorizer = requireVectorizer('length_bucket_loo', context);
    return (batch) => lengthBucketLoo(batch, { vectorizer });
  },
  kernel_loo: (context, temperature) => {
    const t = checkTemperature('temperature', temperature ?? context.temperature);
    const similarity = context.similarity;
    return (batch) => kernelLoo(batch, similarity === undefined ? { temperature: t } : { temperature: t, similarity });
  },
} satisfies Record<EstimatorBaseName, Factory>;


/**
 * The base names that take a temperature as a `_T<T>` suffix (`kernel_loo` may instead take it from the context;
 * `tfidf_kernel_loo` must carry it in its name).
 */
export const TEMPERATURE_ESTIMATOR_BASE_NAMES = Object.freeze(['tfidf_kernel_loo', 'kernel_loo'] as const satisfies readonly EstimatorBaseName[]);
const TEMPERATURE_NAMES: ReadonlySet<EstimatorBaseName> = new Set(TEMPERATURE_ESTIMATOR_BASE_NAMES);

/** The estimator base names that take a `_T<T>` temperature suffix. */
export type TemperatureEstimatorBaseName = (typeof TEMPERATURE_ESTIMATOR_BASE_NAMES)[number];

/**
 * Every name {@link createEstimator} accepts, as a type: the base names, and `<base>_T<T>` for the bases that take a
 * temperature (e.g. `tfidf_kernel_loo_T0.1`). A literal that is not one of them is a compile error; a name of type
 * `string` (e.g. read from a spec) is checked at run time instead.
 */
export type EstimatorName = Exclude<EstimatorBaseName, 'tfidf_kernel_loo'> | `${TemperatureEstimatorBaseName}_T${number}`;

/** The names {@link createEstimator} accepts, as shown in its error message. */
export const ESTIMATOR_NAMES: readonly string[] = Object.freeze([
  'group_mean',
  'group_mean_std',
  'rloo',
  'loo_batch_mean',
  'tfidf_kernel_loo_T<T> (e.g. tfidf_kernel_loo_T0.1)',
  'length_bucket_loo',
  'kernel_loo (temperature in the context) or kernel_loo_T<T>',
]);

const DECIMAL = /^(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$/;

/**
 * Splits an estimator name into its base name and temperature:
 * `tfidf_kernel_loo_T0.1` -> `{ base: 'tfidf_kernel_loo', temperature: 0.1 }`.
 *
 * @throws {@link RlAdvantagesError} (code `unknown_estimator`) for a name the library does not
 *   know, listing the known names; for a malformed or non-positive temperature suffix.
 * @example
 * ```ts
 * parseEstimatorName('tfidf_kernel_loo_T0.1'); // { base: 'tfidf_kernel_loo', temperature: 0.1 }
 * ```
 */
export function parseEstimatorName(name: string): { base: EstimatorBaseName; temperature: number | undefined } {
  if (typeof name !== 'string') {
    throw new RlAdvantagesError(`estimator name must be a string, got ${describe(name)}`, {
      code: 'unknown_estimator',
      field: 'name',
    });
  }
  if (Object.hasOwn(ESTIMATORS, name) && name !== 'tfidf_kernel_loo') {
    return { base: name as EstimatorBaseName, temperature: undefined };
  }
  const suffix = /^(tfidf_kernel_loo|kernel_loo)_T(.*)$/.exec(name);
  if (suffix) {
    const [, base, text] = suffix as unknown as [string, EstimatorBaseName, string];
    const temperature = Number(text);
    if (!DECIMAL.test(text) || !(temperature > 0) || !Number.isFinite(temperature)) {
      throw new RlAdvantagesError(
        `estimator "${name}" has temperature "${text}"; T must be a finite decimal number > 0 (e.g. ${base}_T0.1)`,
        { code: 'bad_temperature', field: 'name' },
      );
    }
    if (TEMPERATURE_NAMES.has(base)) return { base, temperature };
  }
  throw new RlAdvantagesError(`unknown estimator "${name}"; known estimators: ${ESTIMATOR_NAMES.join(', ')}`, {
    code: 'unknown_estimator',
    field: 'name',
  });
}

/**
 * Looks up an estimator by the name the study spec's `arms[].advantage` uses, and checks what it
 * needs from `context` now, not at the first batch.
 *
 * @param name - `group_mean`, `group_mean_std`, `rloo`, `loo_batch_mean`,
 *   `tfidf_kernel_loo_T<T>`, `length_bucket_loo`, `kernel_loo` or `kernel_loo_T<T>`.
 * @param context - the fitted vectorizer, temperature, similarity or epsilon the estimator uses.
 * @throws {@link RlAdvantagesError} for an unknown name (the message lists the known names), a bad
 *   temperature, or a kernel estimator without its vectorizer.
 * @example
 * ```ts
 * const estimator = createEstimator('tfidf_kernel_loo_T0.1', { vectorizer });
 * const { advantages } = estimator.compute({ rewards, prompts });
 * ```
 */
export function createEstimator(name: EstimatorName, context?: EstimatorContext): Estimator;
/**
 * Looks up an estimator by a name known only at run time (a `string`, e.g. a spec's `arms[].advantage`); a
 * string literal must be an {@link EstimatorName}.
 *
 * @throws {@link RlAdvantagesError} for an unknown name (the message lists the known names), a bad
 *   temperature, or a kernel estimator without its vectorizer.
 * @example
 * ```ts
 * const name: string = spec.arms[1].advantage;
 * const estimator = createEstimator(name, { vectorizer });
 * ```
 */
export function createEstimator<N extends string>(name: string extends N ? N : never, context?: EstimatorContext): Estimator;
export function createEstimator(name: string, context: EstimatorContext = {}): Estimator {
  const { base, temperature } = parseEstimatorName(name);
  const compute = (ESTIMATORS[base] as Factory)(context ?? {}, temperature);
  return Object.freeze({ name, compute });
}
