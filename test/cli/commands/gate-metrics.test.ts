// rl-adv gate-metrics end to end: metrics from a calibration and pilot logs equal the library's, and
// piped into rl-adv gate the record's calibration (B_eff ratio 0.976 < 1.03) fails the gate.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { createEstimator } from '../../../src/estimators/registry.js';
import { gateMetrics, parseAdvantageLog } from '../../../src/study/gate-metrics.js';
import { loadStudySpec } from '../../../src/study/spec.js';
import { TfidfVectorizer } from '../../../src/text/tfidf.js';
import { trainQuestions } from '../../helpers/paths.js';
import { rlAdv, specPath, tempDir, writeJsonl } from '../run.js';

const dir = tempDir();
let grpoLog: string;
let gs1Log: string;
let calibrationFile: string;

/**
 * The record's calibration figures (shared/seed/gs1-vs-grpo-record.txt): sigma_eps^2 0.1275, corrected
 * MSE 0.1622 (LOO batch mean) and 0.1692 (TF-IDF kernel), so the ratio is 0.2897 / 0.2967 = 0.976.
 */
const recordCalibration = {
  mode: 'corrected',
  tasks: 64,
  rollouts: 512,
  mean_reward: 0.543,
  batch_size: 32,
  batches: 20000,
  seed: 0,
  noise: 'pooled',
  interval_method: 'jackknife',
  interval_level: 0.95,
  sigma_eps2: 0.1275,
  reference: 'loo_batch_mean',
  estimator_names: ['loo_batch_mean', 'tfidf_kernel_loo_T0.1'],
  vectorizer: { corpus: 'train.jsonl', corpus_field: 'question' },
  estimators: {
    loo_batch_mean: { mse_raw: 0.18, mse_corrected: 0.1622, beff: 16.88, ratio: 1, ratio_se: 0, ratio_task_se: 0, ratio_ci95: [1, 1] },
    'tfidf_kernel_loo_T0.1': {
      mse_raw: 0.187,
      mse_corrected: 0.1692,
      beff: 16.49,
      ratio: (0.1275 + 0.1622) / (0.1275 + 0.1692),
      ratio_se: 0.002,
      ratio_task_se: 0.02,
      ratio_ci95: [0.937, 1.015],
    },
  },
};

/** One logged training step, as the Tinker driver writes it (docs/method.md section 9). */
function step(arm: string, stepNumber: number, estimator: string, groupSize: number, prompts: string[], rewards: number[], vectorizer: TfidfVectorizer) {
  const groupIds = prompts.map((_, i) => Math.floor(i / groupSize));
  const r = createEstimator(estimator, { vectorizer }).compute({ rewards, prompts, groupIds });
  const advantages = Array.from(r.advantages);
  const baselines = Array.from(r.baselines);
  const loo = Array.from(r.looMean);
  return {
    arm,
    step: stepNumber,
    estimator,
    rollouts: rewards.length,
    group_size: groupSize,
    groups: rewards.length / groupSize,
    rewards,
    baselines,
    loo_mean: loo,
    advantages,
    max_self_weight: r.maxSelfWeight,
    nonzero_advantage_fraction: advantages.filter((a) => Math.abs(a) > 1e-6).length / advantages.length,
    mean_abs_baseline_minus_loo_mean: baselines.reduce((s, b, i) => s + Math.abs(b - (loo[i] as number)), 0) / baselines.length,
  };
}

beforeAll(() => {
  const questions = trainQuestions().slice(0, 400);
  const vectorizer = TfidfVectorizer.fit(questions);
  const reward = (s: number, i: number) => ((s * 31 + i * 17) % 7 < 3 ? 1 : 0);
  const grpo = [0, 1, 2].map((s) => {
    const prompts = Array.from({ length: 32 }, (_, i) => questions[s * 4 + Math.floor(i / 8)] as string);
    return step('grpo_g8', s, 'group_mean', 8, prompts, prompts.map((_, i) => reward(s, i)), vectorizer);
  });
  const gs1 = [0, 1, 2].map((s) => {
    const prompts = questions.slice(100 + s * 32, 132 + s * 32);
    return step('gs1_tfidf_g1', s, 'tfidf_kernel_loo_T0.1', 1, prompts, prompts.map((_, i) => reward(s + 5, i)), vectorizer);
  });
  grpoLog = writeJsonl(dir, 'grpo.jsonl', grpo);
  gs1Log = writeJsonl(dir, 'gs1.jsonl', gs1.reverse()); // steps out of order: the metrics sort by step
  calibrationFile = join(dir, 'calibration.json');
  writeFileSync(calibrationFile, JSON.stringify(recordCalibration, null, 2));
});

