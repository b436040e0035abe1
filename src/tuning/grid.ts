// The candidate kernels of a tuning run: a grid fixed in advance, and the neighbours local refinement tries
// (docs/method.md section 4.3).
import { SCALAR_KERNELS } from '../kernels/families/length.js';
import type { KernelFamily } from '../kernels/families/types.js';
import type { JsonObject } from '../kernels/read.js';

/** A family and its parameters (the fitted parts come from the data). */
export interface Candidate {
  readonly family: KernelFamily;
  readonly params: JsonObject;
}

/** A stable key of a candidate (its family and parameters, in key order). */
export function candidateKey(c: Candidate): string {
  return JSON.stringify([c.family, c.params]);
}

const TEMPERATURES = [0.02, 0.05, 0.1, 0.2, 0.5, 1, 2];
const BANDWIDTHS = [0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1, 1.5, 2, 3];
const ALPHAS = [0.3, 1, 3, 10, 30, 100, 300, 1000, 3000];
const MEASURES = ['chars', 'words', 'tokens', 'numbers', 'sentences'] as const;

function product(a: Candidate, b: Candidate): Candidate {
  return { family: 'product', params: { factors: [{ family: a.family, params: a.params }, { family: b.family, params: b.params }] } };
}

/** A scalar family's grid (length, difficulty): each value of `key`, then each scalar kernel, then each bandwidth. */
function scalarGrid(family: KernelFamily, key: string, values: readonly (string | number)[]): Candidate[] {
  return values.flatMap((value) => SCALAR_KERNELS.flatMap((kernel) => BANDWIDTHS.map((bandwidth) => ({ family, params: { [key]: value, kernel, bandwidth } }))));
}

/** The grid of one family. */
function familyGrid(family: KernelFamily): Candidate[] {
  const out: Candidate[] = [];
  switch (family) {
    case 'loo_batch_mean':
    case 'length_bucket_loo':
      return [{ family, params: {} }];
    case 'tfidf':
      for (const sublinear_tf of [false, true]) for (const temperature of TEMPERATURES) out.push({ family, params: { temperature, sublinear_tf } });
      return out;
    case 'length':
      return scalarGrid(family, 'measure', MEASURES);
    case 'features':
      for (const bandwidth of [0.5, 0.75, 1, 1.5, 2, 2.5, 3, 4, 6, 8]) out.push({ family, params: { metric: 'rbf', bandwidth } });
      for (const bandwidth of [0.05, 0.1, 0.2, 0.5, 1, 2]) out.push({ family, params: { metric: 'cosine', bandwidth } });
      return out;
    case 'embedding':
      for (const bandwidth of [0.25, 0.5, 0.75, 1, 1.5, 2, 3]) out.push({ family, params: { metric: 'rbf', bandwidth } });
      for (const bandwidth of [0.02, 0.05, 0.1, 0.2, 0.5, 1]) out.push({ family, params: { metric: 'cosine', bandwidth } });
      return out;
    case 'difficulty':
      return scalarGrid(family, 'alpha', ALPHAS);
    case 'product':
      return productGrid();
  }
}

function productGrid(): Candidate[] {
  const out: Candidate[] = [];
  const length = (measure: string, bandwidth: number): Candidate => ({ family: 'length', params: { measure, kernel: 'gaussian', bandwidth } });
  const difficulty = (bandwidth: number): Candidate => ({ family: 'difficulty', params: { alpha: 30, kernel: 'gaussian', bandwidth } });
  const pairs = [['chars', 'numbers'], ['chars', 'sentences'], ['words', 'numbers'], ['chars', 'words'], ['numbers', 'sentences'], ['words', 'sentences']];
  for (const [a, b] of pairs) for (const s of [0.5, 1, 1.5, 2]) for (const t of [0.5, 1, 1.5, 2]) out.push(product(length(a as string, s), length(b as string, t)));
  for (const s of [0.35, 0.5, 0.75, 1, 1.5]) {
    for (const t of [0.5, 1, 2]) out.push(product(difficulty(s), length('chars', t)));
    for (const temperature of [0.2, 0.5, 1, 2]) out.push(product(difficulty(s), { family: 'tfidf', params: { temperature, sublinear_tf: false } }));
  }
  for (const s of [0.5, 0.75, 1]) for (const t of [2, 4, 6]) out.push(product(difficulty(s), { family: 'features', params: { metric: 'rbf', bandwidth: t } }));
  return out;
}

/** Every candidate of the grid of the given families, in the order given. */
export function candidateGrid(families: readonly KernelFamily[]): Candidate[] {
  return families.flatMap(familyGrid);
}

/** The continuous parameters of a family that refinement moves. */
const CONTINUOUS = ['bandwidth', 'temperature', 'alpha'];

/**
 * The neighbours of a candidate: each continuous parameter (of each factor, for a product) multiplied by `step` and
 * by 1 / step, the others unchanged.
 */
export function neighbours(c: Candidate, step = 0.7): Candidate[] {
  if (c.family === 'product') {
    const factors = c.params.factors as readonly Candidate[];
    return factors.flatMap((f, i) =>
      neighbours(f, step).map((moved) => ({
        family: 'product' as const,
        params: { factors: factors.map((g, j) => (j === i ? { family: moved.family, params: moved.params } : g)) },
      })),
    );
  }
  const out: Candidate[] = [];
  for (const key of CONTINUOUS) {
    const value = c.params[key];
    if (typeof value !== 'number') continue;
    for (const factor of [step, 1 / step]) out.push({ family: c.family, params: { ...c.params, [key]: Number((value * factor).toPrecision(6)) } });
  }
  return out;
}
