// The collapse rate S seeds cannot rule out (docs/method.md section 5.8): what a seed-level verdict cannot see.
import { RlAdvantagesError } from '../errors.js';
import { describe } from '../internal/validate.js';
import { checkAlpha } from './checks.js';

/**
 * The largest per-run collapse probability p that S independent runs of an arm, none of them collapsed, do not rule
 * out at level alpha: (1 - p)^S >= alpha while p <= 1 - alpha^(1/S) (docs/method.md section 5.8). 0.45 at S = 5 and
 * alpha = 0.05.
 *
 * @param seeds - S, the training runs per arm (an integer >= 1).
 * @param alpha - the level, in (0, 1).
 * @returns 1 - alpha^(1/S).
 * @throws {RlAdvantagesError} `bad_integer` when seeds is not an integer >= 1, `bad_alpha` when alpha is not in (0, 1).
 * @example
 * ```ts
 * import { collapseRateNotRuledOut } from 'rl-advantages/stats';
 * console.log(collapseRateNotRuledOut(5, 0.05).toFixed(2)); // "0.45"
 * ```
 */
export function collapseRateNotRuledOut(seeds: number, alpha: number): number {
  if (!Number.isInteger(seeds) || seeds < 1) throw new RlAdvantagesError(`seeds must be an integer >= 1, got ${describe(seeds)}`, { code: 'bad_integer', field: 'seeds' });
  const a = checkAlpha('alpha', alpha);
  return 1 - a ** (1 / seeds);
}

/**
 * The sentence a seed-level verdict carries: the collapse rate its S seeds cannot rule out.
 *
 * @example
 * ```ts
 * collapseWords(5, 0.05); // "5 seeds cannot rule out a collapse rate up to 0.45 per run (..."
 * ```
 */
export function collapseWords(seeds: number, alpha: number): string {
  const p = collapseRateNotRuledOut(seeds, alpha);
  return (
    `${seeds} seeds cannot rule out a collapse rate up to ${p.toFixed(2)} per run (1 - ${alpha}^(1/${seeds}): with it, all ${seeds} runs of an arm escape collapse with probability ${alpha}); ` +
    'the verdict assumes no run collapsed, and the outlier flag does not check that (docs/method.md section 5.8)'
  );
}
