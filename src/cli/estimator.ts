// Creating estimators for CLI commands, from the catalogue: the vectorizer check speaks in command-line terms.
import { RlAdvantagesError } from '../errors.js';
import { findDescriptor } from '../estimators/catalogue.js';
import type { BatchField as LibraryBatchField } from '../estimators/descriptor.js';
import { createEstimator, createStatefulEstimator, type EstimatorContext } from '../estimators/registry.js';
import type { StatefulEstimator } from '../estimators/prompt-value.js';
import { parseName, type EstimatorSpec } from '../estimators/spec.js';
import type { Estimator } from '../estimators/types.js';
import type { TfidfVectorizer } from '../text/tfidf.js';

/** An estimator as a command takes it: a name (`--estimator`) or a structured spec (`--estimator-json`, camelCase keys). */
export type CliEstimatorSpec = string | EstimatorSpec;

/**
 * Whether the estimator needs `--corpus` or `--vectorizer`, from its descriptor (a prior's vectorizer only when
 * the prior is asked for); false for a name it cannot parse.
 */
export function needsVectorizer(spec: CliEstimatorSpec): boolean {
  try {
    const name = typeof spec === 'string' ? spec : spec.name;
    const { descriptor, params } = parseName(name);
    if (descriptor.needsVectorizer !== 'with_short_form') return descriptor.needsVectorizer;
    const parameter = descriptor.shortForm?.parameter as string;
    return params[parameter] !== undefined || (typeof spec === 'object' && spec[parameter] !== undefined);
  } catch {
    return false;
  }
}

/** Estimator options a command passes on (normalisation, rloo's singleton, prompt_value's options). */
export type CliEstimatorOptions = Omit<EstimatorContext, 'vectorizer' | 'similarity' | 'kernel' | 'baseDir'>;

function checkVectorizer(spec: CliEstimatorSpec, vectorizer: TfidfVectorizer | undefined, command: string): void {
  if (vectorizer === undefined && needsVectorizer(spec)) {
    const name = typeof spec === 'string' ? spec : spec.name;
    throw new RlAdvantagesError(
      `estimator ${JSON.stringify(name)} weighs rollouts by prompt similarity and needs a fitted TF-IDF vectorizer: ` +
        `start ${command} with --corpus FILE (e.g. the GSM8K train questions) or --vectorizer FILE (saved by rl-adv tfidf fit)`,
      { code: 'missing_vectorizer', field: 'estimator' },
    );
  }
}

/**
 * Creates the estimator (see `createEstimator`), giving it the vectorizer when there is one; `kernel:PATH` is read
 * relative to the current directory (for serve: the server's).
 *
 * @param command - how the user starts the command, for the message when the vectorizer is missing.
 * @throws {RlAdvantagesError} as `createEstimator`, and `missing_vectorizer` when a prompt-kernel estimator is
 *   asked for without `--corpus` or `--vectorizer`.
 */
export function cliEstimator(spec: CliEstimatorSpec, vectorizer: TfidfVectorizer | undefined, command: string, options: CliEstimatorOptions = {}): Estimator {
  parseName(typeof spec === 'string' ? spec : spec.name);
  checkVectorizer(spec, vectorizer, command);
  return createEstimator(spec as string, { ...options, ...(vectorizer === undefined ? {} : { vectorizer }), baseDir: process.cwd() });
}

/** As {@link cliEstimator}, for a stateful estimator (`prompt_value...`). */
export function cliStatefulEstimator(spec: CliEstimatorSpec, vectorizer: TfidfVectorizer | undefined, command: string, options: CliEstimatorOptions = {}): StatefulEstimator {
  parseName(typeof spec === 'string' ? spec : spec.name);
  checkVectorizer(spec, vectorizer, command);
  return createStatefulEstimator(spec, { ...options, ...(vectorizer === undefined ? {} : { vectorizer }), baseDir: process.cwd() });
}

/** A batch field an estimator may read beyond the rewards and the mask. */
export type BatchField = Exclude<LibraryBatchField, 'rewards' | 'mask'>;

const EVERY_FIELD: readonly BatchField[] = ['prompts', 'groupIds', 'features', 'lengths', 'greedyRewards', 'rewardComponents'];

/**
 * The batch fields the estimator reads (its descriptor's required and optional fields), so a command can ignore
 * the others (the CLI's rule: fields a command does not use are ignored). An optional `groupIds` (e.g.
 * loo_batch_mean's, for `normalize: 'group'`) is left out: groups are read when every row gives one. Every field
 * for a name it cannot parse.
 */
export function fieldsUsed(spec: CliEstimatorSpec): ReadonlySet<BatchField> {
  let descriptor;
  try {
    descriptor = parseName(typeof spec === 'string' ? spec : spec.name).descriptor;
  } catch {
    descriptor = findDescriptor('');
  }
  if (descriptor === undefined) return new Set(EVERY_FIELD);
  const fields = [...descriptor.fields.required, ...descriptor.fields.optional.filter((f) => f !== 'groupIds')];
  return new Set(EVERY_FIELD.filter((f) => fields.includes(f)));
}
