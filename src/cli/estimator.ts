// Creating named estimators for CLI commands: the vectorizer check speaks in command-line terms.
import { RlAdvantagesError } from '../errors.js';
import { createEstimator, createStatefulEstimator, parseEstimatorName, type EstimatorContext } from '../estimators/registry.js';
import type { StatefulEstimator } from '../estimators/prompt-value.js';
import type { Estimator } from '../estimators/types.js';
import type { TfidfVectorizer } from '../text/tfidf.js';
import { isKernelEstimatorName, resolveKernelEstimatorName } from '../kernels/resolve.js';

/** Base names whose baseline weighs rollouts by prompt text, so they need a fitted vectorizer. */
const PROMPT_KERNELS: ReadonlySet<string> = new Set(['tfidf_kernel_loo', 'length_bucket_loo']);
/** Base names that need the vectorizer only with a `_tfidf_kernel_loo_T<T>` prior. */
const PRIOR_KERNELS: ReadonlySet<string> = new Set(['shrinkage_loo', 'prompt_value']);

/** Whether the estimator name needs `--corpus` or `--vectorizer` (false for a name it cannot parse). */
export function needsVectorizer(name: string): boolean {
  try {
    const { base, temperature } = parseEstimatorName(name);
    return PROMPT_KERNELS.has(base) || (PRIOR_KERNELS.has(base) && temperature !== undefined);
  } catch {
    return false;
  }
}

/** Estimator options a command passes on (normalisation, rloo's singleton, prompt_value's options). */
export type CliEstimatorOptions = Omit<EstimatorContext, 'vectorizer' | 'similarity' | 'temperature'>;

function checkVectorizer(name: string, vectorizer: TfidfVectorizer | undefined, command: string): void {
  if (vectorizer === undefined && needsVectorizer(name)) {
    throw new RlAdvantagesError(
      `estimator ${JSON.stringify(name)} weighs rollouts by prompt similarity and needs a fitted TF-IDF vectorizer: ` +
        `start ${command} with --corpus FILE (e.g. the GSM8K train questions) or --vectorizer FILE (saved by rl-adv tfidf fit)`,
      { code: 'missing_vectorizer', field: 'estimator' },
    );
  }
}

/**
 * Creates the estimator `name` (see `createEstimator`), giving it the vectorizer when there is one.
 *
 * @param command - how the user starts the command, for the message when the vectorizer is missing.
 * @throws {RlAdvantagesError} `unknown_estimator` / `bad_temperature` for a bad name, and
 *   `missing_vectorizer` when a prompt-kernel estimator is asked for without `--corpus` or `--vectorizer`.
 */
export function cliEstimator(
  name: string,
  vectorizer: TfidfVectorizer | undefined,
  command: string,
  options: CliEstimatorOptions = {},
): Estimator {
  // kernel:PATH, the path relative to the current directory (for serve: the server's).
  const resolved = resolveKernelEstimatorName(name, process.cwd());
  if (resolved !== null) {
    const estimator = createEstimator('kernel_file', { ...options, kernel: resolved.kernel });
    return Object.freeze({ name, compute: estimator.compute });
  }
  const { base } = parseEstimatorName(name);
  checkVectorizer(name, vectorizer, command);
  try {
    return createEstimator(name, vectorizer === undefined ? options : { ...options, vectorizer });
  } catch (error) {
    // The library's `context.temperature` has no flag: on the command line the temperature is in the name.
    if (error instanceof RlAdvantagesError && error.code === 'bad_temperature' && base === 'kernel_loo' && name === base) {
      throw new RlAdvantagesError(`estimator "kernel_loo" needs a temperature in its name: kernel_loo_T<T>, e.g. kernel_loo_T0.1`, {
        code: 'bad_temperature',
        field: 'estimator',
      });
    }
    throw error;
  }
}

/** As {@link cliEstimator}, for a stateful estimator (`prompt_value...`). */
export function cliStatefulEstimator(
  name: string,
  vectorizer: TfidfVectorizer | undefined,
  command: string,
  options: CliEstimatorOptions = {},
): StatefulEstimator {
  parseEstimatorName(name);
  checkVectorizer(name, vectorizer, command);
  return createStatefulEstimator(name, vectorizer === undefined ? options : { ...options, vectorizer });
}

/** A batch field an estimator may read beyond the rewards. */
export type BatchField = 'prompts' | 'groupIds' | 'features' | 'lengths' | 'greedyRewards';

/** The batch fields each base name reads; a base not listed here is given every field the input has. */
const FIELDS_USED: Readonly<Record<string, readonly BatchField[]>> = {
  loo_batch_mean: [],
  group_mean: ['groupIds'],
  group_mean_std: ['groupIds'],
  rloo: ['groupIds'],
  tfidf_kernel_loo: ['prompts'],
  length_bucket_loo: ['prompts'],
  kernel_loo: ['features'],
  kernel_file: ['prompts'],
};

/**
 * The batch fields the estimator `name` reads, so a command can ignore the others (the CLI's rule:
 * fields a command does not use are ignored). Every field for a name this table does not know.
 */
export function fieldsUsed(name: string): ReadonlySet<BatchField> {
  let base: string;
  if (isKernelEstimatorName(name)) return new Set(['prompts']);
  try {
    base = parseEstimatorName(name).base;
  } catch {
    base = '';
  }
  return new Set(FIELDS_USED[base] ?? ['prompts', 'groupIds', 'features', 'lengths', 'greedyRewards']);
}
