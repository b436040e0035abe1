// The interval every decision method returns (docs/method.md section 5).

/** A two-sided interval for the expected paired difference E[d], as every decision method returns it. */
export interface PairedInterval {
  /** Number of paired items. */
  readonly n: number;
  /** mean(d). */
  readonly estimate: number;
  /** Half the interval's width, (upper - lower) / 2 (for the symmetric methods, the distance to either end). */
  readonly halfWidth: number;
  /** The lower end. */
  readonly lower: number;
  /** The upper end. */
  readonly upper: number;
}

/** The arguments every decision method's interval takes. */
export interface PairedIntervalOptions {
  /** d_1..d_n, finite numbers (array, typed array or 1-D ndarray). */
  readonly differences: unknown;
  /** R, the width of the range each d_i lies in; the observed spread max(d) - min(d) must not exceed it. */
  readonly range: number;
  /** Family-wise error rate in (0, 1). */
  readonly alpha: number;
  /** k, the number of simultaneous intervals (Bonferroni: alpha / k each; default 1). */
  readonly comparisons?: number;
  /**
   * For 0/1 outcomes, the items where both outcomes are 1 (d_i = 0 cannot tell both-right from both-wrong):
   * required by `paired_newcombe`, not used by the others.
   */
  readonly n11?: number;
}
