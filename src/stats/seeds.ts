// The decision across training seeds (docs/method.md section 5.8): the expected difference over training runs and
// test items, from S seeds x n paired items.
import { RlAdvantagesError } from '../errors.js';
import { describe } from '../internal/validate.js';
import { differenceExtremes } from './criteria.js';
import { decide, decisionJson, type Decision, type DecisionJson } from './decision.js';
import { parseDecisionRule, type DecisionCriterion, type DecisionRule } from './decision-rule.js';
import { criterionDifferences, pairItems, type IndexedItem, type PairedItem } from './items.js';
import type { DecisionMethodName } from './method-names.js';
import { seedInterval } from './seed-interval.js';
import { DEFAULT_SEED_METHOD, isSeedMethodName, SEED_METHOD_NAMES, type SeedMethodName } from './seed-method-names.js';
import { combineVerdicts, criterionVerdict, type Verdict } from './verdict.js';

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
  readonly standardError: number;
  readonly df: number;
  /** The per-seed mean differences, in replicate order. */
  readonly perSeed: readonly number[];
  readonly betweenSeedSd: number;
  readonly seedComponentSd: number;
  readonly itemComponentSd: number;
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
  readonly standardError: number;
  readonly df: number;
  /** The SD of the per-seed differences (first criterion). */
  readonly betweenSeedSd: number;
  readonly seedComponentSd: number;
  readonly itemComponentSd: number;
  readonly perSeed: readonly SeedPart[];
  readonly criteria: readonly SeedCriterionDecision[];
}

type Pairs = (readonly [IndexedItem, IndexedItem])[];

function at(r: number, seed: unknown): string {
  return `replicates[${r}]${typeof seed === 'number' ? ` (seed ${seed})` : ''}`;
}

/** Rethrows an item error of one replicate with the replicate, its seed and the side in the field. */
function inReplicate<T>(r: number, seed: number, f: () => T): T {
  try {
    return f();
  } catch (error) {
    if (!(error instanceof RlAdvantagesError) || error.code === 'invalid_spec') throw error;
    throw new RlAdvantagesError(`${at(r, seed)}: ${error.message}`, {
      code: error.code,
      field: `replicates[${r}]${error.field === undefined ? '' : `.${error.field}`}`,
      ...(error.index === undefined ? {} : { index: error.index }),
    });
  }
}

function checkReplicates(value: unknown): { seed: number; treatment: unknown; baseline: unknown }[] {
  if (!Array.isArray(value)) {
    throw new RlAdvantagesError(`replicates must be an array of { seed, treatment, baseline }, got ${describe(value)}`, { code: 'bad_type', field: 'replicates' });
  }
  if (value.length < 2) {
    throw new RlAdvantagesError(
      `replicates must hold at least 2 seeds (a seed-level interval needs the spread between seeds), got ${value.length}${value.length === 1 ? ` (seed ${describe((value[0] as { seed?: unknown } | null)?.seed)})` : ''}`,
      { code: 'too_few_seeds', field: 'replicates' },
    );
  }
  const seen = new Map<number, number>();
  return value.map((rep: unknown, r) => {
    if (typeof rep !== 'object' || rep === null || Array.isArray(rep)) {
      throw new RlAdvantagesError(`replicates[${r}] must be an object { seed, treatment, baseline }, got ${describe(rep)}`, { code: 'bad_item', field: 'replicates', index: r });
    }
    const o = rep as Record<string, unknown>;
    const unknown = Object.keys(o).filter((k) => !['seed', 'treatment', 'baseline'].includes(k));
    if (unknown.length > 0) {
      throw new RlAdvantagesError(`replicates[${r}] has unknown field(s) ${unknown.join(', ')}: a replicate is { seed, treatment, baseline }`, { code: 'unknown_field', field: `replicates[${r}].${unknown[0] as string}` });
    }
    if (typeof o.seed !== 'number' || !Number.isSafeInteger(o.seed)) {
      throw new RlAdvantagesError(`replicates[${r}].seed must be an integer, got ${describe(o.seed)}`, { code: 'bad_seed', field: `replicates[${r}].seed` });
    }
    const first = seen.get(o.seed);
    if (first !== undefined) {
      throw new RlAdvantagesError(`${at(r, o.seed)} repeats the seed of replicates[${first}]; each seed must appear once`, { code: 'duplicate_seed', field: `replicates[${r}].seed` });
    }
    seen.set(o.seed, r);
    return { seed: o.seed, treatment: o.treatment, baseline: o.baseline };
  });
}

