import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { beffRatioFromFigures, type BeffCalibration } from '../../src/calibration/beff.js';
import { RlAdvantagesError } from '../../src/errors.js';
import { evaluateGate } from '../../src/study/gate.js';
import {
  gateMetrics,
  GATE_METRIC_NAMES,
  groupAdvantageLogByArm,
  parseAdvantageLog,
  type AdvantageLogRow,
} from '../../src/study/gate-metrics.js';
import { loadStudySpec } from '../../src/study/spec.js';
import { specPath } from '../helpers/paths.js';

const spec = loadStudySpec(readFileSync(specPath, 'utf8'));
const GS1 = 'gs1_tfidf_g1';
const GRPO = 'grpo_g8';

/** A log row with 4 rollouts whose fields are consistent with the arrays. */
function row(arm: string, step: number, fields: Partial<AdvantageLogRow> = {}): AdvantageLogRow {
  const rewards = fields.rewards ?? [1, 0, 1, 0];
  const baselines = fields.baselines ?? [0.5, 0.5, 0.5, 0.5];
  const looMean = fields.loo_mean ?? rewards.map((r) => (rewards.reduce((s, x) => s + x, 0) - r) / (rewards.length - 1));
  const advantages = fields.advantages ?? rewards.map((r, i) => r - (baselines[i] as number));
  return {
    arm,
    step,
    estimator: arm === GS1 ? 'tfidf_kernel_loo_T0.1' : 'group_mean',
    rollouts: rewards.length,
    group_size: arm === GS1 ? 1 : 8,
    groups: arm === GS1 ? rewards.length : 1,
    rewards,
    baselines,
    loo_mean: looMean,
    advantages,
    max_self_weight: 0,
    nonzero_advantage_fraction: advantages.filter((a) => Math.abs(a) > 1e-6).length / rewards.length,
    mean_abs_baseline_minus_loo_mean: 0,
    ...fields,
  };
}

/** 32-rollout steps as the spec's arms execute them. */
function step32(arm: string, step: number, baselineShift: number): AdvantageLogRow {
  const rewards = Array.from({ length: 32 }, (_, i): number => (i % 3 === 0 ? 1 : 0));
  const sum = rewards.reduce((s, x) => s + x, 0);
  const looMean = rewards.map((r) => (sum - r) / 31);
  const baselines = looMean.map((b, i) => b + (i % 2 === 0 ? baselineShift : -baselineShift));
  return row(arm, step, { rewards, loo_mean: looMean, baselines, advantages: rewards.map((r, i) => r - (baselines[i] as number)) });
}

function calibrationWithRatio(ratio: number): Pick<BeffCalibration, 'reference' | 'sigmaEps2' | 'estimators'> {
  const figures = { mseRaw: 0, mseCorrected: 0, beff: null, ratioSe: 0, ratioCi95: null };
  return {
    reference: 'loo_batch_mean',
    sigmaEps2: 0.1275,
    estimators: { loo_batch_mean: { ...figures, ratio: 1 }, 'tfidf_kernel_loo_T0.1': { ...figures, ratio } },
  };
}

