// Fast per-batch baselines for calibration. A calibration draws tens of thousands of batches from a
// fixed set of K tasks, so everything that depends on the task alone (TF-IDF rows, pairwise energies,
// length buckets) is computed once (src/kernels/engine.ts) and each batch only does the O(B^2) kernel
// arithmetic, with no allocation. The kernels are the families of src/kernels (docs/method.md section 2.4),
// so each engine gives what createEstimator(name).compute(batch) gives up to rounding;
// test/calibration/engines.test.ts checks agreement within 1e-12.
import { RlAdvantagesError } from '../errors.js';
import { findDescriptor, isUserEstimator } from '../estimators/catalogue.js';
import { createEstimator, parseEstimatorName } from '../estimators/registry.js';
import { looMeansInto } from '../internal/batch.js';
import { kernelBaselineFunction, DENSE_TASK_LIMIT } from '../kernels/engine.js';
import { bucketEmbedding } from '../kernels/families/references.js';
import { tfidfEmbedding } from '../kernels/families/tfidf.js';
import type { LoadedKernel } from '../kernels/kernel-file.js';
import { resolveKernelEstimatorName } from '../kernels/resolve.js';
import type { Embedding } from '../kernels/weights.js';
import { TfidfVectorizer } from '../text/tfidf.js';

/** Computes the baselines of one batch. Internal to calibration. */
export interface BaselineEngine {
  readonly name: string;
  /**
   * out[i] = b_i for the batch whose rollout i belongs to task taskOf[i] (an index into the task list
   * the engine was built on) and has reward rewards[i]. All three arrays have the batch size B.
   */
  compute(taskOf: Int32Array, rewards: Float64Array, out: Float64Array): void;
}

function looEngine(): BaselineEngine {
  return { name: 'loo_batch_mean', compute: (_taskOf, rewards, out) => void looMeansInto(rewards, out) };
}

/** A kernel family's engine over the task prompts (src/kernels: the one definition of the kernel and of b_i). */
function kernelEngine(name: string, embedding: Embedding, denseLimit: number): BaselineEngine {
  return { name, compute: kernelBaselineFunction(embedding, denseLimit) };
}

/**
 * shrinkage_loo through createEstimator on each batch, each rollout its own group: a calibration batch
 * holds B distinct tasks, so every group has one rollout and b is its prior (lambda = 1, docs/method.md section 2.2).
 * Slower than the engines above (no precomputed table).
 */
function genericEngine(name: string, prompts: readonly string[], vectorizer: TfidfVectorizer | undefined): BaselineEngine {
  const estimator = createEstimator(name, vectorizer === undefined ? {} : { vectorizer });
  return {
    name,
    compute: (taskOf, rewards, out) => {
      // One group per rollout: every batch holds distinct tasks, one rollout each.
      const ids = Array.from(taskOf);
      out.set(estimator.compute({ rewards, prompts: ids.map((k) => prompts[k] as string), groupIds: ids.map((_, i) => i) }).baselines);
    },
  };
}

/** Estimators a calibration can score: those whose b_i uses only prompts and other rollouts' rewards (and a user's). */
export const CALIBRATION_ESTIMATORS: readonly string[] = Object.freeze([
  'loo_batch_mean',
  'tfidf_kernel_loo_T<T>',
  'length_bucket_loo',
  'shrinkage_loo',
  'shrinkage_loo_tfidf_kernel_loo_T<T>',
  'kernel:PATH (a kernel file; kernel_file in the library)',
  'a registered estimator (registerEstimator; --estimator-module on the command line)',
]);

/**
 * Builds the engine for an estimator name over the task prompts.
 *
 * @param denseLimit - up to this many tasks, the K x K energy table is kept (tests lower it to reach the
 *   per-batch path).
 * @param kernels - loaded kernel files by estimator name (`kernel:PATH`), docs/method.md section 2.4; a
 *   `kernel:PATH` not among them is read relative to the current directory.
 * @throws {@link RlAdvantagesError} for an unknown name, a kernel without a vectorizer, or an
 *   estimator that cannot be calibrated (group estimators need several rollouts of one task per batch).
 */
export function createBaselineEngine(
  name: string,
  prompts: readonly string[],
  vectorizer: TfidfVectorizer | undefined,
  field: string,
  denseLimit = DENSE_TASK_LIMIT,
  kernels: Readonly<Record<string, LoadedKernel>> = {},
): BaselineEngine {
  if (Object.hasOwn(kernels, name)) return kernelEngine(name, (kernels[name] as LoadedKernel).embed(prompts), denseLimit);
  // kernel:PATH not given loaded: read relative to the current directory, as createEstimator does.
  const resolved = resolveKernelEstimatorName(name, process.cwd());
  if (resolved !== null) return kernelEngine(name, resolved.kernel.embed(prompts), denseLimit);
  if (name === 'kernel_file') {
    throw new RlAdvantagesError(`${field} "${name}" names a kernel file: give the loaded kernel as options.kernels[${JSON.stringify(name)}] (loadKernel)`, {
      code: 'missing_field',
      field: 'kernels',
    });
  }
  const { base, temperature } = parseEstimatorName(name);
  const needVectorizer = (): TfidfVectorizer => {
    if (!(vectorizer instanceof TfidfVectorizer)) {
      throw new RlAdvantagesError(
        `${field} "${name}" needs options.vectorizer: fit one with TfidfVectorizer.fit(corpus) (the study fits it on the GSM8K train questions)`,
        { code: 'missing_field', field: 'vectorizer' },
      );
    }
    return vectorizer;
  };
  if (base === 'loo_batch_mean') return looEngine();
  if (base === 'tfidf_kernel_loo') return kernelEngine(name, tfidfEmbedding(needVectorizer(), temperature as number, prompts), denseLimit);
  if (base === 'length_bucket_loo') {
    const v = needVectorizer();
    return kernelEngine(name, bucketEmbedding(v.tokenCountQuartiles, v.tokenCounts(prompts)), denseLimit);
  }
  const descriptor = findDescriptor(base);
  if (descriptor?.createStateful !== undefined) {
    throw new RlAdvantagesError(`${field} "${name}" cannot be calibrated: it keeps state across training steps, and a calibration scores one batch at a time`, {
      code: 'unsupported_estimator',
      field,
    });
  }
  // shrinkage_loo, and a user's estimator (registerEstimator): computed on each batch, each rollout its own group.
  if (base === 'shrinkage_loo' || (descriptor !== undefined && isUserEstimator(descriptor))) return genericEngine(name, prompts, vectorizer);
  throw new RlAdvantagesError(
    `${field} "${name}" cannot be calibrated: a calibration batch holds one rollout of each of B distinct tasks, so only estimators whose baseline uses prompts and other tasks' rewards apply (${CALIBRATION_ESTIMATORS.join(', ')})`,
    { code: 'unsupported_estimator', field },
  );
}
