// Hand-written kernel files of every family, for the kernel tests.
import { KERNEL_FILE_FORMAT, TEXT_FEATURE_NAMES, TfidfVectorizer } from '../../src/index.js';

const base = { format: KERNEL_FILE_FORMAT, version: 1 } as const;
const d = TEXT_FEATURE_NAMES.length;
const std = { names: [...TEXT_FEATURE_NAMES], means: Array.from({ length: d }, (_, i) => i / 7), sds: Array.from({ length: d }, (_, i) => 1 + i / 3) };

/** One kernel of every family, written by hand. */
export function handKernels(): Record<string, unknown> {
  const vectorizer = TfidfVectorizer.fit(['add the apples', 'apples cost two dollars', 'how many hours', 'trains travel at a rate']);
  return {
    loo_batch_mean: { ...base, family: 'loo_batch_mean', params: {}, fitted: {} },
    length_bucket_loo: { ...base, family: 'length_bucket_loo', params: {}, fitted: { quartiles: [3, 5, 9] } },
    tfidf: { ...base, family: 'tfidf', params: { temperature: 0.1, sublinear_tf: false }, fitted: { vectorizer: vectorizer.toJSON() } },
    length: { ...base, family: 'length', params: { measure: 'chars', kernel: 'gaussian', bandwidth: 0.5 }, fitted: { sd: 0.75, scale: 0.375 } },
    features: { ...base, family: 'features', params: { metric: 'rbf', bandwidth: 2 }, fitted: std },
    difficulty: {
      ...base,
      family: 'difficulty',
      params: { alpha: 10, kernel: 'laplace', bandwidth: 1 },
      fitted: { ...std, weights: Array.from({ length: d }, (_, i) => (i % 3) * 0.01 - 0.01), intercept: 0.6, sd: 0.03, scale: 0.03 },
    },
    product: {
      ...base,
      family: 'product',
      params: { factors: [{ family: 'length', params: { measure: 'numbers', kernel: 'laplace', bandwidth: 1 } }, { family: 'features', params: { metric: 'cosine', bandwidth: 0.5 } }] },
      fitted: { factors: [{ sd: 0.5, scale: 0.5 }, std] },
    },
  };
}

