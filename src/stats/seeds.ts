// The decision across training seeds (docs/method.md section 5.8): the expected difference over training runs and
// test items, from S seeds x n paired items.
import { RlAdvantagesError } from '../errors.js';
import { describe } from '../internal/validate.js';
import { decide, decisionJson, type Decision, type DecisionJson } from './decision.js';
import { parseDecisionRule, type DecisionCriterion, type DecisionRule } from './decision-rule.js';
import { criterionDifferences, pairItems, type IndexedItem, type PairedItem } from './items.js';
import type { DecisionMethodName } from './method-names.js';
import { criterionDecision, type SeedCriterionDecision, type SeedFallback } from './seed-criterion.js';
import { collapseRateNotRuledOut } from './seed-collapse.js';
import { outlyingSeeds } from './seed-outliers.js';
import { alignItems, checkReplicates, inReplicate } from './seed-replicates.js';
import { DEFAULT_SEED_METHOD, isSeedMethodName, SEED_METHOD_NAMES, type SeedMethodName } from './seed-method-names.js';
import { combineVerdicts, type Verdict } from './verdict.js';

export type { SeedCriterionDecision, SeedFallback } from './seed-criterion.js';

/** One training seed's evaluation: both arms trained with this seed, evaluated on the same items. */
export interface SeedReplicate {
  /** The training seed (an integer, distinct across replicates). */
  readonly seed: number;
  /** The treatment arm's per-item records, as {@link decide} reads them. */
  readonly treatment: readonly PairedItem[];
  /** The baseline arm's per-item records. */
  readonly baseline: readonly PairedItem[];
}

/** One seed's part of a seed-level decision. */
export interface SeedPart {
  readonly seed: number;
  /** The paired items of this seed (the same n for every seed). */
  readonly n: number;
  /** The first criterion's mean difference on this seed. */
  readonly estimate: number;
  /** The treatment arm's mean of the first criterion's metric (its accuracy for 0/1 outcomes). */
  readonly treatmentAccuracy: number;
  /** The baseline arm's mean of the first criterion's metric. */
  readonly baselineAccuracy: number;
  /** {@link decide}'s result for this seed alone, with the rule's own paired method (about this pair of checkpoints only). */
  readonly decision: Decision;
}

/** The result of {@link decideAcrossSeeds}; the top-level estimate, interval and margin are the first criterion's. */
export interface SeedDecision {
  /** The seed-level method the interval was made with. */
  readonly method: SeedMethodName;
  /** The rule's `seed_method` (or the default); differs from `method` only when overridden for exploration. */
  readonly specMethod: SeedMethodName;
  /** The rule's paired method, used for each seed's own decision. */
  readonly pairedMethod: DecisionMethodName;
  readonly alpha: number;
  /** k, the criteria; each interval is at alpha / k. */
  readonly comparisons: number;
  /** S, the seeds. */
  readonly seeds: number;
  /** n, the paired items of each seed. */
  readonly n: number;
  readonly estimate: number;
  readonly interval: readonly [number, number];
  readonly margin: number;
  /** Validated only if every criterion is, failed if any is. */
  readonly verdict: Verdict;
  /** Null when no variance could be estimated (`fallback.rule` `whole_range`). */
  readonly standardError: number | null;
  readonly df: number;
  /** The sample SD of the per-seed differences (first criterion). */
  readonly perSeedDifferenceSd: number;
  /** The run-to-run SD estimate (first criterion): what `plan --between-seed-sd` takes. */
  readonly runToRunSd: number;
  /** @deprecated perSeedDifferenceSd. */ readonly betweenSeedSd: number;
  /** @deprecated runToRunSd. */ readonly seedComponentSd: number;
  readonly itemComponentSd: number;
  /** `shared` (every seed on the same items, paired) or `per_seed` (each seed its own items). */
  readonly itemSets: 'shared' | 'per_seed';
  /** 1 - alpha / k: the level of each interval. */
  readonly level: number;
  /** The first criterion's fallback, when its interval is not the method's t interval. */
  readonly fallback: SeedFallback | null;
  /** The seeds whose first-criterion difference is an outlier among the seeds (leave-one-out t, 1% false alarms). */
  readonly outliers: readonly { seed: number; estimate: number; score: number; cutoff: number }[];
  /** 1 - alpha^(1/S): the per-run collapse rate S seeds cannot rule out at the rule's alpha (docs/method.md section 5.8). */
  readonly collapseRateNotRuledOut: number;
  readonly perSeed: readonly SeedPart[];
  readonly criteria: readonly SeedCriterionDecision[];
}

