import seedrandom from 'seedrandom';
import { beforeAll, describe, expect, it } from 'vitest';
import { createBaselineEngine } from '../../src/calibration/engines.js';
import { createEstimator } from '../../src/estimators/registry.js';
import { TfidfVectorizer } from '../../src/text/tfidf.js';
import { maxAbsDiff, trainQuestions } from '../helpers/paths.js';

let vectorizer: TfidfVectorizer;
let prompts: string[];

beforeAll(() => {
  const questions = trainQuestions();
  vectorizer = TfidfVectorizer.fit(questions);
  // 64 held-out-style tasks (the tail of train) plus two exact copies, so that duplicate prompts occur.
  prompts = questions.slice(7400, 7464);
  prompts.push(prompts[0] as string, prompts[1] as string);
});

/** A batch of `size` distinct task indices (or any indices when `distinct` is false) and rewards. */
function drawBatch(rng: () => number, size: number, distinct: boolean): { taskOf: Int32Array; rewards: Float64Array } {
  const pool = Array.from({ length: prompts.length }, (_, k) => k);
  const taskOf = new Int32Array(size);
  for (let i = 0; i < size; i++) {
    const j = distinct ? i + Math.floor(rng() * (pool.length - i)) : Math.floor(rng() * pool.length);
    [pool[i], pool[j]] = [pool[j] as number, pool[i] as number];
    taskOf[i] = pool[i] as number;
  }
  const levels = [-0.1, 0, 0.9, 1];
  const rewards = Float64Array.from(taskOf, () => levels[Math.floor(rng() * 4)] as number);
  return { taskOf, rewards };
}

describe.each(['loo_batch_mean', 'tfidf_kernel_loo_T0.1', 'tfidf_kernel_loo_T0.003', 'length_bucket_loo'])(
  'calibration engine %s',
  (name) => {
    it('gives what createEstimator(name).compute(batch) gives, within 1e-12', () => {
      const engine = createBaselineEngine(name, prompts, vectorizer, 'estimator');
      const estimator = createEstimator(name, { vectorizer });
      const rng = seedrandom(`engines-${name}`);
      for (const [size, distinct] of [[32, true], [2, true], [7, true], [32, false], [48, false]] as const) {
        for (let trial = 0; trial < 4; trial++) {
          const { taskOf, rewards } = drawBatch(rng, size, distinct);
          const out = new Float64Array(size);
          engine.compute(taskOf, rewards, out);
          const expected = estimator.compute({ rewards, prompts: Array.from(taskOf, (k) => prompts[k] as string) });
          expect(maxAbsDiff(out, expected.baselines)).toBeLessThanOrEqual(1e-12);
        }
      }
    });
  },
);

describe('tfidf kernel engine without the K x K cosine table (more than 2048 tasks)', () => {
  it('gives the same bits as with the table', () => {
    const dense = createBaselineEngine('tfidf_kernel_loo_T0.1', prompts, vectorizer, 'estimator');
    const sparse = createBaselineEngine('tfidf_kernel_loo_T0.1', prompts, vectorizer, 'estimator', 0);
    const rng = seedrandom('sparse-path');
    for (let trial = 0; trial < 8; trial++) {
      const { taskOf, rewards } = drawBatch(rng, 32, trial % 2 === 0);
      const a = new Float64Array(32);
      const b = new Float64Array(32);
      dense.compute(taskOf, rewards, a);
      sparse.compute(taskOf, rewards, b);
      expect(b).toEqual(a);
    }
  });
});

describe('shrinkage_loo in a calibration batch (one rollout per task: lambda = 1, b = the prior)', () => {
  it('equals the LOO batch mean bit for bit, and with a TF-IDF prior the kernel within 1e-12', () => {
    const rng = seedrandom('shrinkage');
    const pairs = [
      ['shrinkage_loo', 'loo_batch_mean', 0],
      ['shrinkage_loo_tfidf_kernel_loo_T0.1', 'tfidf_kernel_loo_T0.1', 1e-12],
    ] as const;
    for (const [name, reference, tolerance] of pairs) {
      const engine = createBaselineEngine(name, prompts, vectorizer, 'estimator');
      const other = createBaselineEngine(reference, prompts, vectorizer, 'reference');
      for (let trial = 0; trial < 4; trial++) {
        const { taskOf, rewards } = drawBatch(rng, 16, trial % 2 === 0);
        const a = new Float64Array(16);
        const b = new Float64Array(16);
        engine.compute(taskOf, rewards, a);
        other.compute(taskOf, rewards, b);
        for (let i = 0; i < 16; i++) expect(Math.abs((a[i] as number) - (b[i] as number))).toBeLessThanOrEqual(tolerance);
      }
    }
    expect(() => createBaselineEngine('prompt_value', prompts, vectorizer, 'estimator')).toThrow(/keeps state across training steps/);
  });
});

describe('createBaselineEngine', () => {
  it('refuses estimators that need several rollouts of one task, and kernels without a vectorizer', () => {
    expect(() => createBaselineEngine('group_mean', prompts, vectorizer, 'estimator')).toThrow(/cannot be calibrated/);
    expect(() => createBaselineEngine('rloo', prompts, vectorizer, 'estimator')).toThrow(/cannot be calibrated/);
    expect(() => createBaselineEngine('tfidf_kernel_loo_T0.1', prompts, undefined, 'estimator')).toThrow(/needs options.vectorizer/);
    expect(() => createBaselineEngine('no_such_estimator', prompts, vectorizer, 'estimator')).toThrow(/unknown estimator/);
  });
});
