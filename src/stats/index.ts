// rl-advantages/stats: the paired decision (docs/method.md section 5): methods, verdicts, the decision rule, plan and power.
export { parseDecisionRule, type DecisionRule, type DecisionCriterion } from './decision-rule.js';
export { StudySpecError, type SpecProblem } from '../internal/spec-problems.js';
export { decide, decisionJson, notSpecMethodNote, type DecisionJson, type Decision, type CriterionDecision } from './decision.js';
export { criterionVerdict, combineVerdicts, type Verdict } from './verdict.js';
export type { PairedItem } from './items.js';
export { planDecision, type DecisionPlan, type CriterionPlan } from './plan.js';
export { pairedHoeffding, hoeffdingHalfWidth, type HoeffdingInterval } from './hoeffding.js';
export { pairedEmpiricalBernstein, empiricalBernsteinHalfWidth } from './bernstein.js';
export { pairedExactBinomial, exactBinomialInterval, type DiscordantCounts } from './exact-binomial.js';
export { pairedExactUnconditional, exactUnconditionalInterval, type VerdictThresholds } from './exact-unconditional.js';
export { pairedTango, tangoInterval } from './tango.js';
export { pairedNewcombe, newcombeInterval } from './newcombe.js';
export type { PairedInterval, PairedIntervalOptions } from './interval.js';
export { decisionMethod, type DecisionMethod } from './methods.js';
export { DECISION_METHOD_NAMES, type DecisionMethodName } from './method-names.js';
export {
  verdictProbabilities,
  powerTable,
  observedThresholds,
  nForPower,
  POWER_DIFFERENCES,
  POWER_N_CAP,
  type PowerDesign,
  type PowerTableRow,
  type VerdictProbabilities,
} from './power.js';
export { designPower, ASSUMED_DISCORDANCE, type DesignPowerJson } from './design-power.js';
export {
  decideAcrossSeeds,
  seedDecisionJson,
  isSeedDecisionJson,
  type SeedDecision,
  type SeedDecisionJson,
  type SeedReplicate,
  type SeedPart,
  type SeedCriterionDecision,
  type SeedFallback,
} from './seeds.js';
export { seedInterval, type SeedInterval, type SeedDegeneracy } from './seed-interval.js';
export { seedMeansInterval, type SeedMeansInterval } from './seed-means-interval.js';
export { outlyingSeeds, OUTLIER_FALSE_ALARM, type OutlyingSeed } from './seed-outliers.js';
export { SEED_METHOD_NAMES, DEFAULT_SEED_METHOD, type SeedMethodName } from './seed-method-names.js';
export {
  seedDesignPower,
  seedPowerBySimulation,
  seedNForPower,
  seedsForPower,
  SEED_POWER_N_CAP,
  SEED_POWER_SEEDS_CAP,
  SEED_POWER_FRONTIER,
  type SeedDesign,
  type SeedPower,
  type SeedDesignPowerJson,
} from './seed-power.js';
export { collapseRateNotRuledOut, collapseWords } from './seed-collapse.js';
export { holmStepDown, bonferroni, type MultiplicityProcedure, type StepDecision } from './multiplicity.js';
