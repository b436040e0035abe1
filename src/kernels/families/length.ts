// The `length` family: a Gaussian or Laplace kernel on ln(1 + a count of the prompt) (docs/method.md section 2.4).
import { LENGTH_MEASURES, type LengthMeasure } from '../features.js';
import { fail, readChoice, readNumber, readObject, type JsonObject } from '../read.js';
import { scalarEmbedding } from '../weights.js';
import { TextCache, type FamilyDefinition } from './types.js';

/** The shape of a kernel on one value. */
export const SCALAR_KERNELS = Object.freeze(['gaussian', 'laplace'] as const);

/** Parameters of the `length` family. */
export interface LengthParams extends JsonObject {
  readonly measure: LengthMeasure;
  readonly kernel: 'gaussian' | 'laplace';
  /** The bandwidth in units of the fitted sd of x. */
  readonly bandwidth: number;
}

/** Fitted part: the sd of x over the fitting prompts and the absolute bandwidth s = bandwidth * sd. */
export interface LengthFitted extends JsonObject {
  readonly sd: number;
  readonly scale: number;
}

/** Population sd of the values; 1 when it is 0 (constant values). */
export function sdOf(values: Float64Array): number {
  let mean = 0;
  for (const v of values) mean += v;
  mean /= values.length;
  let squares = 0;
  for (const v of values) squares += (v - mean) * (v - mean);
  const sd = Math.sqrt(squares / values.length);
  return sd > 0 && Number.isFinite(sd) ? sd : 1;
}

/** Reads `sd` and `scale` and checks scale = bandwidth * sd (the file's fitted parts agree with its params). */
export function readScale(value: unknown, path: string, bandwidth: number): { sd: number; scale: number } {
  const o = readObject(value, path);
  const sd = readNumber(o.sd, `${path}.sd`, true);
  const scale = readNumber(o.scale, `${path}.scale`, true);
  if (scale !== bandwidth * sd) fail(`${path}.scale`, `must equal params.bandwidth * sd (${bandwidth * sd}), got ${scale}`);
  return { sd, scale };
}

/** Reads the `kernel` and `bandwidth` of a scalar family's params (length, difficulty). */
export function readScalarKernel(o: JsonObject, path: string): { kernel: (typeof SCALAR_KERNELS)[number]; bandwidth: number } {
  return { kernel: readChoice(o.kernel, `${path}.kernel`, SCALAR_KERNELS), bandwidth: readNumber(o.bandwidth, `${path}.bandwidth`, true) };
}

export const lengthFamily: FamilyDefinition<LengthParams, LengthFitted> = {
  name: 'length',
  readParams(value, path) {
    const o = readObject(value, path);
    return {
      measure: readChoice(o.measure, `${path}.measure`, LENGTH_MEASURES),
      ...readScalarKernel(o, path),
    };
  },
  readFitted(value, path, params) {
    return readScale(value, path, params.bandwidth);
  },
  fit(params, data) {
    const sd = sdOf(data.cache.logCounts(data.prompts, params.measure));
    return { sd, scale: params.bandwidth * sd };
  },
  make(params, fitted) {
    return (prompts, cache = new TextCache()) => scalarEmbedding(cache.logCounts(prompts, params.measure), params.kernel, fitted.scale);
  },
};