/** Every replicate's pairs in the first replicate's item order; refuses a replicate with another item set. */
function alignItems(reps: readonly { seed: number }[], pairsOf: readonly Pairs[]): Pairs[] {
  const first = pairsOf[0] as Pairs;
  const order = first.map(([t]) => t.id);
  return pairsOf.map((pairs, r) => {
    if (r === 0) return pairs;
    const byId = new Map(pairs.map((p) => [p[0].id, p] as const));
    const missing = order.filter((id) => !byId.has(id));
    const firstIds = new Set(order);
    const extra = pairs.filter(([t]) => !firstIds.has(t.id)).map(([t]) => t.id);
    if (missing.length > 0 || extra.length > 0) {
      const show = (ids: string[]): string => ids.slice(0, 5).map((id) => JSON.stringify(id)).join(', ') + (ids.length > 5 ? ` and ${ids.length - 5} more` : '');
      const parts = [
        ...(missing.length > 0 ? [`lacks ${missing.length} item(s) of replicates[0] (seed ${(reps[0] as { seed: number }).seed}): ${show(missing)}`] : []),
        ...(extra.length > 0 ? [`has ${extra.length} item(s) replicates[0] lacks: ${show(extra)}`] : []),
      ];
      throw new RlAdvantagesError(`${at(r, (reps[r] as { seed: number }).seed)} ${parts.join('; ')}: every seed must be evaluated on the same items`, {
        code: 'item_set_mismatch',
        field: `replicates[${r}].treatment`,
      });
    }
    return order.map((id) => byId.get(id) as Pairs[number]);
  });
}

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
export function decideAcrossSeeds(options: { replicates: readonly SeedReplicate[]; rule: DecisionRule; method?: SeedMethodName }): SeedDecision {
  const rule = parseDecisionRule(options.rule);
  const { method, specMethod } = chooseMethod(rule, options.method);
  const reps = checkReplicates(options.replicates);
  const pairsOf = reps.map((rep, r) => inReplicate(r, rep.seed, () => pairItems(rep.treatment, rep.baseline)));
  const aligned = alignItems(reps, pairsOf);
  const k = rule.criteria.length;
  const criteria = rule.criteria.map((c): SeedCriterionDecision => {
    const differences = aligned.map((pairs, r) => inReplicate(r, reps[r]?.seed as number, () => criterionDifferences(pairs, c, false)));
    const iv = seedInterval({ differences, alpha: rule.alpha, comparisons: k, method, extremes: differenceExtremes(c) });
    const verdict = criterionVerdict({ lower: iv.lower, upper: iv.upper, margin: c.margin });
    return {
      id: c.id,
      metric: c.metric,
      estimate: iv.estimate,
      lower: iv.lower,
      upper: iv.upper,
      margin: c.margin,
      verdict,
      halfWidth: iv.halfWidth,
      standardError: iv.standardError,
      df: iv.df,
      perSeed: iv.perSeed,
      betweenSeedSd: iv.betweenSeedSd,
      seedComponentSd: iv.seedComponentSd,
      itemComponentSd: iv.itemComponentSd,
    };
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
    n: (aligned[0] as Pairs).length,
    estimate: primary.estimate,
    interval: [primary.lower, primary.upper],
    margin: primary.margin,
    verdict: combineVerdicts(criteria.map((c) => c.verdict)),
    standardError: primary.standardError,
    df: primary.df,
    betweenSeedSd: primary.betweenSeedSd,
    seedComponentSd: primary.seedComponentSd,
    itemComponentSd: primary.itemComponentSd,
    perSeed,
    criteria,
  };
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
  standard_error: number;
  df: number;
  between_seed_sd: number;
  seed_component_sd: number;
  item_component_sd: number;
  criteria: { id: string; metric: string; estimate: number; interval: [number, number]; margin: number; verdict: Verdict; standard_error: number; df: number; between_seed_sd: number }[];
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
    between_seed_sd: d.betweenSeedSd,
    seed_component_sd: d.seedComponentSd,
    item_component_sd: d.itemComponentSd,
    criteria: d.criteria.map((c) => ({
      id: c.id,
      metric: c.metric,
      estimate: c.estimate,
      interval: [c.lower, c.upper],
      margin: c.margin,
      verdict: c.verdict,
      standard_error: c.standardError,
      df: c.df,
      between_seed_sd: c.betweenSeedSd,
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
