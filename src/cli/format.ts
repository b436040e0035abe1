// Plain-text tables and numbers for the human-readable output of rl-adv commands (--json prints
// the exact figures; these are rounded for reading).

/** A number rounded to `digits` significant decimals for reading; `-` for null. */
export function num(value: number | null | undefined, digits = 4): string {
  if (value === null || value === undefined) return '-';
  if (!Number.isFinite(value)) return String(value);
  if (Number.isInteger(value)) return String(value);
  return Number(value.toFixed(digits)).toString();
}

/** A number with an explicit sign, for differences and bounds: `+0.0248`, `-0.05`. */
export function signed(value: number, digits = 4): string {
  const text = num(value, digits);
  return text !== '0' && value > 0 ? `+${text}` : text;
}

/** Left-aligned columns separated by two spaces; the header row is underlined. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((r) => (r[c] ?? '').length)));
  const line = (cells: readonly string[]): string =>
    cells
      .map((cell, c) => (c === cells.length - 1 ? cell : cell.padEnd(widths[c] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n') + '\n';
}

/**
 * A count and its noun, singular for exactly one: `plural(1, 'rollout')` is `1 rollout`,
 * `plural(18, 'rollout')` is `18 rollouts`; `many` gives an irregular plural (`plural(2, 'criterion', 'criteria')`).
 */
export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}