describe('gateMetrics', () => {
  it('computes every gate metric of the spec from a calibration and hand-made pilot logs', () => {
    // GS1 steps: |b - loo| is 0.5 on every rollout of steps 0-2 (step 3, with 0.1, is outside the first 3).
    const gs1 = [
      row(GS1, 3, { baselines: [0.6, 0.4, 0.6, 0.4], loo_mean: [0.5, 0.5, 0.5, 0.5] }),
      row(GS1, 0, { baselines: [0, 1, 0, 1], loo_mean: [0.5, 0.5, 0.5, 0.5] }),
      row(GS1, 1, { baselines: [1, 0, 1, 0], loo_mean: [0.5, 0.5, 0.5, 0.5], advantages: [0, 0, 0, 1e-7] }),
      row(GS1, 2, { baselines: [0, 0, 1, 1], loo_mean: [0.5, 0.5, 0.5, 0.5], max_self_weight: 0.25 }),
    ];
    const grpo = [row(GRPO, 0), row(GRPO, 1)];
    const metrics = gateMetrics({ calibration: calibrationWithRatio(1.05), pilotLogs: { [GS1]: gs1, [GRPO]: grpo }, arms: spec.arms });
    expect(metrics).toEqual({
      offline_beff_ratio_tfidf_vs_loo_mean: 1.05,
      pilot_mean_abs_gs1_minus_batchmean_baseline: 0.5,
      self_weight_max: 0.25,
      executed_rollouts_per_step: 4,
      executed_group_size_gs1: 1,
      executed_group_size_grpo: 8,
      // 16 GS1 rollouts (rewards 1,0,1,0): A is [0.4,-0.4,0.4,-0.4] in step 3, [1,-1,1,-1] in step 0,
      // [0,0,0,1e-7] (all <= 1e-6) in step 1 and [1,0,0,-1] in step 2: 4 + 4 + 0 + 2 = 10 non-zero.
      nonzero_advantage_fraction_gs1: 10 / 16,
    });
    expect(Object.keys(metrics).sort()).toEqual([...GATE_METRIC_NAMES].sort());
  });

  it("with the record's B_eff ratio 0.976 the gate fails on that check alone", () => {
    // shared/seed/gs1-vs-grpo-record.txt: sigma_eps^2 0.1275, MSE 0.1622 (LOO), 0.1692 (TF-IDF).
    const ratio = beffRatioFromFigures({ sigmaEps2: 0.1275, mseCorrectedReference: 0.1622, mseCorrectedEstimator: 0.1692 });
    const pilotLogs = {
      [GS1]: [0, 1, 2].map((s) => step32(GS1, s, 0.05)),
      [GRPO]: [0, 1, 2].map((s) => ({ ...step32(GRPO, s, 0), group_size: 8, groups: 4 })),
    };
    const metrics = gateMetrics({ calibration: calibrationWithRatio(ratio), pilotLogs, arms: spec.arms });
    expect(metrics.pilot_mean_abs_gs1_minus_batchmean_baseline).toBeCloseTo(0.05, 12);
    expect(metrics.executed_rollouts_per_step).toBe(32);
    const result = evaluateGate(spec.activationGate, metrics);
    expect(result.passed).toBe(false);
    const failed = result.checks.filter((c) => c.status !== 'pass');
    expect(failed.map((c) => [c.metric, c.status])).toEqual([['offline_beff_ratio_tfidf_vs_loo_mean', 'fail']]);
    expect(failed[0]?.value).toBeCloseTo(0.976, 3);
    // The same logs with a ratio above 1.03 pass every check.
    expect(evaluateGate(spec.activationGate, gateMetrics({ calibration: calibrationWithRatio(1.04), pilotLogs, arms: spec.arms })).passed).toBe(true);
  });

  it('leaves out what cannot be computed, so the gate reports it missing', () => {
    const gs1 = [row(GS1, 0), row(GS1, 1)]; // fewer than the 3 steps the baseline metric averages
    const metrics = gateMetrics({ calibration: null, pilotLogs: { [GS1]: gs1 }, arms: spec.arms });
    expect(metrics).toEqual({ self_weight_max: 0, nonzero_advantage_fraction_gs1: 1, executed_group_size_gs1: 1 });
    const result = evaluateGate(spec.activationGate, metrics);
    expect(result.checks.filter((c) => c.status === 'missing').map((c) => c.metric)).toEqual([
      'offline_beff_ratio_tfidf_vs_loo_mean',
      'pilot_mean_abs_gs1_minus_batchmean_baseline',
      'executed_rollouts_per_step',
      'executed_group_size_grpo',
    ]);
    expect(gateMetrics({ arms: spec.arms })).toEqual({});
  });

  it('reports the first differing rollouts / group_size, so a gate needing exactly one value fails', () => {
    const gs1 = [row(GS1, 0), row(GS1, 1, { group_size: 2 }), row(GS1, 2, { group_size: 3 })];
    const grpo = [row(GRPO, 0), row(GRPO, 1, { rewards: [1, 0, 1, 0, 1], baselines: [0, 0, 0, 0, 0] })];
    const metrics = gateMetrics({ pilotLogs: { [GS1]: gs1, [GRPO]: grpo }, arms: spec.arms });
    expect(metrics.executed_group_size_gs1).toBe(2);
    expect(metrics.executed_rollouts_per_step).toBe(5);
    expect(metrics.executed_group_size_grpo).toBe(8);
  });

  it('computes the ratio from the figures when the calibration reference is not the LOO batch mean', () => {
    const figures = (mseCorrected: number) => ({ mseRaw: 0, mseCorrected, beff: null, ratio: 0, ratioSe: 0, ratioCi95: null });
    const calibration = {
      reference: 'length_bucket_loo',
      sigmaEps2: 0.1275,
      estimators: { length_bucket_loo: figures(0.2), loo_batch_mean: figures(0.1622), 'tfidf_kernel_loo_T0.1': figures(0.1692) },
    };
    const metrics = gateMetrics({ calibration, arms: spec.arms });
    expect(metrics.offline_beff_ratio_tfidf_vs_loo_mean).toBeCloseTo(0.2897 / 0.2967, 14);
  });

  it('refuses logs that do not match the spec arms', () => {
    expect(() => gateMetrics({ pilotLogs: { nope: [] }, arms: spec.arms })).toThrow(/pilotLogs has arm "nope"/);
    expect(() => gateMetrics({ pilotLogs: { [GS1]: [row(GRPO, 0)] }, arms: spec.arms })).toThrow(
      'pilotLogs.gs1_tfidf_g1[0].arm is "grpo_g8", not "gs1_tfidf_g1"',
    );
    expect(() => gateMetrics({ pilotLogs: { [GS1]: [row(GS1, 0), row(GS1, 0)] }, arms: spec.arms })).toThrow(/logs step 0 twice/);
    const twoKernels = [...spec.arms, { name: 'lb', advantage: 'length_bucket_loo', group_size: 1 }];
    expect(() => gateMetrics({ arms: twoKernels })).toThrow(/2 kernel-estimator \(GS1\) arms/);
  });
});

