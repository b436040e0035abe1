// One way to print a figure, shared by the study's phase lines, report.md and report.html, so a number reads the
// same wherever it appears.

/** Decimals per kind of figure: accuracies and ratios 4, rewards 3. */
export const FIGURE_DIGITS = Object.freeze({ accuracy: 4, ratio: 4, reward: 3 });

/** A figure: integers plainly, other numbers with `digits` decimals, `n/a` when absent or not finite. */
export function formatFigure(x: number | null | undefined, digits = 4): string {
  if (typeof x !== 'number' || !Number.isFinite(x)) return 'n/a';
  return Number.isInteger(x) ? String(x) : x.toFixed(digits);
}
