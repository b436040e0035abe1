// The decision of a study with `decision_rule.comparisons` (docs/method.md section 5.10): every comparison decided
// across seeds by the seed method of section 5.8 under Holm's step-down, and on each seed by the rule's paired
// method under Bonferroni; a single-seed run decides each comparison with the paired method under Bonferroni.
import { decide, type Decision } from '../stats/decision.js';
import { bonferroni, holmStepDown, type MultiplicityProcedure } from '../stats/multiplicity.js';
import { collapseRateNotRuledOut } from '../stats/seed-collapse.js';
import { decideAcrossSeeds, type SeedDecision } from '../stats/seeds.js';
import type { PairedItem } from '../stats/items.js';
import type { Verdict } from '../stats/verdict.js';
import { comparisonRule, type ComparisonKind, type StudyComparison } from './comparisons.js';
import type { StudySpec } from './spec.js';

/** One seed's paired decision of a comparison (about that seed's two checkpoints only). */
export interface ComparisonSeedJson {
  seed: number;
  n: number;
  estimate: number;
  interval: [number, number];
  verdict: Verdict;
  treatment_accuracy: number;
  reference_accuracy: number;
  /** The rule's paired method, at two-sided level `alpha` (the family's alpha / K: Bonferroni). */
  method: string;
  alpha: number;
}

/** One comparison in summary.json's `comparisons`. */
export interface ComparisonJson {
  id: string;
  treatment: string;
  reference: string;
  kind: ComparisonKind;
  margin: number;
  metric: string;
  estimate: number;
  interval: [number, number];
  verdict: Verdict;
  /** The interval's method: the seed method (several seeds) or the paired method (one seed). */
  method: string;
  /** The two-sided level of the interval the verdict comes from (alpha / m in Holm's round, alpha / K by Bonferroni). */
  alpha: number;
  /** Holm's round that decided it (1 for Bonferroni). */
  round: number;
  seeds: number;
  n: number;
  /** The interval's level: 1 - alpha (alpha already divided by the procedure). */
  level: number;
  /** Several seeds: the standard error and degrees of freedom of the seed-level interval (standard error null when no variance could be estimated). */
  standard_error?: number | null;
  df?: number;
  /** Several seeds: the SD of the per-seed differences (what the data show, item noise included). */
  per_seed_difference_sd?: number;
  /** Several seeds: the run-to-run SD estimate, item noise taken out (what `plan --between-seed-sd` takes). */
  run_to_run_sd?: number;
  /** Several seeds: the SD over items of an item's expected difference (what `plan --item-sd` takes; `plan --from-decision`). */
  item_component_sd?: number;
  /** Several seeds: the seed-level fallback when no t interval could be made (docs/method.md section 5.8), else null. */
  fallback?: { rule: string; reason: string; text: string } | null;
  /** Several seeds: seeds flagged as outlying (leave-one-out t, docs/method.md section 5.8). */
  outliers?: { seed: number; estimate: number; score: number; cutoff: number }[];
  /** Several seeds: 1 - alpha^(1/S), the per-run collapse rate S seeds cannot rule out (docs/method.md section 5.8). */
  collapse_rate_not_ruled_out?: number;
  per_seed: ComparisonSeedJson[];
}

/** summary.json's `multiplicity`: the procedure over the comparisons and what it controls. */
export interface MultiplicityJson {
  procedure: MultiplicityProcedure;
  alpha: number;
  comparisons: number;
  /** Each seed's own paired decisions: always Bonferroni at alpha / K. */
  per_seed_procedure: 'bonferroni';
  about: string;
}

/** Each arm's eval rows, one array per seed in the replicates' order. */
export type ArmSeedRows = ReadonlyMap<string, readonly (readonly PairedItem[])[]>;

function meanCorrect(rows: readonly PairedItem[]): number {
  return rows.filter((r) => r.correct === true).length / rows.length;
}

function seedPart(seed: number, d: Decision, t: readonly PairedItem[], r: readonly PairedItem[]): ComparisonSeedJson {
  const c = d.criteria[0];
  return {
    seed,
    n: d.n,
    estimate: c?.estimate ?? 0,
    interval: [c?.lower ?? 0, c?.upper ?? 0],
    verdict: d.verdict,
    treatment_accuracy: meanCorrect(t),
    reference_accuracy: meanCorrect(r),
    method: d.method,
    alpha: d.alpha,
  };
}

