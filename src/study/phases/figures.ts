// Small figures the phases' result lines share.
import type { EvalRow } from '../backends/types.js';

/** Fraction of rows graded correct. */
export function accuracy(rows: readonly EvalRow[]): number {
  return rows.filter((r) => r.correct).length / rows.length;
}

/** A number with `digits` decimals for a result line, or `n/a`. */
export const fmt = (x: number | null | undefined, digits = 4): string => (typeof x === 'number' ? x.toFixed(digits) : 'n/a');