type Pairs = (readonly [IndexedItem, IndexedItem])[];

function armMean(pairs: Pairs, c: DecisionCriterion, arm: 'treatment' | 'baseline'): number {
  const only = { ...c, weights: arm === 'treatment' ? { treatment: 1, baseline: 0 } : { treatment: 0, baseline: 1 } };
  const y = criterionDifferences(pairs, only, false);
  let sum = 0;
  for (const v of y) sum += v;
  return sum / y.length;
}

function chooseMethod(rule: DecisionRule, method: unknown): { method: SeedMethodName; specMethod: SeedMethodName } {
  const specMethod = rule.seed_method ?? DEFAULT_SEED_METHOD;
  if (method === undefined) return { method: specMethod, specMethod };
  if (!isSeedMethodName(method)) {
    throw new RlAdvantagesError(`method must be one of ${SEED_METHOD_NAMES.join(', ')} (docs/method.md section 5.8), got ${describe(method)}`, { code: 'unknown_method', field: 'method' });
  }
  return { method, specMethod };
}

/**
 * Decides whether the treatment beats the baseline by more than the margin on average over training runs and test
 * items (docs/method.md section 5.8), from S >= 2 seeds, each with both arms' per-item records on the same n items.
 * For criterion c, seed s and item i, d_si = w_t y_t,si + w_b y_b,si; the estimate is the grand mean of d and the
 * interval at level 1 - alpha / k (Bonferroni over the k criteria) is the seed-level method's: `seed_item_t`
 * (default) estimate +- t_{S-1, alpha/(2k)} sqrt((MS_seed + max(0, MS_item - MS_error)) / (S n)) (seed_t's variance plus
 * the items' sampling variance), or `seed_t` estimate +- t_{S-1, alpha/(2k)} sd(per-seed means) / sqrt(S); clipped to the range of d. Verdicts as
 * {@link decide}'s: validated if lower > margin, failed if upper < margin, else inconclusive; overall validated only if
 * every criterion is, failed if any is. Each seed also gets {@link decide}'s decision with the rule's paired method.
 * MS_seed is floored at MS_error and a variance that cannot be estimated gives the whole range (`fallback` says which
 * and why); `itemSets: 'per_seed'` (or the rule's `seed_items`) decides seeds on their own items by a t on the per-seed
 * means; `outliers` flags a seed far from the others (leave-one-out t, 1% false alarms under normal runs).
 *
 * @param options.replicates - `[{ seed, treatment, baseline }]`: distinct integer seeds, each with both arms' items
 *   (`{ item_id, correct }`, `{ item_id, score }` or `{ item_id, metrics }`), every seed on the same item ids.
 * @param options.rule - the validated `decision_rule`; its `seed_method` names the method.
 * @param options.method - another seed-level method than the rule's, for exploration (`specMethod` keeps the rule's).
 * @throws {RlAdvantagesError} `too_few_seeds` (fewer than 2), `duplicate_seed`, `bad_seed`, `item_set_mismatch` (a seed
 *   evaluated on other items than replicates[0]), `unknown_field`, `unknown_method`, and every item error of
 *   {@link decide} (`missing_pair`, `duplicate_item`, `out_of_bounds`, ...) with the field `replicates[r].treatment` or
 *   `.baseline` and the seed in the message; {@link StudySpecError} for an invalid rule.
 * @example
 * ```ts
 * import { decideAcrossSeeds, parseDecisionRule } from 'rl-advantages/stats';
 * const rule = parseDecisionRule({
 *   method: 'paired_hoeffding', alpha: 0.05, seed_method: 'seed_t',
 *   criteria: [{ id: 'primary', metric: 'accuracy', bounds: [0, 1], margin: -0.05, weights: { treatment: 1, baseline: -1 } }],
 * });
 * const arm = (right: number[]) => [0, 1, 2, 3].map((i) => ({ item_id: i, correct: right.includes(i) }));
 * const replicates = [
 *   { seed: 0, treatment: arm([0, 1, 2]), baseline: arm([0, 1]) },
 *   { seed: 1, treatment: arm([0, 1]), baseline: arm([0, 1]) },
 *   { seed: 2, treatment: arm([0, 2]), baseline: arm([0]) },
 * ];
 * const d = decideAcrossSeeds({ replicates, rule });
 * console.log(d.estimate.toFixed(3), d.verdict, d.perSeed.map((p) => p.estimate)); // "0.167" "inconclusive" [0.25, 0, 0.25]
 * ```
 */
