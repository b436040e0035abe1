// A criterion's range and extremes, and whether it compares 0/1 outcomes (docs/method.md section 5.1).

/** A criterion of a decision rule (docs/method.md section 5). */
export interface DecisionCriterion {
  /** Unique name of the criterion, e.g. `primary`. */
  readonly id: string;
  /** The per-item metric the criterion compares, e.g. `accuracy`. */
  readonly metric: string;
  /** Inclusive bounds [lo, hi] that every per-item metric value lies in. */
  readonly bounds: readonly [number, number];
  /** The margin m: validated if lower > m, failed if upper < m (larger favors treatment). */
  readonly margin: number;
  /** d_i = treatment * y_t,i + baseline * y_b,i. */
  readonly weights: { readonly treatment: number; readonly baseline: number };
  /** Any other keys the spec gave, kept as-is. */
  readonly [key: string]: unknown;
}

/**
 * R = (|w_t| + |w_b|) * (hi - lo): the width of the range d_i = w_t * y_t + w_b * y_b lies in when both y are in
 * [lo, hi] (docs/method.md section 5).
 */
export function criterionRange(c: DecisionCriterion): number {
  return (Math.abs(c.weights.treatment) + Math.abs(c.weights.baseline)) * (c.bounds[1] - c.bounds[0]);
}

/** The smallest and largest d_i can be, for whether a verdict is reachable at all. */
export function differenceExtremes(c: DecisionCriterion): [number, number] {
  const [lo, hi] = c.bounds;
  let min = 0;
  let max = 0;
  for (const w of [c.weights.treatment, c.weights.baseline]) {
    min += Math.min(w * lo, w * hi);
    max += Math.max(w * lo, w * hi);
  }
  return [min, max];
}

/**
 * Whether d_i = w_t y_t + w_b y_b of 0/1 outcomes lies in {-1, 0, +1}: weights (1, -1) or (-1, 1). The exact
 * binomial method and the power of section 5.6 need this.
 */
export function isBinaryDifference(c: Pick<DecisionCriterion, 'weights'>): boolean {
  const { treatment: t, baseline: b } = c.weights;
  return Math.abs(t) === 1 && b === -t;
}

/** Power (section 5.6) also needs bounds [0, 1], so that R = 2 is the range of the 0/1 difference. */
export function isAccuracyDifference(c: Pick<DecisionCriterion, 'weights' | 'bounds'>): boolean {
  return isBinaryDifference(c) && c.bounds[0] === 0 && c.bounds[1] === 1;
}
