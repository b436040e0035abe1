// The `difficulty` family: a kernel on a ridge regression's predicted reward from the text features
// (docs/method.md section 2.4).
import { RlAdvantagesError } from '../../errors.js';
import { TEXT_FEATURE_NAMES } from '../features.js';
import { readNumber, readNumbers, readObject, type JsonObject } from '../read.js';
import { fitRidge, predictRidge } from '../ridge.js';
import { scalarEmbedding } from '../weights.js';
import { fitStandardisation, readStandardisation, standardised, type Standardisation } from './features.js';
import { readScalarKernel, readScale, sdOf } from './length.js';
import { TextCache, type FamilyDefinition, type FitData } from './types.js';

/** Parameters of the `difficulty` family. */
export interface DifficultyParams extends JsonObject {
  /** The ridge penalty. */
  readonly alpha: number;
  readonly kernel: 'gaussian' | 'laplace';
  /** The bandwidth in units of the sd of the predictions. */
  readonly bandwidth: number;
}

/** Fitted parts: the standardisation, the ridge, the sd of the predictions over the fitting prompts, s. */
export interface DifficultyFitted extends Standardisation {
  readonly weights: readonly number[];
  readonly intercept: number;
  readonly sd: number;
  readonly scale: number;
}

/** Fits the standardisation (on data.prompts) and the ridge (on data.labelled); returns both and the predictor. */
export function fitDifficultyModel(alpha: number, data: FitData): { std: Standardisation; weights: number[]; intercept: number } {
  if (data.labelled === undefined || data.labelled.prompts.length === 0) {
    throw new RlAdvantagesError('the difficulty family needs prompts with rewards to fit its ridge', { code: 'missing_field', field: 'labelled' });
  }
  const std = data.cache.memo(`std\u0000${data.prompts.join('\u0001')}`, () => fitStandardisation(data.prompts, data.cache));
  const z = standardised(std, data.labelled.prompts, data.cache);
  const rows = Int32Array.from({ length: data.labelled.prompts.length }, (_, i) => i);
  const fit = fitRidge(z, TEXT_FEATURE_NAMES.length, rows, data.labelled.y, alpha);
  return { std, weights: [...fit.weights], intercept: fit.intercept };
}

/** The predictions f = c + w . z of the prompts. */
export function predictDifficulty(model: Standardisation & { weights: readonly number[]; intercept: number }, prompts: readonly string[], cache: TextCache): Float64Array {
  return predictRidge(model, standardised(model, prompts, cache), TEXT_FEATURE_NAMES.length);
}

export const difficultyFamily: FamilyDefinition<DifficultyParams, DifficultyFitted> = {
  name: 'difficulty',
  readParams(value, path) {
    const o = readObject(value, path);
    return {
      alpha: readNumber(o.alpha, `${path}.alpha`, true),
      ...readScalarKernel(o, path),
    };
  },
  readFitted(value, path, params) {
    const o = readObject(value, path);
    const std = readStandardisation(o, path);
    const weights = readNumbers(o.weights, `${path}.weights`, TEXT_FEATURE_NAMES.length);
    const intercept = readNumber(o.intercept, `${path}.intercept`);
    return { ...std, weights, intercept, ...readScale(o, path, params.bandwidth) };
  },
  fit(params, data) {
    const { std, weights, intercept } = fitDifficultyModel(params.alpha, data);
    const model = { ...std, weights, intercept };
    const sd = sdOf(predictDifficulty(model, data.prompts, data.cache));
    return { ...model, sd, scale: params.bandwidth * sd };
  },
  make(params, fitted) {
    return (prompts, cache = new TextCache()) => scalarEmbedding(predictDifficulty(fitted, prompts, cache), params.kernel, fitted.scale);
  },
};
