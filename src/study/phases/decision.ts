// Phase 7b (docs/method.md sections 5 and 8): the decision of the treatment against the baseline, the paired one of a
// single run or the decision across seeds of a replicated run (section 5.8) with each seed's own paired decision
// beside it; each arm's change from the starting policy (the no-arm-improved flag); and what the design can conclude.
import path from 'node:path';
import { decide, decisionJson } from '../../stats/decision.js';
import { planDecision, type DecisionPlan } from '../../stats/plan.js';
import { decideAcrossSeeds, seedDecisionJson } from '../../stats/seeds.js';
import { meanPairedAccuracy, observedDiscordance, studyDesignPower, studySeedDesignPower } from '../design-power.js';
import { readJsonl, writeJsonAtomic } from '../backends/files.js';
import type { EvalRow } from '../backends/types.js';
import type { ComparisonDesignPower, LearningSummary, StudySummary } from '../summary.js';
import type { PhaseContext, PhaseResult, StudyPhaseStep } from './context.js';
import { formatFigure } from '../../internal/figures.js';
import { replicateSeeds } from '../replicates.js';
import { comparisonRule } from '../comparisons.js';
import { decideComparisons, type ArmSeedRows } from '../decide-comparisons.js';
import { pathUnder } from '../../internal/path-parts.js';
import { addKernelArmGains } from '../kernel-arm-gains.js';

function planJson(p: DecisionPlan): NonNullable<StudySummary['plan']> {
  return {
    n: p.n,
    alpha: p.alpha,
    criteria: p.criteria.map((c) => ({ id: c.id, half_width: c.halfWidth, validates_above: c.validatesAbove, fails_below: c.failsBelow })),
  };
}

/** Each seed's eval rows of one arm, in the replicates' order. */
function armRows(ctx: PhaseContext, arm: string): EvalRow[][] {
  return (ctx.summary.replicates ?? []).map((rep) => readJsonl<EvalRow>(pathUnder(ctx.dir, rep.arms[arm]?.eval_file ?? `eval/${arm}.jsonl`)));
}

/** Each arm's change from the starting policy: its interval and whether its lower bound is above 0. `rowsOf`: each arm's per-seed eval rows, read once. */
function learning(ctx: PhaseContext, replicated: boolean, rowsOf: ReadonlyMap<string, EvalRow[][]>): LearningSummary {
  const start = readJsonl<EvalRow>(path.join(ctx.dir, 'eval', 'init.jsonl'));
  const seeds = (ctx.summary.replicates ?? []).map((r) => r.seed);
  const rule = ctx.spec.decisionRule;
  const arms: LearningSummary['arms'] = {};
  for (const arm of ctx.spec.arms) {
    const rows = rowsOf.get(arm.name) ?? [];
    let estimate: number;
    let interval: [number, number];
    if (replicated) {
      const d = decideAcrossSeeds({ replicates: rows.map((r, i) => ({ seed: seeds[i] as number, treatment: r, baseline: start })), rule });
      estimate = d.estimate;
      interval = [d.interval[0], d.interval[1]];
    } else {
      const c = decide(rule, rows[0] ?? [], start).criteria[0];
      estimate = c?.estimate ?? 0;
      interval = [c?.lower ?? 0, c?.upper ?? 0];
    }
    arms[arm.name] = { estimate, interval, improved: interval[0] > 0 };
  }
  const method = replicated ? (rule.seed_method ?? 'seed_item_t') : rule.method;
  return { method, arms, no_arm_improved: Object.values(arms).every((a) => !a.improved) };
}

/** The discordance over every seed's paired items. */
function pooledDiscordance(t: readonly EvalRow[][], b: readonly EvalRow[][]): number | undefined {
  let weighted = 0;
  let items = 0;
  t.forEach((rows, i) => {
    const d = observedDiscordance(rows, b[i] ?? []);
    if (d !== undefined) {
      weighted += d * rows.length;
      items += rows.length;
    }
  });
  return items > 0 ? weighted / items : undefined;
}

