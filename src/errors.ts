/**
 * The one error class this library throws for bad input or bad usage.
 *
 * Every message names the offending field and, where there is one, its index, so a
 * caller can find the bad value without a debugger: `rewards[3] must be a finite number, got NaN`.
 *
 * @example
 * ```ts
 * import { RlAdvantagesError, looBatchMean } from 'rl-advantages';
 * try {
 *   looBatchMean({ rewards: [1] });
 * } catch (error) {
 *   if (error instanceof RlAdvantagesError) console.log(error.field); // "rewards"
 * }
 * ```
 */
export class RlAdvantagesError extends Error {
  /** The input field at fault, as a path such as `rewards` or `arms[1].advantage`. */
  readonly field: string | undefined;
  /** The index within `field` at fault, when the fault is one element. */
  readonly index: number | undefined;
  /** A stable machine-readable code, e.g. `non_finite`, `length_mismatch`, `unknown_estimator`. */
  readonly code: string;

  constructor(message: string, options: { code: string; field?: string; index?: number } = { code: 'invalid_input' }) {
    super(message);
    this.name = 'RlAdvantagesError';
    this.code = options.code;
    this.field = options.field;
    this.index = options.index;
  }
}
