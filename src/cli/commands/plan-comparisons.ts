// rl-adv plan --seeds S on a spec with decision_rule.comparisons: each comparison's power across seeds under the
// multiplicity correction (docs/method.md section 5.10), and the seeds and items it needs.
import { InvalidArgumentError } from 'commander';
import type { DecisionRule } from '../../stats/decision-rule.js';
import type { SeedDesignPowerJson } from '../../stats/seed-power.js';
import { comparisonRule, type StudyComparison } from '../../study/comparisons.js';
import { CliUsageError } from '../core.js';
import { num, signed, table } from '../format.js';
import { seedPlan, type SeedPlanOptions } from './plan-seeds.js';

/** One comparison's planned power. */
export interface ComparisonPlanJson {
  id: string;
  treatment: string;
  reference: string;
  kind: string;
  margin: number;
  effect: number;
  /** The run-to-run SD this comparison is planned at (--between-seed-sd, or its own from a K-arm --from-decision). */
  seed_sd: number;
  /** The item SD this comparison is planned at. */
  item_sd: number;
  /** The two-sided level each interval is planned at: alpha / K (Bonferroni; Holm's first round). */
  alpha: number;
  p_validated: number;
  p_failed: number;
  mc_error: { p_validated: number; p_failed: number };
  n_for_80_percent_power: number | null;
  seeds_for_80_percent_power: number | null;
}

/** `plan --seeds S --json` on a spec with comparisons. */
export interface ComparisonsPlanJson {
  procedure: 'holm';
  planned_at: 'bonferroni';
  about: string;
  alpha: number;
  seeds: number;
  n: number;
  method: string;
  seed_sd: number;
  item_sd: number;
  discordance: SeedDesignPowerJson['discordance'];
  comparisons: ComparisonPlanJson[];
}

/** Parser for `--comparison-effect ID=D` (repeatable): the true difference of one comparison. */
export function comparisonEffectOption(value: string, previous: Record<string, number> = {}): Record<string, number> {
  const at = value.indexOf('=');
  const id = value.slice(0, at).trim();
  const d = Number(value.slice(at + 1));
  if (at <= 0 || id === '' || value.slice(at + 1).trim() === '' || !Number.isFinite(d) || d < -1 || d > 1) {
    throw new InvalidArgumentError('must be ID=D, a comparison id of the spec and a true difference in [-1, 1].');
  }
  return { ...previous, [id]: d };
}

/**
 * Each comparison's seed-level power at its Bonferroni level alpha / K. Holm's step-down (the study's procedure)
 * decides each comparison at alpha / K or a larger level, so its power is at least this (docs/method.md section 5.10).
 *
 * @throws {CliUsageError} for an effect naming no comparison, and what `seedPlan` throws.
 */
export function comparisonsPlan(
  o: SeedPlanOptions & { rule: DecisionRule; comparisons: readonly StudyComparison[]; n: number; discordance: SeedDesignPowerJson['discordance']; controlAccuracy: SeedDesignPowerJson['control_accuracy']; comparisonEffect?: Record<string, number> },
): ComparisonsPlanJson {
  const K = o.comparisons.length;
  for (const id of Object.keys(o.comparisonEffect ?? {})) {
    if (!o.comparisons.some((c) => c.id === id)) throw new CliUsageError(`--comparison-effect ${id}: no comparison of decision_rule.comparisons has that id (${o.comparisons.map((c) => c.id).join(', ')})`);
  }
  const fromDecision = o.comparisonSd;
  if (fromDecision !== undefined) {
    const missing = o.comparisons.filter((c) => fromDecision[c.id] === undefined).map((c) => c.id);
    if (missing.length > 0) {
      throw new CliUsageError(`--from-decision: the decision has no comparison ${missing.map((id) => `"${id}"`).join(', ')} of the spec (it has ${Object.keys(fromDecision).join(', ')}): give the spec the decision was made with`);
    }
  }
  let first: SeedDesignPowerJson | undefined;
  const rows = o.comparisons.map((c): ComparisonPlanJson => {
    const effect = o.comparisonEffect?.[c.id] ?? o.effect ?? 0;
    // From a K-arm decision each comparison is planned at its own run-to-run SD (and item SD unless --item-sd is given).
    const own = fromDecision?.[c.id];
    const sds = own === undefined ? {} : { betweenSeedSd: own.seedSd, itemSd: o.itemSd ?? own.itemSd };
    const p = seedPlan({ ...o, ...sds, effect, rule: comparisonRule(o.rule, c, o.rule.alpha / K) }) as SeedDesignPowerJson;
    first ??= p;
    const { id, treatment, reference, kind, margin } = c;
    return { id, treatment, reference, kind, margin, effect, seed_sd: p.seed_sd, item_sd: p.item_sd, alpha: o.rule.alpha / K, p_validated: p.p_validated, p_failed: p.p_failed, mc_error: p.mc_error, n_for_80_percent_power: p.n_for_80_percent_power, seeds_for_80_percent_power: p.seeds_for_80_percent_power };
  });
  const f = first as SeedDesignPowerJson;
  return {
    procedure: 'holm',
    planned_at: 'bonferroni',
    about: `each comparison planned at alpha/${K} (Bonferroni, Holm's first round); Holm decides each at alpha/${K} or a larger level, so its power is at least the figure`,
    alpha: o.rule.alpha,
    seeds: f.seeds,
    n: f.n,
    method: f.method,
    seed_sd: f.seed_sd,
    item_sd: f.item_sd,
    discordance: f.discordance,
    comparisons: rows,
  };
}

/** The readable form. */
export function comparisonsPlanText(p: ComparisonsPlanJson): string {
  const pm = (x: number, e: number): string => `${x.toFixed(4)} ± ${e.toFixed(4)}`;
  const rows = p.comparisons.map((c) => [
    c.id,
    `${c.treatment} - ${c.reference}`,
    c.kind,
    signed(c.margin),
    signed(c.effect),
    num(c.seed_sd),
    pm(c.p_validated, c.mc_error.p_validated),
    pm(c.p_failed, c.mc_error.p_failed),
    c.n_for_80_percent_power === null ? 'not below 100000' : String(c.n_for_80_percent_power),
    c.seeds_for_80_percent_power === null ? 'not below 50' : String(c.seeds_for_80_percent_power),
  ]);
  return (
    `power of ${p.comparisons.length} comparisons across S = ${p.seeds} seeds x n = ${p.n} items (${p.method}), family-wise alpha ${p.alpha} by Holm's step-down,\n` +
    `each planned at alpha/${p.comparisons.length} = ${num(p.alpha / p.comparisons.length)} (Bonferroni: a lower bound of its power under Holm); ` +
    (p.comparisons.every((c) => c.seed_sd === p.seed_sd && c.item_sd === p.item_sd) ? `between-seed SD ${num(p.seed_sd)}, item SD ${num(p.item_sd)}, ` : "each comparison's own between-seed SD (the decision's run_to_run_sd) and item SD, ") +
    `discordance D = ${num(p.discordance.value)} (${p.discordance.source}); by simulation of the normal crossed model (docs/method.md sections 5.9-5.10):\n\n` +
    table(['comparison', 'difference', 'kind', 'margin', 'true difference', 'between-seed SD', 'P(validated)', 'P(failed)', `n for 80% at ${p.seeds} seeds`, `seeds for 80% at ${p.n} items`], rows)
  );
}
