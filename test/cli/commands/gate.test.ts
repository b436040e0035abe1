// rl-adv gate end to end: the record's failed gate (0.976 < 1.03) exits 1; a passing gate exits 0.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { rlAdv, specPath, tempDir } from '../run.js';

const dir = tempDir();

/** The record's measured figures (shared/seed/gs1-vs-grpo-record.txt): the offline ratio 0.9762, the rest in bounds. */
const recordMetrics = {
  offline_beff_ratio_tfidf_vs_loo_mean: 0.976,
  pilot_mean_abs_gs1_minus_batchmean_baseline: 0.031,
  self_weight_max: 0,
  executed_rollouts_per_step: 32,
  executed_group_size_gs1: 1,
  executed_group_size_grpo: 8,
  nonzero_advantage_fraction_gs1: 0.56,
};

function metricsFile(name: string, metrics: object): string {
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify(metrics, null, 2) + '\n');
  return file;
}

describe('rl-adv gate', () => {
  it("the record's B_eff ratio 0.976 fails the gate (min 1.03): exit 1, the failing check named", async () => {
    const file = metricsFile('record.json', recordMetrics);
    const json = await rlAdv(['gate', '--spec', specPath, '--metrics', file, '--json']);
    expect(json.code).toBe(1);
    expect(json.stderr).toBe('');
    const result = JSON.parse(json.stdout) as { passed: boolean; checks: Record<string, unknown>[] };
    expect(result.passed).toBe(false);
    expect(result.checks).toHaveLength(7);
    expect(result.checks[0]).toEqual({ metric: 'offline_beff_ratio_tfidf_vs_loo_mean', value: 0.976, min: 1.03, max: null, status: 'fail' });
    expect(result.checks.slice(1).every((c) => c.status === 'pass')).toBe(true);
    // Exactly the keys the issue lists.
    expect(Object.keys(result)).toEqual(['passed', 'checks']);
    expect(Object.keys(result.checks[0] as object)).toEqual(['metric', 'value', 'min', 'max', 'status']);

    const text = await rlAdv(['gate', '--spec', specPath, '--metrics', file]);
    expect(text.code).toBe(1);
    expect(text.stdout).toMatch(/offline_beff_ratio_tfidf_vs_loo_mean\s+0\.976\s+1\.03\s+-\s+fail\s+0\.976 < min 1\.03/);
    expect(text.stdout).toMatch(/activation gate: FAILED \(1 of 7 checks did not pass: offline_beff_ratio_tfidf_vs_loo_mean\)/);
  });

  it('passes (exit 0) when every metric is within its bounds, the bounds inclusive', async () => {
    const file = metricsFile('pass.json', { ...recordMetrics, offline_beff_ratio_tfidf_vs_loo_mean: 1.03, unrelated: 5 });
    const run = await rlAdv(['gate', '--spec', specPath, '--metrics', file, '--json']);
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/^rl-adv: note: .*pass\.json:9: "unrelated" is not a metric the gate checks; ignored\n$/);
    expect((JSON.parse(run.stdout) as { passed: boolean }).passed).toBe(true);
    expect((await rlAdv(['gate', '--spec', specPath, '--metrics', file])).stdout).toMatch(/activation gate: PASSED \(all 7 checks\)/);
  });

  it('a metric that is missing or null fails its check as "missing" (exit 1)', async () => {
    const { self_weight_max: _, ...rest } = recordMetrics;
    const file = metricsFile('missing.json', { ...rest, offline_beff_ratio_tfidf_vs_loo_mean: 1.2, nonzero_advantage_fraction_gs1: null });
    const run = await rlAdv(['gate', '--spec', specPath, '--metrics', file, '--json']);
    expect(run.code).toBe(1);
    const checks = (JSON.parse(run.stdout) as { checks: { metric: string; status: string; value: unknown }[] }).checks;
    expect(checks.filter((c) => c.status !== 'pass')).toEqual([
      { metric: 'self_weight_max', value: null, min: 0, max: 0, status: 'missing' },
      { metric: 'nonzero_advantage_fraction_gs1', value: null, min: 0.3, max: null, status: 'missing' },
    ]);
  });

  it('a misspelt metric in --metrics is an error naming the closest gate metric (not a silent "missing")', async () => {
    const { self_weight_max: _, ...rest } = recordMetrics;
    const file = metricsFile('typo.json', { ...rest, self_weigth_max: 0 });
    const run = await rlAdv(['gate', '--spec', specPath, '--metrics', file]);
    expect([run.code, run.stdout]).toEqual([2, '']);
    expect(run.stderr).toMatch(/^rl-adv: .*typo\.json:8: field "self_weigth_max": is not a metric the gate checks \(did you mean "self_weight_max"\?\); the gate checks offline_beff_ratio_tfidf_vs_loo_mean, /);
  });

  it("a spec's gate check on a metric rl-adv never computes: gate says so in the reason, gate-metrics refuses it", async () => {
    const spec = JSON.parse(readFileSync(specPath, 'utf8')) as { activation_gate: { checks: Record<string, unknown>[] } };
    (spec.activation_gate.checks[2] as Record<string, unknown>).metric = 'self_weight_mx';
    const typoSpec = join(dir, 'typo.spec.json');
    const text = JSON.stringify(spec, null, 2);
    writeFileSync(typoSpec, text);
    const run = await rlAdv(['gate', '--spec', typoSpec, '--metrics', metricsFile('record2.json', recordMetrics)]);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/self_weight_mx\s+-\s+0\s+0\s+missing\s+not measured: not a gate metric rl-adv computes \(did you mean "self_weight_max"\?\)/);
    const line = text.split('\n').findIndex((l) => l.includes('"self_weight_mx"')) + 1;
    const metrics = await rlAdv(['gate-metrics', '--spec', typoSpec, '--pilot-log', join(dir, 'absent.jsonl')]);
    expect([metrics.code, metrics.stdout]).toEqual([2, '']);
    expect(metrics.stderr).toBe(
      `rl-adv: ${typoSpec}:${line}: field "activation_gate.checks[2].metric": "self_weight_mx" is not a gate metric rl-adv computes ` +
        '(did you mean "self_weight_max"?); the gate metrics are offline_beff_ratio_tfidf_vs_loo_mean, pilot_mean_abs_gs1_minus_batchmean_baseline, ' +
        'self_weight_max, executed_rollouts_per_step, executed_group_size_gs1, executed_group_size_grpo, nonzero_advantage_fraction_gs1\n',
    );
  });

  it('bad input exits 2 naming the file, line and field', async () => {
    const bad = metricsFile('bad.json', { ...recordMetrics, self_weight_max: 'zero' });
    let run = await rlAdv(['gate', '--spec', specPath, '--metrics', bad]);
    expect([run.code, run.stdout]).toEqual([2, '']);
    expect(run.stderr).toMatch(/^rl-adv: .*bad\.json:4: field "self_weight_max": must be a number \(or null when not measured\), got "zero"\n$/);

    const notJson = join(dir, 'broken.json');
    writeFileSync(notJson, '{\n  "self_weight_max": 0,\n}\n');
    run = await rlAdv(['gate', '--spec', specPath, '--metrics', notJson]);
    expect([run.code, run.stderr]).toEqual([2, expect.stringMatching(/broken\.json:3: not valid JSON/)]);

    const array = metricsFile('array.json', [1, 2]);
    run = await rlAdv(['gate', '--spec', specPath, '--metrics', array]);
    expect([run.code, run.stderr]).toEqual([2, expect.stringMatching(/array\.json: must hold a JSON object of metric name -> number, got an array/)]);

    const spec = JSON.parse(readFileSync(specPath, 'utf8')) as { activation_gate: { checks: Record<string, unknown>[] } };
    (spec.activation_gate.checks[1] as Record<string, unknown>).min = 'high';
    const badSpec = join(dir, 'bad.spec.json');
    writeFileSync(badSpec, JSON.stringify(spec, null, 2));
    run = await rlAdv(['gate', '--spec', badSpec, '--metrics', bad]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/bad\.spec\.json: invalid study spec \(1 problem\):\n {2}.*bad\.spec\.json:\d+: field "activation_gate\.checks\[1\]\.min": must be a finite number, got "high"/);
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });
});
