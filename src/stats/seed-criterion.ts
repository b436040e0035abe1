// One criterion of a decision across seeds (docs/method.md section 5.8): its seed-level interval, verdict and fallback.
import { differenceExtremes } from './criteria.js';
import type { DecisionCriterion } from './decision-rule.js';
import { seedInterval, type SeedDegeneracy } from './seed-interval.js';
import { seedMeansInterval } from './seed-means-interval.js';
import type { SeedMethodName } from './seed-method-names.js';
import { criterionVerdict, type Verdict } from './verdict.js';

/** One criterion of a seed-level decision. */
export interface SeedCriterionDecision {
  readonly id: string;
  readonly metric: string;
  readonly estimate: number;
  readonly lower: number;
  readonly upper: number;
  readonly margin: number;
  readonly verdict: Verdict;
  readonly halfWidth: number;
  /** The interval's standard error; null when no variance could be estimated (`fallback.rule` `whole_range`). */
  readonly standardError: number | null;
  readonly df: number;
  /** The per-seed mean differences, in replicate order. */
  readonly perSeed: readonly number[];
  /** The sample SD of the per-seed differences (what the data show: run-to-run spread plus each seed's item noise). */
  readonly perSeedDifferenceSd: number;
  /** The run-to-run SD sigma_a estimated with the item noise taken out (what `plan --between-seed-sd` takes). */
  readonly runToRunSd: number;
  /** @deprecated the same as perSeedDifferenceSd. */
  readonly betweenSeedSd: number;
  /** @deprecated the same as runToRunSd. */
  readonly seedComponentSd: number;
  /** The SD a per-seed mean has from the items and the run-by-item noise alone (sqrt(MS_error / n); per_seed sqrt(F)). */
  readonly noiseSd: number;
  /** The SD over items of an item's expected difference (0 with `per_seed` items: not separable from the noise there). */
  readonly itemComponentSd: number;
  /** 1 - alpha / k: the level of this interval. */
  readonly level: number;
  /** Null, or why the interval is not the method's t interval (docs/method.md section 5.8). */
  readonly fallback: SeedFallback | null;
}

/**
 * What replaced the method's plain t interval (docs/method.md section 5.8): `ms_error_floor`, MS_error used in place
 * of a smaller MS_seed (the per-seed differences agree more closely than the run-by-item noise allows); `whole_range`,
 * no variance could be estimated (`no_variation` or `one_item`), so the interval is the whole range of d and the
 * verdict inconclusive unless the margin lies outside that range.
 */
export interface SeedFallback {
  readonly rule: 'ms_error_floor' | 'whole_range';
  readonly reason: 'seed_spread_below_noise' | SeedDegeneracy;
  /** The reason in words. */
  readonly text: string;
}

const FALLBACK_TEXT: Readonly<Record<SeedFallback['reason'], string>> = {
  seed_spread_below_noise: "the per-seed differences agree more closely than the run-by-item noise allows (MS_seed < MS_error): MS_error is used in MS_seed's place",
  no_variation: 'no variance can be estimated (every seed gave the same differences and no run-by-item noise is left): no interval, the whole range of d',
  one_item: "one item per seed: the items' variance cannot be estimated, so seed_item_t gives no interval (the whole range of d); seed_t speaks for that one item only",
};

/** One criterion's seed-level interval, verdict and fallback. */
export function criterionDecision(
  c: DecisionCriterion,
  differences: Float64Array[],
  o: { alpha: number; k: number; method: SeedMethodName; itemSets: 'shared' | 'per_seed' },
): SeedCriterionDecision {
  const extremes = differenceExtremes(c);
  const iv =
    o.itemSets === 'per_seed'
      ? { ...seedMeansInterval({ differences, alpha: o.alpha, comparisons: o.k, extremes }), itemComponentSd: 0 }
      : seedInterval({ differences, alpha: o.alpha, comparisons: o.k, method: o.method, extremes });
  const reason = iv.degenerate ?? (iv.floored ? 'seed_spread_below_noise' : null);
  return {
    id: c.id,
    metric: c.metric,
    estimate: iv.estimate,
    lower: iv.lower,
    upper: iv.upper,
    margin: c.margin,
    verdict: criterionVerdict({ lower: iv.lower, upper: iv.upper, margin: c.margin }),
    halfWidth: iv.degenerate === null ? iv.halfWidth : (extremes[1] - extremes[0]) / 2,
    standardError: iv.degenerate === null ? iv.standardError : null,
    df: iv.df,
    perSeed: iv.perSeed,
    perSeedDifferenceSd: iv.perSeedDifferenceSd,
    runToRunSd: iv.runToRunSd,
    betweenSeedSd: iv.perSeedDifferenceSd,
    seedComponentSd: iv.runToRunSd,
    itemComponentSd: iv.itemComponentSd,
    noiseSd: iv.noiseSd,
    level: 1 - o.alpha / o.k,
    fallback: reason === null ? null : { rule: iv.degenerate === null ? 'ms_error_floor' : 'whole_range', reason, text: FALLBACK_TEXT[reason] },
  };
}