export function decideAcrossSeeds(options: {
  replicates: readonly SeedReplicate[];
  rule: DecisionRule;
  method?: SeedMethodName;
  itemSets?: 'shared' | 'per_seed';
}): SeedDecision {
  const rule = parseDecisionRule(options.rule);
  const { method, specMethod } = chooseMethod(rule, options.method);
  const itemSets = chooseItemSets(rule, options.itemSets);
  const reps = checkReplicates(options.replicates);
  const pairsOf = reps.map((rep, r) => inReplicate(r, rep.seed, () => pairItems(rep.treatment, rep.baseline)));
  const aligned = alignItems(reps, pairsOf, itemSets);
  const k = rule.criteria.length;
  const criteria = rule.criteria.map((c): SeedCriterionDecision => {
    const differences = aligned.map((pairs, r) => inReplicate(r, reps[r]?.seed as number, () => criterionDifferences(pairs, c, false)));
    return criterionDecision(c, differences, { alpha: rule.alpha, k, method, itemSets });
  });
  const primary = criteria[0] as SeedCriterionDecision;
  const c0 = rule.criteria[0] as DecisionCriterion;
  const perSeed = reps.map((rep, r): SeedPart => {
    const pairs = aligned[r] as Pairs;
    return {
      seed: rep.seed,
      n: pairs.length,
      estimate: primary.perSeed[r] as number,
      treatmentAccuracy: armMean(pairs, c0, 'treatment'),
      baselineAccuracy: armMean(pairs, c0, 'baseline'),
      decision: inReplicate(r, rep.seed, () => decide(rule, rep.treatment as PairedItem[], rep.baseline as PairedItem[])),
    };
  });
  return {
    method,
    specMethod,
    pairedMethod: rule.method,
    alpha: rule.alpha,
    comparisons: k,
    seeds: reps.length,
    n: Math.min(...aligned.map((p) => p.length)),
    estimate: primary.estimate,
    interval: [primary.lower, primary.upper],
    margin: primary.margin,
    verdict: combineVerdicts(criteria.map((c) => c.verdict)),
    standardError: primary.standardError,
    df: primary.df,
    perSeedDifferenceSd: primary.perSeedDifferenceSd,
    runToRunSd: primary.runToRunSd,
    betweenSeedSd: primary.perSeedDifferenceSd,
    seedComponentSd: primary.runToRunSd,
    itemComponentSd: primary.itemComponentSd,
    itemSets,
    level: primary.level,
    fallback: primary.fallback,
    outliers: outlyingSeeds(primary.perSeed, primary.noiseSd).map((o) => ({ seed: reps[o.index]?.seed as number, estimate: o.estimate, score: o.score, cutoff: o.cutoff })),
    collapseRateNotRuledOut: collapseRateNotRuledOut(reps.length, rule.alpha),
    perSeed,
    criteria,
  };
}

function chooseItemSets(rule: DecisionRule, itemSets: unknown): 'shared' | 'per_seed' {
  const value = itemSets ?? rule.seed_items ?? 'shared';
  if (value !== 'shared' && value !== 'per_seed') {
    throw new RlAdvantagesError(`itemSets must be "shared" or "per_seed", got ${describe(value)}`, { code: 'bad_type', field: 'itemSets' });
  }
  return value;
}

