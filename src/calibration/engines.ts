// Fast per-batch baselines for calibration. A calibration draws tens of thousands of batches from a
// fixed set of K tasks, so everything that depends on the task alone (TF-IDF rows, pairwise cosines,
// length buckets) is computed once here and each batch only does the O(B^2) kernel arithmetic, with no
// allocation. Each engine follows its estimator's definition and summation order (src/estimators/*,
// docs/method.md section 2), so it gives what createEstimator(name).compute(batch) gives up to rounding;
// test/calibration/engines.test.ts checks agreement within 1e-12.
import { RlAdvantagesError } from '../errors.js';
import { createEstimator, parseEstimatorName } from '../estimators/registry.js';
import { looMeansInto } from '../internal/batch.js';
import { TfidfVectorizer, type CsrMatrix } from '../text/tfidf.js';

/** Computes the baselines of one batch. Internal to calibration. */
export interface BaselineEngine {
  readonly name: string;
  /**
   * out[i] = b_i for the batch whose rollout i belongs to task taskOf[i] (an index into the task list
   * the engine was built on) and has reward rewards[i]. All three arrays have the batch size B.
   */
  compute(taskOf: Int32Array, rewards: Float64Array, out: Float64Array): void;
}

/** Above this many tasks the K x K cosine table (8 K^2 bytes) is not kept; cosines are formed per batch. */
const DENSE_TASK_LIMIT = 2048;

function looEngine(): BaselineEngine {
  return { name: 'loo_batch_mean', compute: (_taskOf, rewards, out) => void looMeansInto(rewards, out) };
}

/**
 * <x_a, x_b> of two CSR rows, summed over their common columns in ascending order (the order in which
 * sparseSimilarityRow accumulates out[b] for row a). Products commute exactly, so rowDot(a, b) and
 * rowDot(b, a) have the same bits and the cosine table is exactly symmetric.
 */
function rowDot(x: CsrMatrix, a: number, b: number): number {
  let p = x.indptr[a] as number;
  const pEnd = x.indptr[a + 1] as number;
  let q = x.indptr[b] as number;
  const qEnd = x.indptr[b + 1] as number;
  let dot = 0;
  while (p < pEnd && q < qEnd) {
    const cp = x.indices[p] as number;
    const cq = x.indices[q] as number;
    if (cp === cq) {
      dot += (x.data[p] as number) * (x.data[q] as number);
      p++;
      q++;
    } else if (cp < cq) p++;
    else q++;
  }
  return dot;
}

function tfidfKernelEngine(
  name: string,
  temperature: number,
  prompts: readonly string[],
  vectorizer: TfidfVectorizer,
  denseLimit: number,
): BaselineEngine {
  // TF-IDF rows of every task, once per calibration.
  const x = vectorizer.transform(prompts);
  const count = prompts.length;
  let cosine: (a: number, b: number) => number;
  if (count <= denseLimit) {
    const table = new Float64Array(count * count);
    for (let a = 0; a < count; a++) {
      for (let b = a; b < count; b++) {
        const s = rowDot(x, a, b);
        table[a * count + b] = s;
        table[b * count + a] = s;
      }
    }
    cosine = (a, b) => table[a * count + b] as number;
  } else {
    cosine = (a, b) => rowDot(x, a, b);
  }
  let scratch = new Float64Array(0);
  return {
    name,
    // The stabilised kernel of docs/method.md section 2 over singleton rollouts: m_i = max_{j != i} s_ij,
    // b_i = sum_{j != i} exp((s_ij - m_i)/T) r_j / sum_{j != i} exp((s_ij - m_i)/T).
    compute(taskOf, rewards, out) {
      const size = rewards.length;
      if (scratch.length !== size * size) scratch = new Float64Array(size * size);
      for (let i = 0; i < size; i++) {
        const ki = taskOf[i] as number;
        for (let j = i + 1; j < size; j++) {
          const s = cosine(ki, taskOf[j] as number);
          scratch[i * size + j] = s;
          scratch[j * size + i] = s;
        }
      }
      for (let i = 0; i < size; i++) {
        const row = i * size;
        let max = -Infinity;
        for (let j = 0; j < size; j++) {
          if (j === i) continue;
          const s = scratch[row + j] as number;
          if (s > max) max = s;
        }
        let numerator = 0;
        let denominator = 0;
        for (let j = 0; j < size; j++) {
          if (j === i) continue;
          const w = Math.exp(((scratch[row + j] as number) - max) / temperature);
          numerator += w * (rewards[j] as number);
          denominator += w;
        }
        out[i] = numerator / denominator;
      }
    },
  };
}

