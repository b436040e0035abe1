// Where a resumed run continues, and what the report says of a failed Tinker preflight, an eval limit above the
// test split and identical pilot accuracies.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderReport } from '../../src/report/markdown.js';
import { preflightChecks } from '../../src/study/backends/tinker.js';
import { describeResumePoint } from '../../src/study/resume-point.js';
import type { StudyArm } from '../../src/study/spec.js';
import type { StudySummary } from '../../src/study/summary.js';

const arms = [{ name: 'grpo_g8', advantage: 'group_mean' }, { name: 'gs1', advantage: 'tfidf_kernel_loo_T0.1' }] as unknown as StudyArm[];
const done = { status: 'done' as const, wall_seconds: 1, result: 'ok' };

function summary(extra: Partial<StudySummary> = {}): StudySummary {
  return {
    spec: { title: 't', path: 's.json', sha256: 'x' },
    data: { questions: 'gsm8k', dir: '/d', train: 7473, test: 1319, sha256: 'abcdef0123456789' },
    seed: 0,
    backend: 'sim',
    simulation: true,
    backend_settings: {},
    version: '0',
    options: { steps: null, eval_limit: null, calibration_batches: 1, calibration_bootstrap: 0 },
    phases: {},
    calibration: null,
    gate: null,
    ...extra,
  } as StudySummary;
}

describe('describeResumePoint', () => {
  it('names the phases done, the next phase and each arm\'s logged steps', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'rl-adv-resume-'));
    mkdirSync(path.join(dir, 'arms', 'grpo_g8'), { recursive: true });
    writeFileSync(path.join(dir, 'arms', 'grpo_g8', 'advantages.jsonl'), '{}\n{}\n{}\n');
    const s = summary({ phases: { preflight: done, calibration: done, pilot: done, gate: done } });
    expect(describeResumePoint(dir, s, arms, () => 60)).toBe(
      'resuming: preflight, calibration, pilot, gate done; continuing with arms (grpo_g8 at step 3 of 60, gs1 at step 0 of 60)',
    );
    expect(describeResumePoint(dir, summary(), arms, () => 60)).toBe('resuming: no phase done yet; continuing with preflight');
  });

  it('a replicated run: where each seed of each arm is (seeds 0 and 3 done, seed 7 at step 44), not step 0', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'rl-adv-resume-seeds-'));
    const log = (seed: number, arm: string, steps: number): void => {
      mkdirSync(path.join(dir, 'seeds', String(seed), 'arms', arm), { recursive: true });
      writeFileSync(path.join(dir, 'seeds', String(seed), 'arms', arm, 'advantages.jsonl'), '{}\n'.repeat(steps));
    };
    log(0, 'grpo_g8', 60);
    log(3, 'grpo_g8', 60);
    log(7, 'grpo_g8', 44);
    log(0, 'gs1', 60);
    const s = summary({ phases: { preflight: done, calibration: done, pilot: done, gate: done } });
    expect(describeResumePoint(dir, s, arms, () => 60, undefined, [0, 3, 7])).toBe(
      'resuming: preflight, calibration, pilot, gate done; continuing with arms ' +
        '(grpo_g8 seeds 0, 3 done, seed 7 at step 44 of 60; gs1 seed 0 done, seed 3 at step 0 of 60, seed 7 at step 0 of 60)',
    );
  });

  it('the optional tuning phase counts only in a run that has it', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'rl-adv-resume-'));
    const s = summary({ phases: { preflight: done, calibration: done } });
    expect(describeResumePoint(dir, s, arms, () => 60)).toBe('resuming: preflight, calibration done; continuing with pilot (grpo_g8 at step 0 of 3, gs1 at step 0 of 3)');
    expect(describeResumePoint(dir, s, arms, () => 60, [])).toBe('resuming: preflight, calibration done; continuing with tuning');
    writeFileSync(path.join(dir, 'tuning.jsonl'), '');
    expect(describeResumePoint(dir, s, arms, () => 60, [])).toBe('resuming: preflight, calibration done; continuing with tuning (reusing tuning.jsonl)');
    const tuned = summary({ phases: { preflight: done, calibration: done, tuning: done } });
    expect(describeResumePoint(dir, tuned, arms, () => 60)).toMatch(/^resuming: preflight, calibration, tuning done; continuing with pilot/);
  });
});

