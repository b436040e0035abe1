// What the catalogue knows about one estimator (docs/estimators.md): the type of a descriptor, built in or a user's.
import type { LoadedKernel } from '../kernels/kernel-file.js';
import type { TfidfVectorizer } from '../text/tfidf.js';
import type { StatefulEstimator } from './prompt-value.js';
import type { Batch, EstimatorResult } from './types.js';

/** The JSON type of a parameter's value. */
export type ParameterType = 'number' | 'integer' | 'string' | 'boolean' | 'object';

/** One setting of an estimator: its name (camelCase in TypeScript, snake_case on the wire), type, default and range. */
export interface ParameterDescriptor {
  /** camelCase, e.g. `stdFloor` (the wire form `std_floor` is derived). */
  readonly name: string;
  readonly type: ParameterType;
  /** The value used when the parameter is not given; `null` when there is none (or it depends on another one). */
  readonly default: string | number | boolean | null;
  /** True when the estimator cannot be created without it. */
  readonly required: boolean;
  /** Smallest allowed value (numbers). */
  readonly minimum?: number;
  /** Largest allowed value (numbers). */
  readonly maximum?: number;
  /** The value must be strictly greater (numbers). */
  readonly exclusiveMinimum?: number;
  /** The allowed values. */
  readonly choices?: readonly (string | number)[];
  /** The unit of a number, e.g. `cosine / T` or `tokens`. */
  readonly unit?: string;
  readonly description: string;
}

/** A batch field an estimator may read (the library's name; the wire name is its snake_case form). */
export type BatchField = keyof Batch;

/** A paper or framework file an estimator follows. */
export interface EstimatorSource {
  readonly title: string;
  /** A link (for a framework file: the file at a fixed commit); null for this package's own estimators. */
  readonly url: string | null;
}

/** The validated parameters of one estimator, by camelCase name (only those given; defaults are the factory's). */
export type EstimatorParams = Readonly<Record<string, unknown>>;

/** What an estimator may need beyond its parameters: objects, not settings (never on the wire). */
export interface EstimatorResources {
  /** A fitted TF-IDF vectorizer (`TfidfVectorizer.fit`). */
  readonly vectorizer?: TfidfVectorizer;
  /** `kernel_loo`'s similarity function (else the cosine of `batch.features`). */
  readonly similarity?: (i: number, j: number, batch: Batch) => number;
  /** A loaded kernel file (`loadKernel`), for `kernel_file`. */
  readonly kernel?: LoadedKernel;
  /** The folder a relative `kernel:PATH` is read from (default: the current directory). */
  readonly baseDir?: string;
}

/** How the short form of a name carries one parameter: `tfidf_kernel_loo_T<temperature>` is `{ prefix: 'tfidf_kernel_loo_T', parameter: 'temperature' }`. */
export interface ShortForm {
  /** The text before the value (it must start with the estimator's name or be a distinct prefix such as `kernel:`). */
  readonly prefix: string;
  /** The camelCase parameter the value is; a number is written in canonical decimal (no exponent, no extra zero). */
  readonly parameter: string;
  /** Whether the bare name (without the value) is also accepted. */
  readonly bare: boolean;
}

/**
 * One estimator in the catalogue. Built-in ones are in src/estimators/descriptors/; {@link registerEstimator} adds
 * a user's. Exactly one of `create` and `createStateful` is given.
 */
export interface EstimatorDescriptor {
  /** The canonical base name: lower case letters, digits and underscores, starting with a letter. */
  readonly name: string;
  /** A word that groups estimators, e.g. `group`, `kernel`, `outcome`, `prior`, `user`. */
  readonly family: string;
  /** One sentence: the baseline b_i it computes. */
  readonly summary: string;
  readonly parameters: readonly ParameterDescriptor[];
  /** The batch fields it reads (`rewards` always). */
  readonly fields: { readonly required: readonly BatchField[]; readonly optional: readonly BatchField[] };
  /** Needs `context.vectorizer` (always, or `'with_short_form'`: only when the short form's parameter is given). */
  readonly needsVectorizer: boolean | 'with_short_form';
  /** Needs a kernel file (`context.kernel`, or a path). */
  readonly needsKernelFile: boolean;
  /** What a group of one (a prompt with a single rollout) gets. */
  readonly groupOfOne: string;
  readonly sources: readonly EstimatorSource[];
  /** The name form that carries one parameter, or none. */
  readonly shortForm?: ShortForm;
  /** A one-step estimator: returns compute(batch) for validated parameters and the resources. */
  readonly create?: (params: EstimatorParams, resources: EstimatorResources) => (batch: Batch) => EstimatorResult;
  /** A stateful estimator (compute, then update, each step). */
  readonly createStateful?: (params: EstimatorParams, resources: EstimatorResources, name: string) => StatefulEstimator;
}

/** camelCase -> snake_case (`stdFloor` -> `std_floor`). */
export function snakeCase(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** snake_case -> camelCase (`std_floor` -> `stdFloor`). */
export function camelCase(name: string): string {
  return name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/**
 * What a user's one-step estimator returns for a batch: A_i and b_i, finite, one per rollout; `maxSelfWeight`
 * (default 0: b_i does not use r_i). The catalogue adds `looMean` and `diagnostics` and checks every value.
 */
export interface EstimatorOutput {
  readonly advantages: ArrayLike<number>;
  readonly baselines: ArrayLike<number>;
  readonly maxSelfWeight?: number;
}

/**
 * A user's descriptor for {@link registerEstimator}: as {@link EstimatorDescriptor}, but `create` may return the
 * plain {@link EstimatorOutput}; masked rollouts are removed before it runs (and get A = 0).
 */
export interface UserEstimatorDescriptor extends Omit<EstimatorDescriptor, 'create'> {
  readonly create?: (params: EstimatorParams, resources: EstimatorResources) => (batch: Batch) => EstimatorOutput;
}