/** A spec with decision_rule.comparisons: every comparison under the multiplicity procedure (docs/method.md section 5.10). */
function runComparisons(ctx: PhaseContext, replicated: boolean, rowsOf: ReadonlyMap<string, EvalRow[][]>): PhaseResult {
  const { spec, summary } = ctx;
  const seeds = (summary.replicates ?? []).map((r) => r.seed);
  const { comparisons, multiplicity } = decideComparisons(spec, seeds, rowsOf as ArmSeedRows);
  summary.comparisons = comparisons;
  summary.multiplicity = multiplicity;
  if (summary.kernel_arms !== undefined) addKernelArmGains(summary.kernel_arms, comparisons);
  // What each comparison's design could conclude, at its Bonferroni level (a lower bound for Holm): one seed's paired
  // design and, with several seeds, the seed-level design over every seed's pairs. design_power and
  // seed_design_power keep the first's, as before.
  const alpha = spec.decisionRule.alpha / comparisons.length;
  summary.comparisons_design_power = (spec.comparisons ?? []).map((c): ComparisonDesignPower => {
    const t = rowsOf.get(c.treatment)?.[0] ?? [];
    const b = rowsOf.get(c.reference)?.[0] ?? [];
    const rule = comparisonRule(spec.decisionRule, c, alpha);
    return {
      id: c.id,
      treatment: c.treatment,
      reference: c.reference,
      alpha,
      design_power: studyDesignPower(rule, t.length, observedDiscordance(t, b), meanPairedAccuracy(t, b)),
      ...(replicated ? { seed_design_power: studySeedDesignPower(rule, seeds.length, t.length, pooledDiscordance(rowsOf.get(c.treatment) ?? [], rowsOf.get(c.reference) ?? [])) } : {}),
    };
  });
  const first = summary.comparisons_design_power[0];
  if (first !== undefined) {
    summary.design_power = first.design_power;
    if (replicated) summary.seed_design_power = first.seed_design_power ?? null;
  }
  summary.learning = learning(ctx, replicated, rowsOf);
  writeJsonAtomic(path.join(ctx.dir, 'decision.json'), { comparisons, multiplicity, learning: summary.learning });
  const over = replicated ? ` across ${seeds.length} seeds` : '';
  const parts = comparisons.map((c) => `${c.id} ${c.verdict} (${formatFigure(c.estimate)} in [${formatFigure(c.interval[0])}, ${formatFigure(c.interval[1])}], margin ${c.margin})`);
  const flag = summary.learning.no_arm_improved ? '; NO ARM IMPROVED on the starting policy' : '';
  return { line: `${multiplicity.procedure} over ${comparisons.length} comparisons${over}: ${parts.join('; ')}${flag}` };
}

async function run(ctx: PhaseContext): Promise<PhaseResult> {
  const { spec, summary, treatment, baseline } = ctx;
  const replicated = replicateSeeds(spec) !== null;
  // Every arm's eval files, read once for the decision and the changes from the start.
  const rowsOf = new Map(ctx.spec.arms.map((arm) => [arm.name, armRows(ctx, arm.name)] as const));
  if (spec.comparisons !== undefined) return runComparisons(ctx, replicated, rowsOf);
  const t = rowsOf.get(treatment.name) ?? [];
  const b = rowsOf.get(baseline.name) ?? [];
  const reps = summary.replicates ?? [];
  reps.forEach((rep, i) => {
    rep.difference = decisionJson(decide(spec.decisionRule, t[i] ?? [], b[i] ?? []));
  });
  summary.comparison = { treatment: treatment.name, baseline: baseline.name };
  let line: string;
  if (replicated) {
    const d = decideAcrossSeeds({ replicates: reps.map((rep, i) => ({ seed: rep.seed, treatment: t[i] ?? [], baseline: b[i] ?? [] })), rule: spec.decisionRule });
    summary.decision = seedDecisionJson(d);
    line =
      `${d.verdict} across ${d.seeds} seeds (${d.method}: ${formatFigure(d.estimate)} in [${formatFigure(d.interval[0])}, ${formatFigure(d.interval[1])}], margin ${d.margin}, half-width ${formatFigure((d.interval[1] - d.interval[0]) / 2)})` +
      (d.fallback === null ? '' : `; ${d.fallback.rule === 'whole_range' ? 'NO INTERVAL' : 'variance floor'}: ${d.fallback.reason}`) +
      d.outliers.map((o) => `; WARNING: seed ${o.seed} is an outlier (${formatFigure(o.estimate)})`).join('');
  } else {
    const decision = decide(spec.decisionRule, t[0] ?? [], b[0] ?? []);
    summary.decision = decisionJson(decision);
    const c = decision.criteria[0];
    line = `${decision.verdict}${c ? ` (${c.id}: ${formatFigure(c.estimate)} in [${formatFigure(c.lower)}, ${formatFigure(c.upper)}], margin ${c.margin}, half-width ${formatFigure(c.halfWidth)})` : ''}`;
  }
  // The per-seed design (one seed's n items): what each seed's paired decision could conclude.
  const n = (t[0] ?? []).length;
  summary.plan = planJson(planDecision({ n, alpha: spec.decisionRule.alpha, criteria: spec.decisionRule.criteria }));
  summary.design_power = studyDesignPower(spec.decisionRule, n, observedDiscordance(t[0] ?? [], b[0] ?? []), meanPairedAccuracy(t[0] ?? [], b[0] ?? []));
  // A replicated run's own design: the seed-level power at its S and n (design_power above is one seed's only).
  if (replicated) summary.seed_design_power = studySeedDesignPower(spec.decisionRule, reps.length, n, pooledDiscordance(t, b));
  summary.learning = learning(ctx, replicated, rowsOf);
  writeJsonAtomic(path.join(ctx.dir, 'decision.json'), { comparison: summary.comparison, decision: summary.decision, plan: summary.plan, learning: summary.learning });
  const flag = summary.learning.no_arm_improved ? '; NO ARM IMPROVED on the starting policy' : '';
  return { line: line + flag };
}

/** The decision phase: decision.json. */
export const decisionPhase: StudyPhaseStep = { name: 'decision', run };
