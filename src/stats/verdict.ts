// Verdicts of the paired decision (docs/method.md section 5.1).
import { RlAdvantagesError } from '../errors.js';
import { checkFiniteNumber } from './checks.js';

/** The verdict of one criterion, or of the whole decision. */
export type Verdict = 'validated' | 'failed' | 'inconclusive';

/**
 * The verdict of one criterion with margin m, "larger favors treatment" (docs/method.md section 5.1):
 * `validated` if lower > m (strictly), `failed` if upper < m (strictly), else `inconclusive`.
 *
 * @throws {RlAdvantagesError} `non_finite` when an argument is not a finite number.
 * @example
 * ```ts
 * import { criterionVerdict } from 'rl-advantages/stats';
 * console.log(criterionVerdict({ lower: -0.05, upper: 0.1, margin: -0.05 })); // "inconclusive" (not strictly above)
 * ```
 */
export function criterionVerdict(interval: { lower: number; upper: number; margin: number }): Verdict {
  const lower = checkFiniteNumber('lower', interval.lower);
  const upper = checkFiniteNumber('upper', interval.upper);
  const margin = checkFiniteNumber('margin', interval.margin);
  if (lower > margin) return 'validated';
  if (upper < margin) return 'failed';
  return 'inconclusive';
}

/**
 * The overall verdict: `failed` if any criterion failed, `validated` only if every criterion validated,
 * otherwise `inconclusive` (docs/method.md section 5.1).
 *
 * @throws {RlAdvantagesError} `empty` when there are no verdicts.
 * @example
 * ```ts
 * import { combineVerdicts } from 'rl-advantages/stats';
 * console.log(combineVerdicts(['validated', 'inconclusive'])); // "inconclusive"
 * ```
 */
export function combineVerdicts(verdicts: readonly Verdict[]): Verdict {
  if (verdicts.length === 0) {
    throw new RlAdvantagesError('verdicts must hold at least one verdict', { code: 'empty', field: 'verdicts' });
  }
  if (verdicts.includes('failed')) return 'failed';
  if (verdicts.every((v) => v === 'validated')) return 'validated';
  return 'inconclusive';
}