/**
 * Decides every comparison of a spec with `decision_rule.comparisons` (docs/method.md section 5.10).
 *
 * @param spec - the spec (its `comparisons` and `decisionRule`).
 * @param seeds - the seeds in the replicates' order (one entry for a single run).
 * @param rowsOf - each arm's eval rows per seed.
 * @returns the comparisons in the spec's order and the procedure.
 * @throws {RlAdvantagesError} what `decideAcrossSeeds` and `decide` throw for unpaired or mismatched items.
 * @example
 * ```ts
 * const { comparisons, multiplicity } = decideComparisons(spec, [0, 1, 2], rowsOf);
 * ```
 */
export function decideComparisons(spec: StudySpec, seeds: readonly number[], rowsOf: ArmSeedRows): { comparisons: ComparisonJson[]; multiplicity: MultiplicityJson } {
  const list: readonly StudyComparison[] = spec.comparisons ?? [];
  const rule = spec.decisionRule;
  const K = list.length;
  const rows = (arm: string, i: number): readonly PairedItem[] => rowsOf.get(arm)?.[i] ?? [];
  const perSeed = (c: StudyComparison): ComparisonSeedJson[] =>
    seeds.map((seed, i) => seedPart(seed, decide(comparisonRule(rule, c, rule.alpha / K), rows(c.treatment, i), rows(c.reference, i)), rows(c.treatment, i), rows(c.reference, i)));
  const replicated = seeds.length >= 2;
  let out: ComparisonJson[];
  if (replicated) {
    const decideAt = (i: number, alpha: number): SeedDecision => {
      const c = list[i] as StudyComparison;
      return decideAcrossSeeds({ replicates: seeds.map((seed, s) => ({ seed, treatment: rows(c.treatment, s), baseline: rows(c.reference, s) })), rule: comparisonRule(rule, c, alpha) });
    };
    out = holmStepDown(K, rule.alpha, decideAt).map(({ decision: d, alpha, round }, i) => {
      const c = list[i] as StudyComparison;
      return { ...head(c), estimate: d.estimate, interval: [d.interval[0], d.interval[1]], verdict: d.verdict, method: d.method, alpha, level: d.level, round, seeds: d.seeds, n: d.n, standard_error: d.standardError, df: d.df,
        per_seed_difference_sd: d.perSeedDifferenceSd, run_to_run_sd: d.runToRunSd, item_component_sd: d.itemComponentSd, fallback: d.fallback === null ? null : { ...d.fallback }, outliers: d.outliers.map((o) => ({ ...o })),
        collapse_rate_not_ruled_out: collapseRateNotRuledOut(d.seeds, rule.alpha), per_seed: perSeed(c) };
    });
  } else {
    const decideAt = (i: number, alpha: number): Decision => {
      const c = list[i] as StudyComparison;
      return decide(comparisonRule(rule, c, alpha), rows(c.treatment, 0), rows(c.reference, 0));
    };
    out = bonferroni(K, rule.alpha, decideAt).map(({ decision: d, alpha, round }, i) => {
      const c = list[i] as StudyComparison;
      const x = d.criteria[0];
      return { ...head(c), estimate: x?.estimate ?? 0, interval: [x?.lower ?? 0, x?.upper ?? 0], verdict: d.verdict, method: d.method, alpha, level: 1 - alpha, round, seeds: 1, n: d.n, per_seed: perSeed(c) };
    });
  }
  return { comparisons: out, multiplicity: multiplicityJson(replicated ? 'holm' : 'bonferroni', rule.alpha, K) };
}

function head(c: StudyComparison): Pick<ComparisonJson, 'id' | 'treatment' | 'reference' | 'kind' | 'margin' | 'metric'> {
  return { id: c.id, treatment: c.treatment, reference: c.reference, kind: c.kind, margin: c.margin, metric: c.metric };
}

function multiplicityJson(procedure: MultiplicityProcedure, alpha: number, K: number): MultiplicityJson {
  const about =
    procedure === 'holm'
      ? `Holm's step-down over the ${K} comparisons at family-wise alpha ${alpha} (docs/method.md section 5.10): round r decides the m comparisons still open with intervals at 1 - alpha/m; each seed's paired decision at alpha/${K} (Bonferroni)`
      : `Bonferroni over the ${K} comparisons at family-wise alpha ${alpha} (docs/method.md section 5.10): each interval at 1 - alpha/${K}`;
  return { procedure, alpha, comparisons: K, per_seed_procedure: 'bonferroni', about };
}
