// The one JSON shape of a B_eff calibration (snake_case), written by `rl-adv calibrate --json` and the study,
// read by `rl-adv gate-metrics --calibration` and a resumed study.
import { RlAdvantagesError } from '../errors.js';
import { describe } from '../internal/validate.js';
import type { BeffCalibration, CalibrationInterval, EstimatorCalibration } from './beff.js';
import type { InSampleTasks } from './in-sample.js';
import type { NoiseModel } from './simulate.js';

/** Where the TF-IDF vectorizer of a calibration came from (what reproduces it), or null when none was needed. */
export type VectorizerSource = Readonly<Record<string, string | number>> | null;

/** One estimator's figures in {@link CalibrationJson}. */
export interface EstimatorCalibrationJson {
  mse_raw: number;
  mse_corrected: number;
  beff: number | null;
  ratio: number;
  ratio_se: number;
  ratio_task_se: number | null;
  ratio_ci95: [number, number] | null;
  /** EVPO's explained variance (docs/method.md section 4.4); absent from results written before it. */
  explained_variance?: number;
}

/** The JSON form of a {@link BeffCalibration}: every figure and what reproduces it. */
export interface CalibrationJson {
  mode: 'corrected' | 'single_rollout';
  tasks: number;
  rollouts: number;
  mean_reward: number;
  batch_size: number;
  batches: number;
  seed: string | number;
  noise: NoiseModel;
  interval_method: CalibrationInterval;
  interval_level: number;
  sigma_eps2: number | null;
  reference: string;
  /** The scored estimators, reference first, in the order of `estimators`. */
  estimator_names: string[];
  vectorizer: VectorizerSource;
  estimators: Record<string, EstimatorCalibrationJson>;
  /** Kernel files scored on tasks they were tuned on: their ratio is in-sample (present only then). */
  in_sample?: Record<string, { tasks: number; of: number; examples: string[] }>;
}

/**
 * The snake_case JSON form of a calibration (docs/method.md section 9, `calibration.json`): the figures, and the
 * settings that reproduce them (seed, batches, batch size, noise model, interval method and level, estimator
 * names, and where the vectorizer came from, which only the caller knows).
 *
 * @param result - a {@link BeffCalibration} from `calibrateBeff` (or {@link parseCalibrationJson}).
 * @param vectorizer - where the vectorizer came from, e.g. `{ corpus: 'train.jsonl', corpus_field: 'question' }`
 *   or `{ file: 'gsm8k.tfidf.json' }`; null (default) when no estimator needed one.
 * @example
 * ```ts
 * const json = calibrationJson(calibrateBeff(tasks, { vectorizer }), { corpus: 'train.jsonl', corpus_field: 'question' });
 * json.estimators['tfidf_kernel_loo_T0.1']?.ratio_ci95; // [lo, hi], the delete-one-task jackknife interval
 * ```
 */
export function calibrationJson(result: BeffCalibration, vectorizer: VectorizerSource = null): CalibrationJson {
  const estimators: Record<string, EstimatorCalibrationJson> = {};
  for (const [name, e] of Object.entries(result.estimators)) {
    estimators[name] = {
      mse_raw: e.mseRaw,
      mse_corrected: e.mseCorrected,
      beff: e.beff,
      ratio: e.ratio,
      ratio_se: e.ratioSe,
      ratio_task_se: e.ratioTaskSe ?? null,
      ratio_ci95: e.ratioCi95 === null ? null : [e.ratioCi95[0], e.ratioCi95[1]],
      ...(e.explainedVariance === undefined ? {} : { explained_variance: e.explainedVariance }),
    };
  }
  return {
    mode: result.mode,
    tasks: result.tasks,
    rollouts: result.rollouts,
    mean_reward: result.meanReward,
    batch_size: result.batchSize,
    batches: result.batches,
    seed: result.seed,
    noise: result.noise,
    interval_method: result.intervalMethod,
    interval_level: 0.95,
    sigma_eps2: result.sigmaEps2,
    reference: result.reference,
    estimator_names: Object.keys(result.estimators),
    vectorizer: vectorizer === null ? null : { ...vectorizer },
    estimators,
    ...(result.inSample === undefined
      ? {}
      : { in_sample: Object.fromEntries(Object.entries(result.inSample).map(([name, s]) => [name, { tasks: s.tasks, of: s.of, examples: [...s.examples] }])) }),
  };
}

type Json = Record<string, unknown>;

function fail(path: string, message: string): never {
  throw new RlAdvantagesError(`${path} ${message}`, { code: 'bad_calibration', field: path });
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function finite(value: unknown, path: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) fail(path, `must be a finite number, got ${describe(value)}`);
  return value;
}

function integer(value: unknown, path: string, min: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min) fail(path, `must be an integer >= ${min}, got ${describe(value)}`);
  return value;
}

function oneOf<T extends string>(value: unknown, path: string, allowed: readonly T[]): T {
  if (!allowed.includes(value as T)) fail(path, `must be one of ${allowed.map((a) => JSON.stringify(a)).join(', ')}, got ${describe(value)}`);
  return value as T;
}

function nullableFinite(value: unknown, path: string): number | null {
  return value === null ? null : finite(value, path);
}

