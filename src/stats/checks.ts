// Parameter checks shared by the decision methods (not exported from the package).
import { RlAdvantagesError } from '../errors.js';
import { checkPositiveInteger, describe } from '../internal/validate.js';

/** alpha must be a number in (0, 1). */
export function checkAlpha(field: string, alpha: unknown): number {
  if (typeof alpha !== 'number' || !Number.isFinite(alpha) || alpha <= 0 || alpha >= 1) {
    throw new RlAdvantagesError(`${field} must be a number in (0, 1), got ${describe(alpha)}`, { code: 'bad_alpha', field });
  }
  return alpha;
}

/** A range width R must be a finite number > 0. */
export function checkRange(field: string, range: unknown): number {
  if (typeof range !== 'number' || !Number.isFinite(range) || range <= 0) {
    throw new RlAdvantagesError(`${field} must be a finite number > 0, got ${describe(range)}`, { code: 'bad_range', field });
  }
  return range;
}

/** A sample variance V must be a finite number >= 0. */
export function checkVariance(field: string, variance: unknown): number {
  if (typeof variance !== 'number' || !Number.isFinite(variance) || variance < 0) {
    throw new RlAdvantagesError(`${field} must be a finite number >= 0, got ${describe(variance)}`, { code: 'bad_variance', field });
  }
  return variance;
}

/**
 * The parameters every half-width takes, checked in this order: n an integer >= 1, alpha in (0, 1), R > 0 and
 * k (`comparisons`, default 1) an integer >= 1.
 */
export function checkHalfWidthParameters(options: { n: unknown; alpha: unknown; range: unknown; comparisons?: unknown }): {
  n: number;
  alpha: number;
  range: number;
  k: number;
} {
  return {
    n: checkPositiveInteger('n', options.n),
    alpha: checkAlpha('alpha', options.alpha),
    range: checkRange('range', options.range),
    k: checkPositiveInteger('comparisons', options.comparisons ?? 1),
  };
}

/** A finite number. */
export function checkFiniteNumber(field: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw new RlAdvantagesError(`${field} must be a finite number, got ${describe(value)}`, { code: 'non_finite', field });
  }
  return value;
}

/** The sum, min and max of the differences; throws `out_of_range` when they spread wider than R. */
export function summarizeDifferences(d: Float64Array, range: number, method: string): { sum: number; min: number; max: number } {
  if (d.length === 0) {
    throw new RlAdvantagesError('differences must hold at least one item', { code: 'empty', field: 'differences' });
  }
  let sum = 0;
  let min = Infinity;
  let max = -Infinity;
  for (const x of d) {
    sum += x;
    if (x < min) min = x;
    if (x > max) max = x;
  }
  // The bounds are only valid when every value lies in a range of width R; a wider spread means the caller's R
  // (or data) is wrong. The slack absorbs float rounding of d = w_t*y_t + w_b*y_b.
  if (max - min > range * (1 + 1e-12)) {
    throw new RlAdvantagesError(
      `differences spread over ${max - min} (from ${min} to ${max}), wider than range ${range}: the ${method} bound does not apply`,
      { code: 'out_of_range', field: 'differences' },
    );
  }
  return { sum, min, max };
}