function lengthBucketEngine(prompts: readonly string[], vectorizer: TfidfVectorizer): BaselineEngine {
  const [q1, q2, q3] = vectorizer.tokenCountQuartiles;
  const counts = vectorizer.tokenCounts(prompts);
  const bucketOf = new Int32Array(prompts.length);
  for (let k = 0; k < prompts.length; k++) {
    const length = counts[k] as number;
    bucketOf[k] = Number(length >= q1) + Number(length >= q2) + Number(length >= q3);
  }
  let members = new Int32Array(0);
  let loo = new Float64Array(0);
  const fill = new Int32Array(4);
  return {
    name: 'length_bucket_loo',
    // As lengthBucketLoo: the mean of the other rollouts in i's bucket (prefix plus suffix sums in
    // batch order), or the LOO batch mean when i is alone in its bucket.
    compute(taskOf, rewards, out) {
      const size = rewards.length;
      if (members.length !== 4 * size) {
        members = new Int32Array(4 * size);
        loo = new Float64Array(size);
      }
      fill.fill(0);
      for (let i = 0; i < size; i++) {
        const bucket = bucketOf[taskOf[i] as number] as number;
        members[bucket * size + (fill[bucket] as number)] = i;
        fill[bucket] = (fill[bucket] as number) + 1;
      }
      looMeansInto(rewards, loo);
      for (let bucket = 0; bucket < 4; bucket++) {
        const n = fill[bucket] as number;
        const base = bucket * size;
        if (n === 1) {
          const i = members[base] as number;
          out[i] = loo[i] as number;
          continue;
        }
        let prefix = 0;
        for (let k = 0; k < n; k++) {
          const i = members[base + k] as number;
          out[i] = prefix;
          prefix += rewards[i] as number;
        }
        let suffix = 0;
        for (let k = n - 1; k >= 0; k--) {
          const i = members[base + k] as number;
          out[i] = (out[i] as number) + suffix;
          suffix += rewards[i] as number;
        }
        for (let k = 0; k < n; k++) {
          const i = members[base + k] as number;
          out[i] = (out[i] as number) / (n - 1);
        }
      }
    },
  };
}

/**
 * shrinkage_loo through createEstimator on each batch, each rollout its own group: a calibration batch
 * holds B distinct tasks (a bootstrap batch may repeat one; still distinct draws), so every group has one rollout, so b is its prior (lambda = 1, docs/method.md section 2.2).
 * Slower than the engines above (no precomputed table).
 */
function genericEngine(name: string, prompts: readonly string[], vectorizer: TfidfVectorizer | undefined): BaselineEngine {
  const estimator = createEstimator(name, vectorizer === undefined ? {} : { vectorizer });
  return {
    name,
    compute: (taskOf, rewards, out) => {
      // One group per rollout: a bootstrap batch may hold a resampled task twice, and those are distinct tasks.
      const ids = Array.from(taskOf);
      out.set(estimator.compute({ rewards, prompts: ids.map((k) => prompts[k] as string), groupIds: ids.map((_, i) => i) }).baselines);
    },
  };
}

/** Estimators a calibration can score: those whose b_i uses only prompts and other rollouts' rewards. */
export const CALIBRATION_ESTIMATORS: readonly string[] = Object.freeze([
  'loo_batch_mean',
  'tfidf_kernel_loo_T<T>',
  'length_bucket_loo',
  'shrinkage_loo',
  'shrinkage_loo_tfidf_kernel_loo_T<T>',
]);

/**
 * Builds the engine for an estimator name over the task prompts.
 *
 * @param denseLimit - up to this many tasks, the K x K cosine table is kept (tests lower it to reach the
 *   per-batch path).
 * @throws {@link RlAdvantagesError} for an unknown name, a kernel without a vectorizer, or an
 *   estimator that cannot be calibrated (group estimators need several rollouts of one task per batch).
 */
export function createBaselineEngine(
  name: string,
  prompts: readonly string[],
  vectorizer: TfidfVectorizer | undefined,
  field: string,
  denseLimit = DENSE_TASK_LIMIT,
): BaselineEngine {
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
  if (base === 'tfidf_kernel_loo') return tfidfKernelEngine(name, temperature as number, prompts, needVectorizer(), denseLimit);
  if (base === 'length_bucket_loo') return lengthBucketEngine(prompts, needVectorizer());
  if (base === 'shrinkage_loo') return genericEngine(name, prompts, vectorizer);
  throw new RlAdvantagesError(
    base === 'prompt_value'
      ? `${field} "${name}" cannot be calibrated: it keeps state across training steps, and a calibration scores one batch at a time`
      : `${field} "${name}" cannot be calibrated: a calibration batch holds one rollout of each of B distinct tasks, so only estimators whose baseline uses prompts and other tasks' rewards apply (${CALIBRATION_ESTIMATORS.join(', ')})`,
    { code: 'unsupported_estimator', field },
  );
}