function estimatorFigures(value: unknown, path: string): EstimatorCalibration {
  if (!isObject(value)) fail(path, `must be an object of figures, got ${describe(value)}`);
  const ci = value.ratio_ci95;
  let ratioCi95: [number, number] | null = null;
  if (ci !== null) {
    if (!Array.isArray(ci) || ci.length !== 2) fail(`${path}.ratio_ci95`, `must be [lower, upper] or null, got ${describe(ci)}`);
    ratioCi95 = [finite(ci[0], `${path}.ratio_ci95[0]`), finite(ci[1], `${path}.ratio_ci95[1]`)];
    if (ratioCi95[0] > ratioCi95[1]) fail(`${path}.ratio_ci95`, `must have lower <= upper, got [${ratioCi95.join(', ')}]`);
  }
  return {
    mseRaw: finite(value.mse_raw, `${path}.mse_raw`),
    mseCorrected: finite(value.mse_corrected, `${path}.mse_corrected`),
    beff: nullableFinite(value.beff, `${path}.beff`),
    ratio: finite(value.ratio, `${path}.ratio`),
    ratioSe: finite(value.ratio_se, `${path}.ratio_se`),
    ratioTaskSe: nullableFinite(value.ratio_task_se, `${path}.ratio_task_se`),
    ratioCi95,
    ...(value.explained_variance === undefined ? {} : { explainedVariance: finite(value.explained_variance, `${path}.explained_variance`) }),
  };
}

/**
 * Reads the JSON form {@link calibrationJson} writes back into a {@link BeffCalibration}, checking every field.
 *
 * @param json - the parsed JSON value (e.g. `JSON.parse` of `rl-adv calibrate --json` output or a study's
 *   `calibration/beff.json`).
 * @returns the calibration (deprecated bootstrap counts 0); the vectorizer source is in `vectorizer`.
 * @throws `RlAdvantagesError` `bad_calibration` whose `field` is the JSON path at fault, e.g.
 *   `estimators.tfidf_kernel_loo_T0.1.ratio must be a finite number, got undefined`.
 * @example
 * ```ts
 * const calibration = parseCalibrationJson(JSON.parse(readFileSync('calibration.json', 'utf8')));
 * calibration.estimators['tfidf_kernel_loo_T0.1']?.ratio;
 * ```
 */
export function parseCalibrationJson(json: unknown): BeffCalibration & { readonly vectorizer: VectorizerSource } {
  if (!isObject(json)) fail('calibration', `must be the JSON object rl-adv calibrate --json prints, got ${describe(json)}`);
  const mode = oneOf(json.mode, 'mode', ['corrected', 'single_rollout'] as const);
  const sigma = json.sigma_eps2;
  const sigmaEps2 = mode === 'corrected' ? finite(sigma, 'sigma_eps2') : sigma === null ? null : fail('sigma_eps2', `must be null in single-rollout mode, got ${describe(sigma)}`);
  if (sigmaEps2 !== null && sigmaEps2 < 0) fail('sigma_eps2', `must be >= 0, got ${sigmaEps2}`);
  if (typeof json.reference !== 'string' || json.reference === '') fail('reference', `must be an estimator name, got ${describe(json.reference)}`);
  const seed = json.seed;
  if (!(typeof seed === 'string' || (typeof seed === 'number' && Number.isFinite(seed)))) fail('seed', `must be a string or a finite number, got ${describe(seed)}`);
  if (!isObject(json.estimators)) fail('estimators', `must be an object of estimator name -> figures, got ${describe(json.estimators)}`);
  const estimators: Record<string, EstimatorCalibration> = {};
  for (const [name, figures] of Object.entries(json.estimators)) estimators[name] = estimatorFigures(figures, `estimators.${name}`);
  if (estimators[json.reference] === undefined) fail('estimators', `has no figures for the reference ${JSON.stringify(json.reference)}`);
  const vectorizer = json.vectorizer ?? null;
  if (vectorizer !== null && !isObject(vectorizer)) fail('vectorizer', `must be an object or null, got ${describe(vectorizer)}`);
  const level = finite(json.interval_level, 'interval_level');
  if (level !== 0.95) fail('interval_level', `must be 0.95 (the only level computed), got ${level}`);
  return {
    mode,
    tasks: integer(json.tasks, 'tasks', 2),
    rollouts: integer(json.rollouts, 'rollouts', 2),
    meanReward: finite(json.mean_reward, 'mean_reward'),
    batchSize: integer(json.batch_size, 'batch_size', 2),
    batches: integer(json.batches, 'batches', 2),
    intervalMethod: oneOf(json.interval_method, 'interval_method', ['jackknife', 'none'] as const),
    noise: oneOf(json.noise, 'noise', ['pooled', 'per-task'] as const),
    bootstrapReplicates: 0,
    bootstrapBatches: 0,
    seed,
    sigmaEps2,
    reference: json.reference,
    estimators,
    ...(json.in_sample === undefined ? {} : { inSample: readInSample(json.in_sample) }),
    vectorizer: vectorizer as VectorizerSource,
  };
}

function readInSample(value: unknown): Record<string, InSampleTasks> {
  if (!isObject(value)) fail('in_sample', `must be an object of estimator name -> {tasks, of, examples}, got ${describe(value)}`);
  const out: Record<string, InSampleTasks> = {};
  for (const [name, s] of Object.entries(value)) {
    const path = `in_sample.${name}`;
    if (!isObject(s)) fail(path, `must be {tasks, of, examples}, got ${describe(s)}`);
    const examples = s.examples;
    if (!Array.isArray(examples) || examples.some((e) => typeof e !== 'string')) fail(`${path}.examples`, `must be an array of strings, got ${describe(examples)}`);
    out[name] = { tasks: integer(s.tasks, `${path}.tasks`, 1), of: integer(s.of, `${path}.of`, 1), examples: examples as string[] };
  }
  return out;
}