/** A seed-level decision's plain JSON form (snake_case), as `rl-adv decide --replicates --json` prints it and summary.json holds it. */
export interface SeedDecisionJson {
  method: string;
  /** Present only when `method` is not the rule's `seed_method`: the rule's. */
  spec_method?: string;
  note?: string;
  paired_method: string;
  alpha: number;
  seeds: number;
  n: number;
  estimate: number;
  interval: [number, number];
  margin: number;
  verdict: Verdict;
  /** Null when no variance could be estimated (`fallback.rule` `whole_range`), never 0. */
  standard_error: number | null;
  df: number;
  /** 1 - alpha / k: the level of each interval. */
  level: number;
  /** `shared` or `per_seed` (each seed its own items). */
  item_sets: 'shared' | 'per_seed';
  /** The sample SD of the per-seed differences: what the data show (run-to-run spread plus item noise). */
  per_seed_difference_sd: number;
  /** The run-to-run SD estimate, item noise taken out: what `rl-adv plan --between-seed-sd` takes (`plan --from-decision`). */
  run_to_run_sd: number;
  item_component_sd: number;
  /** Null, or what replaced the method's t interval and why (docs/method.md section 5.8). */
  fallback: { rule: SeedFallback['rule']; reason: SeedFallback['reason']; text: string } | null;
  /** Seeds whose difference is an outlier among the seeds (leave-one-out t over the others, 1% false alarms). */
  outliers: { seed: number; estimate: number; score: number; cutoff: number }[];
  /** 1 - alpha^(1/S): the per-run collapse rate S seeds cannot rule out (the verdict assumes no run collapsed). */
  collapse_rate_not_ruled_out: number;
  criteria: {
    id: string;
    metric: string;
    estimate: number;
    interval: [number, number];
    level: number;
    margin: number;
    verdict: Verdict;
    standard_error: number | null;
    df: number;
    per_seed_difference_sd: number;
    run_to_run_sd: number;
    fallback: SeedDecisionJson['fallback'];
  }[];
  per_seed: { seed: number; n: number; estimate: number; treatment_accuracy: number; baseline_accuracy: number; decision: DecisionJson }[];
}

/**
 * The plain JSON form of {@link decideAcrossSeeds}'s result: snake_case keys, `interval` as [lower, upper], each
 * seed's own decision as {@link decisionJson} gives it.
 *
 * @example
 * ```ts
 * console.log(JSON.stringify(seedDecisionJson(decideAcrossSeeds({ replicates, rule }))));
 * ```
 */
export function seedDecisionJson(d: SeedDecision): SeedDecisionJson {
  return {
    method: d.method,
    ...(d.method !== d.specMethod ? { spec_method: d.specMethod, note: `${d.method} is not the rule's seed_method (${d.specMethod}): for exploration only` } : {}),
    paired_method: d.pairedMethod,
    alpha: d.alpha,
    seeds: d.seeds,
    n: d.n,
    estimate: d.estimate,
    interval: [d.interval[0], d.interval[1]],
    margin: d.margin,
    verdict: d.verdict,
    standard_error: d.standardError,
    df: d.df,
    level: d.level,
    item_sets: d.itemSets,
    per_seed_difference_sd: d.perSeedDifferenceSd,
    run_to_run_sd: d.runToRunSd,
    item_component_sd: d.itemComponentSd,
    fallback: d.fallback === null ? null : { ...d.fallback },
    outliers: d.outliers.map((o) => ({ ...o })),
    collapse_rate_not_ruled_out: d.collapseRateNotRuledOut,
    criteria: d.criteria.map((c) => ({
      id: c.id,
      metric: c.metric,
      estimate: c.estimate,
      interval: [c.lower, c.upper],
      level: c.level,
      margin: c.margin,
      verdict: c.verdict,
      standard_error: c.standardError,
      df: c.df,
      per_seed_difference_sd: c.perSeedDifferenceSd,
      run_to_run_sd: c.runToRunSd,
      fallback: c.fallback === null ? null : { ...c.fallback },
    })),
    per_seed: d.perSeed.map((p) => ({
      seed: p.seed,
      n: p.n,
      estimate: p.estimate,
      treatment_accuracy: p.treatmentAccuracy,
      baseline_accuracy: p.baselineAccuracy,
      decision: decisionJson(p.decision),
    })),
  };
}

/**
 * Whether a decision's JSON is a decision across seeds ({@link seedDecisionJson}) rather than a paired one (`decisionJson`).
 *
 * @example
 * ```ts
 * isSeedDecisionJson(summary.decision); // true for a replicated study's summary.json
 * ```
 */
export function isSeedDecisionJson(d: DecisionJson | SeedDecisionJson): d is SeedDecisionJson {
  return 'per_seed' in d;
}
