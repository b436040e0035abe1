// B_eff and the B_eff ratio from already-computed figures (docs/method.md section 4), e.g. to check a record.
import { RlAdvantagesError } from '../errors.js';
import { checkPositiveInteger, describe } from '../internal/validate.js';

/** The figures a B_eff ratio is computed from (docs/method.md section 4). */
export interface BeffRatioFigures {
  /** sigma_eps^2, the pooled within-task reward variance. */
  readonly sigmaEps2: number;
  /** MSE_corrected of the reference estimator (the LOO batch mean). */
  readonly mseCorrectedReference: number;
  /** MSE_corrected of the estimator being scored. */
  readonly mseCorrectedEstimator: number;
}

function finite(field: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw new RlAdvantagesError(`${field} must be a finite number, got ${describe(value)}`, { code: 'non_finite', field });
  }
  return value;
}

function nonNegative(field: string, value: unknown): number {
  const v = finite(field, value);
  if (v < 0) throw new RlAdvantagesError(`${field} must be >= 0, got ${v}`, { code: 'out_of_range', field });
  return v;
}

/**
 * Var(A) = sigma_eps^2 + MSE_corrected must be > 0 for a ratio or B_eff to exist. It is never negative
 * for a calibration (MSE_raw >= 0 and the correction is at most sigma_eps^2 when every G >= 2), but
 * hand-typed figures can be anything.
 */
function advantageVariance(field: string, sigmaEps2: number, mseCorrected: number): number {
  const v = sigmaEps2 + mseCorrected;
  if (!(v > 0)) {
    throw new RlAdvantagesError(
      `sigmaEps2 + ${field} must be > 0 (it is the advantage variance), got ${sigmaEps2} + ${mseCorrected} = ${v}`,
      { code: 'out_of_range', field },
    );
  }
  return v;
}

/**
 * The B_eff ratio of an estimator to the reference from the three published figures:
 *
 * ratio = (sigma_eps^2 + MSE_corrected(ref)) / (sigma_eps^2 + MSE_corrected(e)) = Var(A_ref) / Var(A_e),
 *
 * i.e. B_eff(e) / B_eff(ref). docs/method.md section 4 ("the post's recipe").
 *
 * @throws `RlAdvantagesError` if a figure is not finite, sigmaEps2 < 0, or either
 *   sigma_eps^2 + MSE_corrected is not > 0.
 * @example
 * ```ts
 * // The record of the first study attempt: sigma_eps^2 0.1275, MSE 0.1622 (LOO), 0.1692 (TF-IDF).
 * beffRatioFromFigures({ sigmaEps2: 0.1275, mseCorrectedReference: 0.1622, mseCorrectedEstimator: 0.1692 });
 * // 0.97641... (recorded as 0.9762, i.e. 0.976 < the gate's 1.03)
 * ```
 */
export function beffRatioFromFigures(figures: BeffRatioFigures): number {
  if (typeof figures !== 'object' || figures === null) {
    throw new RlAdvantagesError(`figures must be an object, got ${describe(figures)}`, { code: 'bad_type', field: 'figures' });
  }
  const sigmaEps2 = nonNegative('sigmaEps2', figures.sigmaEps2);
  const ref = finite('mseCorrectedReference', figures.mseCorrectedReference);
  const est = finite('mseCorrectedEstimator', figures.mseCorrectedEstimator);
  return (
    advantageVariance('mseCorrectedReference', sigmaEps2, ref) / advantageVariance('mseCorrectedEstimator', sigmaEps2, est)
  );
}

/**
 * B_eff of one estimator from its figures: B_eff = B * sigma_eps^2 / (sigma_eps^2 + MSE_corrected),
 * the batch size of ideal (true-mean) baselines that gives the same advantage variance.
 * docs/method.md section 4.
 *
 * @throws `RlAdvantagesError` if batchSize is not an integer >= 1, a figure is not finite,
 *   sigmaEps2 < 0, or sigma_eps^2 + MSE_corrected is not > 0.
 * @example
 * ```ts
 * beffFromFigures({ batchSize: 32, sigmaEps2: 0.1275, mseCorrected: 0.1622 }); // 14.08...
 * ```
 */
export function beffFromFigures(figures: { batchSize: number; sigmaEps2: number; mseCorrected: number }): number {
  if (typeof figures !== 'object' || figures === null) {
    throw new RlAdvantagesError(`figures must be an object, got ${describe(figures)}`, { code: 'bad_type', field: 'figures' });
  }
  const b = checkPositiveInteger('batchSize', figures.batchSize);
  const sigmaEps2 = nonNegative('sigmaEps2', figures.sigmaEps2);
  const mse = finite('mseCorrected', figures.mseCorrected);
  return (b * sigmaEps2) / advantageVariance('mseCorrected', sigmaEps2, mse);
}
