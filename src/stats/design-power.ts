// What a design can conclude: the power of a decision rule's criterion for 0/1 outcomes (docs/method.md section 5.6),
// shared by `rl-adv plan`, the study's summary and its report.
import { RlAdvantagesError } from '../errors.js';
import { parseDecisionRule, type DecisionRule } from './decision-rule.js';
import { isAccuracyDifference } from './criteria.js';
import { DECISION_METHOD_NAMES, type DecisionMethodName } from './method-names.js';
import { decisionMethod } from './methods.js';
import { nForPower, observedThresholds, powerTable, POWER_N_CAP, type PowerTableRow } from './power.js';
import { ASSUMED_CONTROL_ACCURACY } from './four-cell-power.js';

export { ASSUMED_CONTROL_ACCURACY };

/** The plain JSON of a design's power, as `plan --json` prints it and summary.json holds it. */
export interface DesignPowerJson {
  /** The criterion the power is for (the first that compares 0/1 outcomes: bounds [0, 1], weights (1, -1) or (-1, 1)). */
  criterion: string;
  margin: number;
  n: number;
  alpha: number;
  comparisons: number;
  /** D and where it came from: `given` (--discordance), `pilot` (--pilot), `observed` (the study's eval), `assumed` (0.2). */
  discordance: { value: number; source: 'given' | 'pilot' | 'observed' | 'assumed' };
  /**
   * p2, the control arm's expected accuracy (the arm with weight -1), which only paired_newcombe's power uses, and where
   * it came from: `given` (--control-accuracy), `pilot` or `observed` (the mean accuracy of the two arms: what each
   * has if they are equal), `assumed` (0.5).
   */
  control_accuracy: { value: number; source: 'given' | 'pilot' | 'observed' | 'assumed' };
  /** Per method, at m = round(nD) discordant pairs: the smallest observed difference that validates, the largest that fails. */
  thresholds: { method: DecisionMethodName; discordant: number; validates_at: number | null; fails_at: number | null }[];
  /** P(validated), P(failed) per method and true difference (-0.05..+0.05 by 0.01, those with |difference| <= D). */
  power: PowerTableRow[];
  /** Per method, the n for 80% power at a true difference of 0; null when not reached below n_cap (or never). */
  n_for_80_percent_power: Partial<Record<DecisionMethodName, number | null>>;
  /** The cap of the n search. */
  n_cap: number;
}

/** The discordance assumed when none is known (docs/method.md section 5.6). */
export const ASSUMED_DISCORDANCE = 0.2;

/**
 * The power of a decision rule's first 0/1 criterion at n paired items and discordance D, for each method: the
 * observed differences needed for each verdict, P(validated) and P(failed) at true differences -0.05..+0.05, and
 * the n for 80% power at a true difference of 0 (docs/method.md section 5.6). Returns null when no criterion
 * compares 0/1 outcomes (the trinomial model does not apply).
 *
 * @param options.rule - the decision rule (validated again).
 * @param options.n - paired items.
 * @param options.discordance - D in (0, 1] and its source.
 * @param options.controlAccuracy - p2 in [0, 1] and its source (default 0.5, assumed): only paired_newcombe's power
 *   depends on it; its power-table rows at differences no 2x2 table has with (D, p2) are left out.
 * @param options.methods - the methods (default all).
 * @throws {RlAdvantagesError} as {@link verdictProbabilities}; `unknown_method`; `bad_control_accuracy` when
 *   paired_newcombe is asked and no 2x2 table has (D, p2) at a true difference of 0 (p2 outside [D/2, 1 - D/2]).
 * @example
 * ```ts
 * import { designPower } from 'rl-advantages/stats';
 * import { loadStudySpec } from 'rl-advantages/study';
 * const rule = loadStudySpec(specJson).decisionRule;
 * const p = designPower({ rule, n: 1319, discordance: { value: 0.2, source: 'assumed' }, methods: ['paired_hoeffding'] });
 * console.log(p?.power.find((r) => r.difference === 0)?.p_validated.toFixed(3)); // "0.023"
 * ```
 */
export function designPower(options: {
  rule: DecisionRule;
  n: number;
  discordance: DesignPowerJson['discordance'];
  controlAccuracy?: DesignPowerJson['control_accuracy'];
  methods?: readonly string[];
}): DesignPowerJson | null {
  const rule = parseDecisionRule(options.rule, '');
  const methods = (options.methods ?? DECISION_METHOD_NAMES).map((m) => decisionMethod(m).name);
  if (methods.length === 0) throw new RlAdvantagesError('methods must name at least one method', { code: 'empty', field: 'methods' });
  const criterion = rule.criteria.find(isAccuracyDifference);
  if (criterion === undefined) return null;
  const k = rule.criteria.length;
  const controlAccuracy = options.controlAccuracy ?? { value: ASSUMED_CONTROL_ACCURACY, source: 'assumed' as const };
  const design = {
    n: options.n,
    discordance: options.discordance.value,
    alpha: rule.alpha,
    comparisons: k,
    margin: criterion.margin,
    controlAccuracy: controlAccuracy.value,
  };
  const n80: Partial<Record<DecisionMethodName, number | null>> = {};
  for (const method of methods) n80[method] = nForPower({ ...design, method });
  return {
    criterion: criterion.id,
    margin: criterion.margin,
    n: options.n,
    alpha: rule.alpha,
    comparisons: k,
    discordance: options.discordance,
    control_accuracy: controlAccuracy,
    thresholds: methods.map((method) => {
      const t = observedThresholds({ ...design, method });
      return { method, discordant: t.discordant, validates_at: t.validatesAt, fails_at: t.failsAt };
    }),
    power: powerTable(design, methods),
    n_for_80_percent_power: n80,
    n_cap: POWER_N_CAP,
  };
}
