import { RlAdvantagesError } from '../errors.js';
import { checkPositiveInteger, checkTemperature, describe } from '../internal/validate.js';
import type { TfidfVectorizer } from '../text/tfidf.js';
import { readNormalize } from './normalize.js';
import { groupMean, groupMeanStd, rloo } from './group.js';
import { opo, gpg, remax } from './outcome-baselines.js';
import { grpoPassk, passk } from './passk.js';
import { PromptValueEstimator, type PromptValueOptions, type StatefulEstimator } from './prompt-value.js';
import { reinforcePlusPlusBaseline } from './reinforce-plus-plus.js';
import { shrinkageLoo } from './shrinkage-loo.js';
import { kernelLoo } from './kernel.js';
import { kernelFileLoo } from './kernel-file.js';
import type { LoadedKernel } from '../kernels/kernel-file.js';
import { lengthBucketLoo } from './length-bucket.js';
import { looBatchMean } from './loo-batch-mean.js';
import { tfidfKernelLoo } from './tfidf-kernel.js';
import type { Batch, Estimator, EstimatorResult, Normalize, NormalizeOptions } from './types.js';

/** What named estimators may need beyond the batch. */
export interface EstimatorContext {
  /** Fitted vectorizer, for `tfidf_kernel_loo_T<T>` and `length_bucket_loo`. */
  vectorizer?: TfidfVectorizer;
  /** Temperature for `kernel_loo` (the `_T<T>` suffix of a name takes precedence). */
  temperature?: number;
  /** Similarity for `kernel_loo`; without it, `kernel_loo` uses the cosine of `batch.features`. */
  similarity?: (i: number, j: number, batch: Batch) => number;
  /** Epsilon of the normalisation (default per estimator: 1e-6, 1e-8 for `reinforce_plus_plus_baseline`). */
  epsilon?: number;
  /** `normalize` for the centred estimators (docs/method.md section 2.1); `grpo_passk` and `passk` take 'group' or 'none'. */
  normalize?: Normalize;
  /** A minimum std (default 0). */
  stdFloor?: number;
  /** `rloo`'s group of one: 'error' (default) or 'zero'. */
  singleton?: 'error' | 'zero';
  /** k for `passk` (the `_k<k>` suffix of a name takes precedence). */
  k?: number;
  /** Options of `prompt_value` (kind, decay, prior, priorStrength). */
  promptValue?: PromptValueOptions;
  /** The kernel of `kernel_file`, from `loadKernel` (docs/method.md section 2.4). */
  kernel?: LoadedKernel;
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
  'reinforce_plus_plus_baseline',
  'remax',
  'opo',
  'gpg',
  'grpo_passk',
  'passk',
  'shrinkage_loo',
  'prompt_value',
  'kernel_file',
] as const);

/** Base names of the estimators; `tfidf_kernel_loo` and `kernel_loo` take a `_T<T>` suffix. */
export type EstimatorBaseName = (typeof ESTIMATOR_BASE_NAMES)[number];

type Factory = (context: EstimatorContext, temperature: number | undefined, k: number | undefined) => (batch: Batch) => EstimatorResult;

