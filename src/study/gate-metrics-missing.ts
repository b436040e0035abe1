// Why a gate metric is missing: the condition of gateMetrics (docs/method.md section 9) that left it out,
// in words, so a failed gate check says what to give rather than only "missing".
import type { BeffCalibration } from '../calibration/beff.js';
import { GATE_METRIC_NAMES, gateArms, PILOT_BASELINE_STEPS, type AdvantageLogRow, type GateMetricName, type GateMetrics } from './gate-metrics.js';
import type { StudyArm } from './spec.js';

/**
 * For every gate metric absent from `metrics` (what {@link gateMetrics} returned for the same input), the
 * reason it could not be computed, e.g. `no calibration given` or
 * `fewer than 3 pilot steps of arm "gs1_tfidf_g1" (2 logged)`.
 *
 * @param input - the input given to {@link gateMetrics}, already accepted by it.
 * @param metrics - its result.
 * @returns reasons keyed by the missing metric's name (no key for a metric that is present).
 * @throws `RlAdvantagesError` (code `ambiguous_arm`) as {@link gateMetrics} does.
 * @example
 * ```ts
 * const input = { calibration: null, pilotLogs: {}, arms: spec.arms };
 * missingGateMetricReasons(input, gateMetrics(input)).offline_beff_ratio_tfidf_vs_loo_mean; // "no calibration given"
 * ```
 */
export function missingGateMetricReasons(
  input: {
    readonly calibration?: Pick<BeffCalibration, 'reference' | 'sigmaEps2' | 'estimators'> | null;
    readonly pilotLogs?: Readonly<Record<string, readonly AdvantageLogRow[] | undefined>> | null;
    readonly arms: readonly StudyArm[];
  },
  metrics: GateMetrics,
): Partial<Record<GateMetricName, string>> {
  const { gs1, grpo } = gateArms(input.arms);
  const steps = (arm: StudyArm): number => input.pilotLogs?.[arm.name]?.length ?? 0;
  const noGs1 = 'the spec has no GS1 arm (an arm whose advantage is a kernel estimator)';
  const noGrpo = 'the spec has no GRPO arm (an arm whose advantage is group_mean)';
  const noSteps = (arm: StudyArm): string => `no pilot steps of arm ${JSON.stringify(arm.name)} in the logs`;
  const gs1Steps = (): string => (gs1 === undefined ? noGs1 : noSteps(gs1));

  const reasons: Partial<Record<GateMetricName, string>> = {};
  const why: Record<GateMetricName, () => string> = {
    offline_beff_ratio_tfidf_vs_loo_mean: () => {
      const c = input.calibration;
      if (c === null || c === undefined) return 'no calibration given';
      if (gs1 === undefined) return noGs1;
      const scored = Object.keys(c.estimators ?? {});
      if (!scored.includes(gs1.advantage)) {
        return `the calibration has no figures for ${gs1.advantage}, the GS1 arm's estimator (it scored ${scored.join(', ') || 'none'})`;
      }
      return `the calibration's reference is ${c.reference} and it has no loo_batch_mean figures to compare with`;
    },
    pilot_mean_abs_gs1_minus_batchmean_baseline: () =>
      gs1 === undefined ? noGs1 : `fewer than ${PILOT_BASELINE_STEPS} pilot steps of arm ${JSON.stringify(gs1.name)} (${steps(gs1)} logged)`,
    self_weight_max: gs1Steps,
    executed_rollouts_per_step: () => {
      if (gs1 === undefined) return noGs1;
      if (grpo === undefined) return noGrpo;
      return [gs1, grpo].filter((arm) => steps(arm) === 0).map(noSteps).join('; ');
    },
    executed_group_size_gs1: gs1Steps,
    executed_group_size_grpo: () => (grpo === undefined ? noGrpo : noSteps(grpo)),
    nonzero_advantage_fraction_gs1: gs1Steps,
  };
  for (const name of GATE_METRIC_NAMES) if (metrics[name] === undefined) reasons[name] = why[name]();
  return reasons;
}
