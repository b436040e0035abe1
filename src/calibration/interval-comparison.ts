// The delete-one jackknife interval beside the bias-corrected one on the same batches (docs/method.md section
// 4.1), for validation/beff-interval.mjs and the tests. Internal: not exported from the package.
import seedrandom from 'seedrandom';
import { RlAdvantagesError } from '../errors.js';
import { readOptions, type CalibrateBeffOptions } from './beff.js';
import { createBaselineEngine } from './engines.js';
import { biasCorrectedJackknife, type BiasCorrectedJackknife } from './jackknife-bc.js';
import { jackknifeRatio, type JackknifeRatio } from './jackknife.js';
import { readTasks, type CalibrationTask } from './rows.js';
import { corrections, noiseVariance, prepare, ratioWithSe, simulate } from './simulate.js';

/** Both intervals of one estimator's ratio. */
export interface IntervalComparison {
  readonly ratio: number;
  /** The Monte-Carlo standard error (calibrateBeff's ratioSe). */
  readonly ratioSe: number;
  /** The delete-one jackknife (calibrateBeff's ratioTaskSe and ratioCi95). */
  readonly jackknife: JackknifeRatio | null;
  readonly biasCorrected: BiasCorrectedJackknife | null;
}

/**
 * The calibration of {@link calibrateBeff} (same options, same draws: the ratio and the delete-one jackknife are
 * bit for bit calibrateBeff's) with, beside the jackknife, the bias-corrected jackknife variance built from the
 * per-pair sums of the same batches (jackknife-bc.ts).
 *
 * @throws `RlAdvantagesError` as calibrateBeff, and for `interval: 'none'` (nothing to compare).
 * @example
 * ```ts
 * const c = compareIntervals(tasks, { vectorizer, seed: 1 });
 * c['tfidf_kernel_loo_T0.1']?.biasCorrected?.se; // below c['tfidf_kernel_loo_T0.1']?.jackknife?.se
 * ```
 */
export function compareIntervals(
  tasks: readonly CalibrationTask[],
  options?: CalibrateBeffOptions,
): Record<string, IntervalComparison> {
  const table = readTasks(tasks);
  const o = readOptions(options, table.count);
  if (o.interval === 'none') {
    throw new RlAdvantagesError('interval "none" has no interval to compare', { code: 'bad_option', field: 'interval' });
  }
  const prepared = prepare(table);
  const engines = o.names.map((name, i) =>
    createBaselineEngine(name, table.prompts, o.vectorizer, i === 0 ? 'reference' : 'estimator', undefined, o.kernels),
  );
  const rng = seedrandom(String(o.seed)) as { quick(): number };
  const sigma2 = noiseVariance(prepared, o.noise);
  const main = simulate(prepared, o.batchSize, o.batches, rng, engines, () => undefined, true);
  const correction = corrections(main, o.noise, sigma2, prepared.corrected);
  const out: Record<string, IntervalComparison> = {};
  o.names.forEach((name, e) => {
    const { ratio, se } = ratioWithSe(main.sse[0] as Float64Array, main.sse[e] as Float64Array, correction, sigma2, o.batchSize);
    out[name] = {
      ratio,
      ratioSe: se,
      jackknife: jackknifeRatio(prepared, main, e, ratio, o.noise, o.batchSize),
      biasCorrected: biasCorrectedJackknife(prepared, main, e, ratio, o.noise, o.batchSize),
    };
  });
  return out;
}
