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
  return createEstimator(name, vectorizer === undefined ? {} : { vectorizer });
}

/** Whether the estimator name needs `--corpus` or `--vectorizer` (false for a name it cannot parse). */
export function needsVectorizer(name: string): boolean {
  try {
    return PROMPT_KERNELS.has(parseEstimatorName(name).base);
  } catch {
    return false;
  }
}
