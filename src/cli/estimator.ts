// Creating named estimators for CLI commands: the vectorizer check speaks in command-line terms.
import { RlAdvantagesError } from '../errors.js';
import { createEstimator, parseEstimatorName } from '../estimators/registry.js';
import type { Estimator } from '../estimators/types.js';
import type { TfidfVectorizer } from '../text/tfidf.js';

/** Base names whose baseline weighs rollouts by prompt text, so they need a fitted vectorizer. */
const PROMPT_KERNELS: ReadonlySet<string> = new Set(['tfidf_kernel_loo', 'length_bucket_loo']);

/**
 * Creates the estimator `name` (see `createEstimator`), giving it the vectorizer when there is one.
 *
 * @param command - how the user starts the command, for the message when the vectorizer is missing.
 * @throws {RlAdvantagesError} `unknown_estimator` / `bad_temperature` for a bad name, and
 *   `missing_vectorizer` when a prompt-kernel estimator is asked for without `--corpus` or `--vectorizer`.
 */
export function cliEstimator(name: string, vectorizer: TfidfVectorizer | undefined, command: string): Estimator {
  const { base } = parseEstimatorName(name);
  if (vectorizer === undefined && PROMPT_KERNELS.has(base)) {
    throw new RlAdvantagesError(
      `estimator ${JSON.stringify(name)} weighs rollouts by prompt similarity and needs a fitted TF-IDF vectorizer: ` +
        `start ${command} with --corpus FILE (e.g. the GSM8K train questions) or --vectorizer FILE (saved by rl-adv tfidf fit)`,
      { code: 'missing_vectorizer', field: 'estimator' },
    );
  }
  try {
    return createEstimator(name, vectorizer === undefined ? {} : { vectorizer });
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

/** Whether the estimator name needs `--corpus` or `--vectorizer` (false for a name it cannot parse). */
export function needsVectorizer(name: string): boolean {
  try {
    return PROMPT_KERNELS.has(parseEstimatorName(name).base);
  } catch {
    return false;
  }
}

/** A batch field an estimator may read beyond the rewards. */
export type BatchField = 'prompts' | 'groupIds' | 'features';

/** The batch fields each base name reads; a base not listed here is given every field the input has. */
const FIELDS_USED: Readonly<Record<string, readonly BatchField[]>> = {
  loo_batch_mean: [],
  group_mean: ['groupIds'],
  group_mean_std: ['groupIds'],
  rloo: ['groupIds'],
  tfidf_kernel_loo: ['prompts'],
  length_bucket_loo: ['prompts'],
  kernel_loo: ['features'],
};

/**
 * The batch fields the estimator `name` reads, so a command can ignore the others (the CLI's rule:
 * fields a command does not use are ignored). Every field for a name this table does not know.
 */
export function fieldsUsed(name: string): ReadonlySet<BatchField> {
  let base: string;
  try {
    base = parseEstimatorName(name).base;
  } catch {
    base = '';
  }
  return new Set(FIELDS_USED[base] ?? ['prompts', 'groupIds', 'features']);
}