describe('parseAdvantageLog', () => {
  const good = row(GS1, 0);

  it('parses JSONL rows, skipping blank lines, and groups them by arm', () => {
    const text = `${JSON.stringify(good)}\n\n${JSON.stringify(row(GRPO, 0))}\n`;
    const rows = parseAdvantageLog(text, 'advantages.jsonl');
    expect(rows).toEqual([good, row(GRPO, 0)]);
    expect(groupAdvantageLogByArm(rows)).toEqual({ [GS1]: [good], [GRPO]: [row(GRPO, 0)] });
  });

  it('names file, line and field in every error', () => {
    const bad = (fields: Record<string, unknown>) => `${JSON.stringify(good)}\n${JSON.stringify({ ...good, ...fields })}`;
    expect(() => parseAdvantageLog(bad({ rollouts: 0 }), 'pilot.jsonl')).toThrow('pilot.jsonl:2: rollouts must be an integer >= 1, got 0');
    expect(() => parseAdvantageLog(bad({ baselines: [0, 0, 0] }), 'p.jsonl')).toThrow('p.jsonl:2: baselines has 3 elements but rollouts is 4');
    expect(() => parseAdvantageLog(bad({ advantages: [0, 0, 'x', 0] }), 'p.jsonl')).toThrow('p.jsonl:2: advantages[2] must be a finite number, got "x"');
    expect(() => parseAdvantageLog(bad({ arm: '' }), 'p.jsonl')).toThrow('p.jsonl:2: arm must be a non-empty string');
    expect(() => parseAdvantageLog(bad({ max_self_weight: 2 }), 'p.jsonl')).toThrow('p.jsonl:2: max_self_weight must be a finite number in [0, 1], got 2');
    expect(() => parseAdvantageLog(bad({ step: -1 }), 'p.jsonl')).toThrow('p.jsonl:2: step must be an integer >= 0');
    expect(() => parseAdvantageLog('{"arm": ', 'p.jsonl')).toThrow(/^p.jsonl:1: not valid JSON/);
    expect(() => parseAdvantageLog('[1]', 'p.jsonl')).toThrow('p.jsonl:1: must be a JSON object, got an array');
    try {
      parseAdvantageLog(bad({ groups: 0.5 }), 'p.jsonl');
    } catch (error) {
      expect(error).toBeInstanceOf(RlAdvantagesError);
      expect((error as RlAdvantagesError).field).toBe('groups');
      expect((error as RlAdvantagesError).index).toBe(2);
    }
  });
});
