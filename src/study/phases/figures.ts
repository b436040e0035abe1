// Small figures the phases' result lines share.
import type { EvalRow } from '../backends/types.js';

/** Fraction of rows graded correct. */
export function accuracy(rows: readonly EvalRow[]): number {
  return rows.filter((r) => r.correct).length / rows.length;
}
