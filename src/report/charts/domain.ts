// Axis ranges that show every mark and reference line with room to spare.

/**
 * The range [min - pad, max + pad] of the finite values given, pad = `fraction` of their span (or `minPad` when
 * they are all equal), so a rule at the edge (the gate's bar) and its label stay inside the plot.
 *
 * @example
 * ```ts
 * paddedDomain([0.95, 1.03], 0.1); // [0.942, 1.038]
 * ```
 */
export function paddedDomain(values: readonly (number | null | undefined)[], fraction = 0.1, minPad = 0.05): [number, number] {
  const xs = values.filter((x): x is number => typeof x === 'number' && Number.isFinite(x));
  if (xs.length === 0) return [0, 1];
  const lo = Math.min(...xs);
  const hi = Math.max(...xs);
  const pad = hi > lo ? (hi - lo) * fraction : minPad;
  return [lo - pad, hi + pad];
}
