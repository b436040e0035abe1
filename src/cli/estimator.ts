// Creating named estimators for CLI commands: the vectorizer check speaks in command-line terms.
import { RlAdvantagesError } from '../errors.js';
import { createEstimator, createStatefulEstimator, parseEstimatorName, type EstimatorContext } from '../estimators/registry.js';
import type { StatefulEstimator } from '../estimators/prompt-value.js';
import type { Estimator } from '../estimators/types.js';
import type { TfidfVectorizer } from '../text/tfidf.js';

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
  parseEstimatorName(name);
  checkVectorizer(name, vectorizer, command);
  return createEstimator(name, vectorizer === undefined ? options : { ...options, vectorizer });
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