/** The normalisation options given in the context, checked now (not at the first batch). */
function normalizeFrom(context: EstimatorContext, modes?: readonly Normalize[]): NormalizeOptions {
  const options: NormalizeOptions = {};
  if (context.normalize !== undefined) options.normalize = context.normalize;
  if (context.epsilon !== undefined) options.epsilon = context.epsilon;
  if (context.stdFloor !== undefined) options.stdFloor = context.stdFloor;
  readNormalize(options, { normalize: modes?.[0] ?? 'none', epsilon: 1e-6 }, modes);
  return options;
}

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
  group_mean: (context) => {
    const options = normalizeFrom(context);
    return (batch) => groupMean(batch, options);
  },
  group_mean_std: (context) => {
    const { epsilon, stdFloor } = normalizeFrom({ ...context, normalize: 'group' });
    const options = { ...(epsilon === undefined ? {} : { epsilon }), ...(stdFloor === undefined ? {} : { stdFloor }) };
    return (batch) => groupMeanStd(batch, options);
  },
  rloo: (context) => {
    const options = { ...normalizeFrom(context), ...(context.singleton === undefined ? {} : { singleton: context.singleton }) };
    rloo({ rewards: [0], groupIds: [0] }, { ...options, singleton: options.singleton ?? 'zero' }); // checks singleton now
    return (batch) => rloo(batch, options);
  },
  loo_batch_mean: (context) => {
    const options = normalizeFrom(context);
    return (batch) => looBatchMean(batch, options);
  },
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
  reinforce_plus_plus_baseline: (context) => {
    const options = context.epsilon === undefined ? {} : { epsilon: context.epsilon };
    readNormalize(options, { normalize: 'none', epsilon: 1e-8 });
    return (batch) => reinforcePlusPlusBaseline(batch, options);
  },
  remax: (context) => {
    const options = normalizeFrom(context);
    return (batch) => remax(batch, options);
  },
  opo: (context) => {
    const options = normalizeFrom(context);
    return (batch) => opo(batch, options);
  },
  gpg: (context) => {
    const options = normalizeFrom(context);
    return (batch) => gpg(batch, options);
  },
  grpo_passk: (context) => {
    const options = normalizeFrom(context, ['group', 'none']) as { normalize?: 'group' | 'none' };
    return (batch) => grpoPassk(batch, options);
  },
  passk: (context, _temperature, k) => {
    const options = { ...(normalizeFrom(context, ['group', 'none']) as { normalize?: 'group' | 'none' }), k: k ?? (context.k as number) };
    checkPositiveInteger('k', options.k);
    return (batch) => passk(batch, options);
  },
  shrinkage_loo: (context, temperature) => {
    const options = { ...normalizeFrom(context), ...(temperature === undefined ? {} : { prior: `tfidf_kernel_loo_T${temperature}`, vectorizer: requireVectorizer('shrinkage_loo with a kernel prior', context) }) };
    return (batch) => shrinkageLoo(batch, options);
  },
  kernel_file: (context) => {
    const kernel = context.kernel;
    if (kernel === undefined || typeof kernel !== 'object' || kernel === null || typeof kernel.embed !== 'function') {
      throw new RlAdvantagesError('kernel_file needs context.kernel: load one with loadKernel(JSON.parse(readFileSync("kernel.json", "utf8")))', {
        code: 'missing_field',
        field: 'kernel',
      });
    }
    return (batch) => kernelFileLoo(batch, { kernel });
  },
  prompt_value: () => {
    throw new RlAdvantagesError('prompt_value keeps state across steps: create it with createStatefulEstimator(name, context), then compute(batch) and update(batch) each step', {
      code: 'stateful_estimator',
      field: 'name',
    });
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
export type EstimatorName =
  | Exclude<EstimatorBaseName, 'tfidf_kernel_loo'>
  | `${TemperatureEstimatorBaseName}_T${number}`
  | `passk_k${number}`
  | `${'shrinkage_loo' | 'prompt_value'}_tfidf_kernel_loo_T${number}`;

/** Names that take an optional TF-IDF kernel prior, as a `_tfidf_kernel_loo_T<T>` suffix. */
const PRIOR_NAMES: ReadonlySet<EstimatorBaseName> = new Set(['shrinkage_loo', 'prompt_value']);

/** The names {@link createEstimator} accepts, as shown in its error message. */
export const ESTIMATOR_NAMES: readonly string[] = Object.freeze([
  'group_mean',
  'group_mean_std',
  'rloo',
  'loo_batch_mean',
  'tfidf_kernel_loo_T<T> (e.g. tfidf_kernel_loo_T0.1)',
  'length_bucket_loo',
  'kernel_loo (temperature in the context) or kernel_loo_T<T>',
  'reinforce_plus_plus_baseline',
  'remax',
  'opo',
  'gpg',
  'grpo_passk',
  'passk_k<k> (e.g. passk_k4; or passk with k in the context)',
  'shrinkage_loo or shrinkage_loo_tfidf_kernel_loo_T<T>',
  'prompt_value or prompt_value_tfidf_kernel_loo_T<T> (stateful: createStatefulEstimator)',
  'kernel_file (context.kernel from loadKernel; kernel:PATH on the command line)',
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
export function parseEstimatorName(name: string): { base: EstimatorBaseName; temperature: number | undefined; k?: number } {
  if (typeof name !== 'string') {
    throw new RlAdvantagesError(`estimator name must be a string, got ${describe(name)}`, {
      code: 'unknown_estimator',
      field: 'name',
    });
  }
  if (Object.hasOwn(ESTIMATORS, name) && name !== 'tfidf_kernel_loo') {
    return { base: name as EstimatorBaseName, temperature: undefined };
  }
  const passkSuffix = /^passk_k(\d+)$/.exec(name);
  if (passkSuffix) {
    const k = Number(passkSuffix[1]);
    if (!(k >= 1)) throw new RlAdvantagesError(`estimator "${name}" has k = ${k}; k must be an integer >= 1 (e.g. passk_k4)`, { code: 'bad_integer', field: 'name' });
    return { base: 'passk', temperature: undefined, k };
  }
  const suffix = /^(tfidf_kernel_loo|kernel_loo|shrinkage_loo_tfidf_kernel_loo|prompt_value_tfidf_kernel_loo)_T(.*)$/.exec(name);
  if (suffix) {
    const [, full, text] = suffix as unknown as [string, string, string];
    const base = full.replace(/_tfidf_kernel_loo$/, '') as EstimatorBaseName;
    const temperature = Number(text);
    if (!DECIMAL.test(text) || !(temperature > 0) || !Number.isFinite(temperature)) {
      throw new RlAdvantagesError(
        `estimator "${name}" has temperature "${text}"; T must be a finite decimal number > 0 (e.g. ${full}_T0.1)`,
        { code: 'bad_temperature', field: 'name' },
      );
    }
    if (TEMPERATURE_NAMES.has(base) || PRIOR_NAMES.has(base)) return { base, temperature };
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
  const { base, temperature, k } = parseEstimatorName(name);
  const compute = (ESTIMATORS[base] as Factory)(context ?? {}, temperature, k);
  return Object.freeze({ name, compute });
}

/**
 * Creates a stateful estimator (`prompt_value` or `prompt_value_tfidf_kernel_loo_T<T>`): each
 * training step calls compute(batch), trains on the advantages, then update(batch); toJSON() and
 * `PromptValueEstimator.fromJSON` checkpoint and resume it bit for bit.
 *
 * @param context - `promptValue` options, and the vectorizer for a kernel prior.
 * @throws {@link RlAdvantagesError} for an unknown or one-step name (the message lists the names),
 *   a bad option, or a kernel prior without its vectorizer.
 * @example
 * ```ts
 * const estimator = createStatefulEstimator('prompt_value', { promptValue: { kind: 'beta' } });
 * const { advantages } = estimator.compute({ rewards: [1, 0], prompts: ['a', 'b'] }); // [0.5, -0.5]
 * estimator.update({ rewards: [1, 0], prompts: ['a', 'b'] });
 * ```
 */
export function createStatefulEstimator(name: string, context: EstimatorContext = {}): StatefulEstimator {
  const { base, temperature } = parseEstimatorName(name);
  if (base !== 'prompt_value') {
    throw new RlAdvantagesError(`estimator "${name}" is a one-step estimator: use createEstimator; stateful estimators: prompt_value, prompt_value_tfidf_kernel_loo_T<T>`, {
      code: 'unknown_estimator',
      field: 'name',
    });
  }
  const vectorizer = temperature === undefined ? undefined : requireVectorizer(name, context ?? {});
  return new PromptValueEstimator(name, context?.promptValue ?? {}, temperature, vectorizer);
}

/** Whether `name` is a stateful estimator (created with {@link createStatefulEstimator}); false for a name it cannot parse. */
export function isStatefulEstimator(name: string): boolean {
  try {
    return parseEstimatorName(name).base === 'prompt_value';
  } catch {
    return false;
  }
}
