// Phase 7b (docs/method.md sections 5 and 8): the paired decision of the treatment against the baseline, and what the
// design can conclude (its power at the discordance the eval observed, section 5.6).
import path from 'node:path';
import { decide, decisionJson } from '../../stats/decision.js';
import { planDecision, type DecisionPlan } from '../../stats/plan.js';
import { meanPairedAccuracy, observedDiscordance, studyDesignPower } from '../design-power.js';
import { readJsonl, writeJsonAtomic } from '../backends/files.js';
import type { EvalRow } from '../backends/types.js';
import type { StudyArm } from '../spec.js';
import type { StudySummary } from '../summary.js';
import type { PhaseContext, PhaseResult, StudyPhaseStep } from './context.js';
import { formatFigure } from '../../internal/figures.js';

function planJson(p: DecisionPlan): NonNullable<StudySummary['plan']> {
  return {
    n: p.n,
    alpha: p.alpha,
    criteria: p.criteria.map((c) => ({ id: c.id, half_width: c.halfWidth, validates_above: c.validatesAbove, fails_below: c.failsBelow })),
  };
}

async function run(ctx: PhaseContext): Promise<PhaseResult> {
  const { spec, summary, treatment, baseline } = ctx;
  const rows = (arm: StudyArm): EvalRow[] => readJsonl<EvalRow>(path.join(ctx.dir, 'eval', `${arm.name}.jsonl`));
  const treatmentRows = rows(treatment);
  const baselineRows = rows(baseline);
  const decision = decide(spec.decisionRule, treatmentRows, baselineRows);
  const plan = planDecision({ n: decision.n, alpha: spec.decisionRule.alpha, criteria: spec.decisionRule.criteria });
  summary.comparison = { treatment: treatment.name, baseline: baseline.name };
  summary.decision = decisionJson(decision);
  summary.plan = planJson(plan);
  summary.design_power = studyDesignPower(spec.decisionRule, decision.n, observedDiscordance(treatmentRows, baselineRows), meanPairedAccuracy(treatmentRows, baselineRows));
  writeJsonAtomic(path.join(ctx.dir, 'decision.json'), { comparison: summary.comparison, decision: summary.decision, plan: summary.plan });
  const c = decision.criteria[0];
  return {
    line: `${decision.verdict}${c ? ` (${c.id}: ${formatFigure(c.estimate)} in [${formatFigure(c.lower)}, ${formatFigure(c.upper)}], margin ${c.margin}, half-width ${formatFigure(c.halfWidth)})` : ''}`,
  };
}

/** The decision phase: decision.json. */
export const decisionPhase: StudyPhaseStep = { name: 'decision', run };
