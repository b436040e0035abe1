// How a candidate is fitted and embedded under the tuner's protocol (docs/method.md section 4.3): text-only parts
// fitted on the set's prompts, the ridge of `difficulty` out of fold (5 seeded folds, plus the --train tasks).
import seedrandom from 'seedrandom';
import { fitDifficultyModel, predictDifficulty, type DifficultyParams } from '../kernels/families/difficulty.js';
import { familyDefinition } from '../kernels/families/index.js';
import { sdOf } from '../kernels/families/length.js';
import type { FitData, TextCache } from '../kernels/families/types.js';
import type { JsonObject } from '../kernels/read.js';
import { scalarEmbedding, tabulate, type Embedding } from '../kernels/weights.js';
import type { Candidate } from './grid.js';

/** Inner folds of the out-of-fold ridge. */
export const INNER_FOLDS = 5;

/** Tasks with a reward target: the prompts and each task's mean reward. */
export interface Labelled {
  readonly prompts: readonly string[];
  readonly y: Float64Array;
}

/** A set of tasks the tuner scores or fits on. */
export interface TaskSet extends Labelled {
  /** A name for seeds and memo keys (e.g. `part1`, `all`). */
  readonly name: string;
}

/** The context shared by every candidate of a run. */
export interface ProtocolContext {
  readonly cache: TextCache;
  readonly seed: string;
  /** The --train tasks: in every ridge fit, never scored. */
  readonly train: Labelled;
  readonly corpus: readonly string[] | undefined;
  /** The user feature vectors by prompt (the `embedding` family). */
  readonly vectors?: ReadonlyMap<string, readonly number[]>;
}

function concat(a: Labelled, b: Labelled): Labelled {
  const y = new Float64Array(a.y.length + b.y.length);
  y.set(a.y);
  y.set(b.y, a.y.length);
  return { prompts: [...a.prompts, ...b.prompts], y };
}

/** The fit data of a set: its prompts, and its tasks plus the train tasks as labelled rows. */
export function fitData(set: TaskSet, context: ProtocolContext): FitData {
  return {
    prompts: set.prompts,
    labelled: concat(set, context.train),
    cache: context.cache,
    ...(context.corpus === undefined ? {} : { corpus: context.corpus }),
    ...(context.vectors === undefined ? {} : { vectors: context.vectors }),
  };
}

/** The fold (0..4) of every task of the set, a seeded balanced assignment. */
function folds(set: TaskSet, seed: string): Int32Array {
  const rng = seedrandom(`${seed}/folds/${set.name}`);
  const order = Array.from({ length: set.prompts.length }, (_, i) => i);
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    [order[i], order[j]] = [order[j] as number, order[i] as number];
  }
  const fold = new Int32Array(order.length);
  order.forEach((task, rank) => (fold[task] = rank % INNER_FOLDS));
  return fold;
}

/** Out-of-fold predictions of the ridge with penalty alpha for every task of the set. */
export function outOfFoldPredictions(alpha: number, set: TaskSet, context: ProtocolContext): Float64Array {
  return context.cache.memo(`oof\u0000${set.name}\u0000${alpha}`, () => {
    const fold = folds(set, context.seed);
    const out = new Float64Array(set.prompts.length);
    for (let f = 0; f < INNER_FOLDS; f++) {
      const inside: number[] = [];
      const outside: number[] = [];
      fold.forEach((g, k) => (g === f ? inside : outside).push(k));
      if (inside.length === 0) continue;
      const training = concat({ prompts: outside.map((k) => set.prompts[k] as string), y: Float64Array.from(outside, (k) => set.y[k] as number) }, context.train);
      const model = fitDifficultyModel(alpha, { prompts: set.prompts, labelled: training, cache: context.cache });
      const predictions = predictDifficulty({ ...model.std, weights: model.weights, intercept: model.intercept }, inside.map((k) => set.prompts[k] as string), context.cache);
      inside.forEach((k, r) => (out[k] = predictions[r] as number));
    }
    return out;
  });
}

/**
 * The candidate's energies between the set's tasks under the protocol: every part fitted on the set, the ridge out of
 * fold (so no task's own reward enters its prediction).
 */
export function protocolEmbedding(candidate: Candidate, set: TaskSet, context: ProtocolContext): Embedding {
  if (candidate.family === 'difficulty') {
    const params = candidate.params as DifficultyParams;
    const predictions = outOfFoldPredictions(params.alpha, set, context);
    return scalarEmbedding(predictions, params.kernel, params.bandwidth * sdOf(predictions));
  }
  if (candidate.family === 'product') {
    const [a, b] = (candidate.params.factors as readonly Candidate[]).map((f) => protocolEmbedding(f, set, context)) as [Embedding, Embedding];
    const energy = (i: number, j: number) => a.energy(i, j) + b.energy(i, j);
    // The sum of the factors' smallest energies is at or below the product's smallest.
    return a.minEnergy === undefined || b.minEnergy === undefined ? { size: a.size, energy } : { size: a.size, energy, minEnergy: a.minEnergy + b.minEnergy };
  }
  const base = baseEmbedding(candidate, set, context);
  if (base !== null) return base;
  const definition = familyDefinition(candidate.family);
  const fitted = definition.fit(candidate.params, fitData(set, context));
  return definition.make(candidate.params, fitted)(set.prompts, context.cache);
}

/**
 * For `tfidf`, `features` and `embedding`, whose energy is a base table (-cos, or |z_a - z_b|^2) divided by a parameter: the table
 * is computed once per set and shared by every temperature or bandwidth. Null for the other families.
 */
function baseEmbedding(candidate: Candidate, set: TaskSet, context: ProtocolContext): Embedding | null {
  const p = candidate.params;
  let divisor: number;
  let baseParams: JsonObject;
  if (candidate.family === 'tfidf') {
    divisor = p.temperature as number;
    baseParams = { temperature: 1, sublinear_tf: p.sublinear_tf as boolean };
  } else if (candidate.family === 'features' || candidate.family === 'embedding') {
    divisor = p.metric === 'rbf' ? 2 * (p.bandwidth as number) ** 2 : (p.bandwidth as number);
    // rbf with 2 s^2 = 1 gives |z_a - z_b|^2 (`embedding`: divided by d); cosine with T = 1 gives -cos.
    baseParams = { metric: p.metric as string, bandwidth: p.metric === 'rbf' ? Math.SQRT1_2 : 1 };
  } else return null;
  const definition = familyDefinition(candidate.family);
  const { table, min } = context.cache.memo(`base\u0000${set.name}\u0000${candidate.family}\u0000${JSON.stringify(baseParams)}`, () => {
    const t = tabulate(definition.make(baseParams, definition.fit(baseParams, fitData(set, context)))(set.prompts, context.cache));
    let m = Infinity;
    for (let a = 0; a < t.size; a++) for (let b = a + 1; b < t.size; b++) m = Math.min(m, t.energy(a, b));
    return { table: t, min: m };
  });
  return { size: table.size, energy: (a, b) => table.energy(a, b) / divisor, minEnergy: min / divisor };
}

/** The candidate refitted on a set (every part, the ridge on all its tasks and the train tasks): params and fitted parts. */
export function refit(candidate: Candidate, set: TaskSet, context: ProtocolContext): { params: JsonObject; fitted: JsonObject } {
  const definition = familyDefinition(candidate.family);
  const params = definition.readParams(candidate.params, 'params');
  return { params, fitted: definition.fit(params, fitData(set, context)) };
}
