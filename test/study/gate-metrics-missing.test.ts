// Why a gate metric is missing: one reason per absent metric, none for a metric gateMetrics computed.
import { describe, expect, it } from 'vitest';
import type { AdvantageLogRow } from '../../src/study/gate-metrics.js';
import { gateMetrics, GATE_METRIC_NAMES } from '../../src/study/gate-metrics.js';
import { missingGateMetricReasons } from '../../src/study/gate-metrics-missing.js';

const GS1 = { name: 'gs1', advantage: 'tfidf_kernel_loo_T0.1' };
const GRPO = { name: 'grpo', advantage: 'group_mean' };

function row(arm: string, step: number, groupSize: number): AdvantageLogRow {
  return {
    arm,
    step,
    estimator: arm === 'gs1' ? GS1.advantage : GRPO.advantage,
    rollouts: 2,
    group_size: groupSize,
    groups: 2 / groupSize,
    rewards: [1, 0],
    baselines: [0.5, 0.5],
    loo_mean: [0, 1],
    advantages: [0.5, -0.5],
    max_self_weight: 0,
    nonzero_advantage_fraction: 1,
    mean_abs_baseline_minus_loo_mean: 0.5,
  };
}

const figures = { mseRaw: 0.2, mseCorrected: 0.1, beff: 3, ratio: 1, ratioSe: 0, ratioCi95: null };

function reasons(input: Parameters<typeof gateMetrics>[0]) {
  const metrics = gateMetrics(input);
  const why = missingGateMetricReasons(input, metrics);
  // Exactly the absent metrics have a reason.
  expect(Object.keys(why).sort()).toEqual(GATE_METRIC_NAMES.filter((m) => metrics[m] === undefined).sort());
  return why;
}

describe('missingGateMetricReasons', () => {
  it('no calibration, 2 of 3 pilot steps, and an arm without a log', () => {
    const why = reasons({ calibration: null, pilotLogs: { gs1: [row('gs1', 0, 1), row('gs1', 1, 1)] }, arms: [GS1, GRPO] });
    expect(why).toEqual({
      offline_beff_ratio_tfidf_vs_loo_mean: 'no calibration given',
      pilot_mean_abs_gs1_minus_batchmean_baseline: 'fewer than 3 pilot steps of arm "gs1" (2 logged)',
      executed_rollouts_per_step: 'no pilot steps of arm "grpo" in the logs',
      executed_group_size_grpo: 'no pilot steps of arm "grpo" in the logs',
    });
  });

  it('a calibration without the GS1 estimator, or with another reference and no loo_batch_mean', () => {
    const logs = { gs1: [0, 1, 2].map((s) => row('gs1', s, 1)), grpo: [row('grpo', 0, 2)] };
    expect(reasons({ calibration: { reference: 'loo_batch_mean', sigmaEps2: 0.2, estimators: { loo_batch_mean: figures } }, pilotLogs: logs, arms: [GS1, GRPO] })).toEqual({
      offline_beff_ratio_tfidf_vs_loo_mean: "the calibration has no figures for tfidf_kernel_loo_T0.1, the GS1 arm's estimator (it scored loo_batch_mean)",
    });
    expect(reasons({ calibration: { reference: 'length_bucket_loo', sigmaEps2: 0.2, estimators: { 'tfidf_kernel_loo_T0.1': figures } }, pilotLogs: logs, arms: [GS1, GRPO] })).toEqual({
      offline_beff_ratio_tfidf_vs_loo_mean: "the calibration's reference is length_bucket_loo and it has no loo_batch_mean figures to compare with",
    });
  });

  it('a spec without a GS1 or a GRPO arm', () => {
    const noGs1 = reasons({ calibration: null, pilotLogs: { grpo: [row('grpo', 0, 2)] }, arms: [GRPO] });
    expect(noGs1.self_weight_max).toBe('the spec has no GS1 arm (an arm whose advantage is a kernel estimator)');
    expect(noGs1.executed_rollouts_per_step).toBe('the spec has no GS1 arm (an arm whose advantage is a kernel estimator)');
    const noGrpo = reasons({ calibration: null, pilotLogs: { gs1: [row('gs1', 0, 1)] }, arms: [GS1] });
    expect(noGrpo.executed_group_size_grpo).toBe('the spec has no GRPO arm (an arm whose advantage is group_mean)');
  });
});