describe('rl-adv gate-metrics', () => {
  it('computes the library metrics; piped into rl-adv gate, the record ratio 0.976 fails it (exit 1)', async () => {
    const run = await rlAdv(['gate-metrics', '--spec', specPath, '--calibration', calibrationFile, '--pilot-log', `grpo_g8=${grpoLog}`, '--pilot-log', `gs1_tfidf_g1=${gs1Log}`, '--json']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const metrics = JSON.parse(run.stdout) as Record<string, number>;
    const spec = loadStudySpec(readFileSync(specPath, 'utf8'));
    const expected = gateMetrics({
      calibration: { reference: 'loo_batch_mean', sigmaEps2: 0.1275, estimators: { 'tfidf_kernel_loo_T0.1': { mseRaw: 0.187, mseCorrected: 0.1692, beff: 16.49, ratio: recordCalibration.estimators['tfidf_kernel_loo_T0.1'].ratio, ratioSe: 0.002, ratioTaskSe: 0.02, ratioCi95: [0.937, 1.015] } } },
      pilotLogs: {
        grpo_g8: parseAdvantageLog(readFileSync(grpoLog, 'utf8'), grpoLog),
        gs1_tfidf_g1: parseAdvantageLog(readFileSync(gs1Log, 'utf8'), gs1Log),
      },
      arms: spec.arms,
    });
    expect(metrics).toEqual(expected);
    expect(metrics.offline_beff_ratio_tfidf_vs_loo_mean?.toFixed(3)).toBe('0.976');
    expect(metrics).toMatchObject({ self_weight_max: 0, executed_rollouts_per_step: 32, executed_group_size_gs1: 1, executed_group_size_grpo: 8 });

    const metricsFile = join(dir, 'metrics.json');
    writeFileSync(metricsFile, run.stdout);
    const gate = await rlAdv(['gate', '--spec', specPath, '--metrics', metricsFile, '--json']);
    expect(gate.code).toBe(1);
    const result = JSON.parse(gate.stdout) as { passed: boolean; checks: { metric: string; status: string }[] };
    expect(result.passed).toBe(false);
    expect(result.checks.find((c) => c.metric === 'offline_beff_ratio_tfidf_vs_loo_mean')?.status).toBe('fail');
  });

  it('a FILE without ARM= groups rows by their arm; the text form lists every metric', async () => {
    const both = join(dir, 'both.jsonl');
    writeFileSync(both, readFileSync(grpoLog, 'utf8') + readFileSync(gs1Log, 'utf8'));
    const a = await rlAdv(['gate-metrics', '--spec', specPath, '--calibration', calibrationFile, '--pilot-log', both, '--json']);
    const b = await rlAdv(['gate-metrics', '--spec', specPath, '--calibration', calibrationFile, '--pilot-log', `grpo_g8=${grpoLog}`, '--pilot-log', `gs1_tfidf_g1=${gs1Log}`, '--json']);
    expect(a.code).toBe(0);
    expect(JSON.parse(a.stdout)).toEqual(JSON.parse(b.stdout));
    const text = await rlAdv(['gate-metrics', '--spec', specPath, '--calibration', calibrationFile, '--pilot-log', `gs1_tfidf_g1=${gs1Log}`]);
    expect(text.code).toBe(0);
    // Without the GRPO arm's log its metrics cannot be computed: they are missing, never invented.
    expect(text.stdout).toMatch(/executed_group_size_grpo\s+missing/);
    expect(text.stdout).toMatch(/offline_beff_ratio_tfidf_vs_loo_mean\s+0\.976/);
  });

  it('bad input exits 2 naming the file, line and field', async () => {
    let run = await rlAdv(['gate-metrics', '--spec', specPath, '--calibration', calibrationFile, '--pilot-log', `grpo_g8=${gs1Log}`]);
    expect([run.code, run.stderr]).toEqual([2, expect.stringMatching(/gs1\.jsonl:1: field "arm": is "gs1_tfidf_g1", but --pilot-log grpo_g8=/)]);

    const lines = readFileSync(grpoLog, 'utf8').split('\n');
    const row = JSON.parse(lines[1] as string) as Record<string, unknown>;
    lines[1] = JSON.stringify({ ...row, rollouts: 0 });
    const badLog = join(dir, 'bad-log.jsonl');
    writeFileSync(badLog, lines.join('\n'));
    run = await rlAdv(['gate-metrics', '--spec', specPath, '--calibration', calibrationFile, '--pilot-log', `grpo_g8=${badLog}`]);
    expect([run.code, run.stderr]).toEqual([2, expect.stringMatching(/bad-log\.jsonl:2: rollouts must be an integer >= 1, got 0/)]);

    const badCalibration = join(dir, 'bad-calibration.json');
    const broken = structuredClone(recordCalibration) as { estimators: Record<string, Record<string, unknown>> };
    (broken.estimators['tfidf_kernel_loo_T0.1'] as Record<string, unknown>).ratio = 'high';
    writeFileSync(badCalibration, JSON.stringify(broken, null, 2));
    run = await rlAdv(['gate-metrics', '--spec', specPath, '--calibration', badCalibration, '--pilot-log', gs1Log]);
    expect([run.code, run.stderr]).toEqual([2, expect.stringMatching(/bad-calibration\.json:\d+: field "estimators\.tfidf_kernel_loo_T0\.1\.ratio": must be a finite number, got "high"/)]);

    const otherArm = join(dir, 'other-arm.jsonl');
    writeFileSync(otherArm, readFileSync(gs1Log, 'utf8').replaceAll('"gs1_tfidf_g1"', '"gs2"'));
    run = await rlAdv(['gate-metrics', '--spec', specPath, '--pilot-log', otherArm]);
    expect([run.code, run.stderr]).toEqual([2, `rl-adv: --pilot-log: a log row has arm "gs2", which the spec's arms do not define ("grpo_g8", "gs1_tfidf_g1")\n`]);
    const twice = join(dir, 'twice.jsonl');
    writeFileSync(twice, readFileSync(gs1Log, 'utf8') + readFileSync(gs1Log, 'utf8'));
    run = await rlAdv(['gate-metrics', '--spec', specPath, '--pilot-log', twice]);
    expect([run.code, run.stderr]).toEqual([2, expect.stringMatching(/^rl-adv: --pilot-log: the log of arm "gs1_tfidf_g1" logs step \d twice\n$/)]);
    // The camelCase object calibrateBeff returns is not the JSON shape: the first missing field is named.
    const camel = join(dir, 'camel.json');
    writeFileSync(camel, JSON.stringify({ mode: 'corrected', sigmaEps2: 0.1275, reference: 'loo_batch_mean', estimators: {} }, null, 2));
    run = await rlAdv(['gate-metrics', '--spec', specPath, '--calibration', camel, '--pilot-log', gs1Log]);
    expect([run.code, run.stderr]).toEqual([2, expect.stringMatching(/camel\.json(:\d+)?: field "sigma_eps2": must be a finite number, got undefined/)]);

    run = await rlAdv(['gate-metrics', '--spec', specPath, '--calibration', calibrationFile]);
    expect([run.code, run.stderr]).toEqual([2, expect.stringMatching(/give the pilot advantage logs with --pilot-log ARM=FILE/)]);
  });

  it('says why each metric is missing: no calibration, too few pilot steps, an arm without a log', async () => {
    const twoSteps = join(dir, 'gs1-two.jsonl');
    writeFileSync(twoSteps, readFileSync(gs1Log, 'utf8').trim().split('\n').slice(0, 2).join('\n') + '\n');
    const run = await rlAdv(['gate-metrics', '--spec', specPath, '--pilot-log', `gs1_tfidf_g1=${twoSteps}`]);
    expect([run.code, run.stderr]).toEqual([0, '']);
    expect(run.stdout).toMatch(/offline_beff_ratio_tfidf_vs_loo_mean\s+missing: no calibration given \(--calibration FILE\)\n/);
    expect(run.stdout).toMatch(/pilot_mean_abs_gs1_minus_batchmean_baseline\s+missing: fewer than 3 pilot steps of arm "gs1_tfidf_g1" \(2 logged\)\n/);
    expect(run.stdout).toMatch(/executed_rollouts_per_step\s+missing: no pilot steps of arm "grpo_g8" in the logs\n/);
    expect(run.stdout).toMatch(/executed_group_size_grpo\s+missing: no pilot steps of arm "grpo_g8" in the logs\n/);
    expect(run.stdout).toMatch(/self_weight_max\s+0\n/);
    // --json keeps stdout the metrics object; the reasons go to stderr.
    const json = await rlAdv(['gate-metrics', '--spec', specPath, '--pilot-log', `gs1_tfidf_g1=${twoSteps}`, '--json']);
    expect(Object.keys(JSON.parse(json.stdout) as object)).toEqual(['self_weight_max', 'nonzero_advantage_fraction_gs1', 'executed_group_size_gs1']);
    expect(json.stderr.split('\n')).toContain('rl-adv: note: offline_beff_ratio_tfidf_vs_loo_mean is missing: no calibration given (--calibration FILE)');
    // A calibration that did not score the GS1 arm's estimator.
    const onlyLoo = join(dir, 'only-loo.json');
    writeFileSync(onlyLoo, JSON.stringify({ ...recordCalibration, estimators: { loo_batch_mean: recordCalibration.estimators.loo_batch_mean } }));
    const c = await rlAdv(['gate-metrics', '--spec', specPath, '--calibration', onlyLoo, '--pilot-log', gs1Log]);
    expect(c.stdout).toMatch(/offline_beff_ratio_tfidf_vs_loo_mean\s+missing: the calibration has no figures for tfidf_kernel_loo_T0\.1, the GS1 arm's estimator \(it scored loo_batch_mean\)/);
  });
});
