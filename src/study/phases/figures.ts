// Small figures the phases' result lines share.
import type { EvalRow } from '../backends/types.js';

/** Fraction of rows graded correct. */
export function accuracy(rows: readonly EvalRow[]): number {
  return rows.filter((r) => r.correct).length / rows.length;
}

/** A figure for a result line, printed as report.md prints it. */
export { formatFigure as fmt } from '../../internal/figures.js';
