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

/**
 * A file could not be read or written for a reason of the system, not of the input: a full disk (ENOSPC, EDQUOT),
 * an I/O error (EIO), a read-only file system (EROFS). The CLI exits 74 (EX_IOERR) with its one-line message, which
 * names the path and the remedy.
 *
 * @example
 * ```ts
 * import { RlAdvantagesIoError } from 'rl-advantages';
 * try { writeSomething(); } catch (error) {
 *   if (error instanceof RlAdvantagesIoError) console.log(error.path, error.errno); // "out/state.json" "ENOSPC"
 * }
 * ```
 */
export class RlAdvantagesIoError extends RlAdvantagesError {
  /** The file or folder the failed operation was on. */
  readonly path: string;
  /** The system's error code, e.g. `ENOSPC`, `EIO`, `EROFS`. */
  readonly errno: string;

  constructor(message: string, options: { path: string; errno: string }) {
    super(message, { code: 'io_error', field: options.path });
    this.name = 'RlAdvantagesIoError';
    this.path = options.path;
    this.errno = options.errno;
  }
}