describe('report.md', () => {
  it('lists the tuning phase and its kernel only in a run that has it', () => {
    expect(renderReport(summary({ phases: { preflight: done } }))).not.toContain('| tuning |');
    const kernel = {
      file: 'kernel.json',
      sha256: 'k'.repeat(64),
      family: 'difficulty',
      candidates: 716,
      tuning_ratio: 1.048,
      held_out: { ratio: 1.042, ratio_ci95: [1.007, 1.077] as [number, number], interval_method: 'jackknife' },
      selection_bias: 0.006,
      per_family: [{ family: 'difficulty', tuning: 1.048, held_out: 1.042 }],
    };
    const text = renderReport(
      summary({
        options: { steps: null, eval_limit: null, calibration_batches: 1, calibration_bootstrap: 0, tuning_tasks: 1000, tuning_batches: null },
        phases: { preflight: done },
        tuning: { tasks: 1000, rows: 1000, file: 'tuning.jsonl', sha256: 't'.repeat(64), mean_reward: 0.5, order_first: 1920, order_end: 2925, kernel },
      }),
    );
    expect(text).toContain('| tuning | not reached | | |');
    expect(text).toContain('## Tuning (not adopted by this run)');
    expect(text).toContain('positions 1920-2924 of the data order');
    expect(text).toContain('1.0480 on the tuning part, 1.0420 [1.0070, 1.0770] (jackknife) held out; selection bias 0.0060.');
    expect(text).toContain('rl-adv study revise --spec SPEC --kernel kernel.json --out SPEC.v2.json');
    expect(text).toContain('| difficulty | 1.0480 | 1.0420 |');
  });

  it('an eval limit at or above the test split is reported as all items', () => {
    expect(renderReport(summary({ options: { steps: null, eval_limit: 5000, calibration_batches: 1, calibration_bootstrap: 0 } }))).toContain(
      '- eval on all 1319 test items (--eval-limit 5000 is not below their number)',
    );
    expect(renderReport(summary({ options: { steps: null, eval_limit: 50, calibration_batches: 1, calibration_bootstrap: 0 } }))).toContain(
      '- eval limited to the first 50 of 1319 test items (not all)',
    );
  });

  it('a failed preflight is FAILED in its heading, with the failing checks named', () => {
    const text = renderReport(
      summary({ preflight: { passed: false, checks: [{ id: 'tinker:reference_loss', passed: false, detail: 'max abs error 1e-3' }] } }),
    );
    expect(text).toContain('## Preflight: FAILED');
    expect(text).toContain('The preflight FAILED (tinker:reference_loss): the run stopped before calibration.');
  });

  it('identical simulated pilot accuracies are explained; different ones are not', () => {
    const pilot = (b: number): StudySummary['pilot'] => ({ arms: {}, eval: { init: { accuracy: 0.71, n: 100 }, grpo: { accuracy: 0.71, n: 100 }, gs1: { accuracy: b, n: 100 } } });
    expect(renderReport(summary({ pilot: pilot(0.71) }))).toContain('Every pilot accuracy is the same');
    expect(renderReport(summary({ pilot: pilot(0.72) }))).not.toContain('Every pilot accuracy is the same');
  });
});

describe('the Tinker preflight report', () => {
  it('a report that failed without a failing check still fails; figures go into the detail', () => {
    expect(preflightChecks({ passed: false, checks: { baseline_loss: { passed: true, max_abs_error: 0 } } })).toEqual([
      { id: 'tinker:baseline_loss', passed: true, detail: 'examples/tinker-cookbook/preflight.py: max abs error 0.000e+0' },
      { id: 'tinker:preflight', passed: false, detail: 'preflight.py reported passed = false' },
    ]);
    expect(preflightChecks({ passed: true, checks: { reference_self_weight: { passed: true, max_self_weight: 0 } } })).toEqual([
      { id: 'tinker:reference_self_weight', passed: true, detail: 'examples/tinker-cookbook/preflight.py: max self-weight 0' },
    ]);
  });
});
