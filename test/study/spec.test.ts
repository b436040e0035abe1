import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { RlAdvantagesError } from '../../src/errors.js';
import {
  loadStudySpec,
  parseActivationGate,
  parseArms,
  parseDecisionRule,
  StudySpecError,
  type SpecProblem,
} from '../../src/study/spec.js';
import { repoRoot, specPath } from '../helpers/paths.js';
const specText = readFileSync(specPath, 'utf8');

/** A fresh deep copy of the shipped spec, to break in one test without touching the others. */
function specObject(): Record<string, unknown> {
  return JSON.parse(specText) as Record<string, unknown>;
}

function problemsOf(fn: () => unknown): SpecProblem[] {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(StudySpecError);
    expect(error).toBeInstanceOf(RlAdvantagesError);
    expect((error as RlAdvantagesError).code).toBe('invalid_spec');
    return [...(error as StudySpecError).problems];
  }
  throw new Error('expected a StudySpecError');
}

const criterion = () => ({
  id: 'primary',
  metric: 'accuracy',
  bounds: [0, 1],
  margin: -0.05,
  weights: { treatment: 1, baseline: -1 },
});

describe('loadStudySpec on the shipped spec', () => {
  it('loads the real spec from its text and from the parsed object alike', () => {
    const fromText = loadStudySpec(specText);
    const fromObject = loadStudySpec(specObject());
    expect(fromObject).toEqual(fromText);
  });

  it('reads the decision rule, gate and arms as the spec file states them', () => {
    const spec = loadStudySpec(specText);
    expect(spec.decisionRule.method).toBe('paired_hoeffding');
    expect(spec.decisionRule.alpha).toBe(0.05);
    expect(spec.decisionRule.unit).toBe('fixed_checkpoint_items');
    expect(spec.decisionRule.criteria).toHaveLength(1);
    const c = spec.decisionRule.criteria[0];
    expect(c).toMatchObject({ id: 'primary', metric: 'accuracy', bounds: [0, 1], margin: -0.05 });
    expect(c?.weights).toEqual({ treatment: 1, baseline: -1 });

    expect(spec.activationGate.applicable).toBe(true);
    expect(spec.activationGate.checks.map((x) => x.metric)).toEqual([
      'offline_beff_ratio_tfidf_vs_loo_mean',
      'pilot_mean_abs_gs1_minus_batchmean_baseline',
      'self_weight_max',
      'executed_rollouts_per_step',
      'executed_group_size_gs1',
      'executed_group_size_grpo',
      'nonzero_advantage_fraction_gs1',
    ]);
    expect(spec.activationGate.checks[0]).toMatchObject({ min: 1.03 });
    expect(spec.activationGate.checks[0]?.max).toBeUndefined();

    expect(spec.arms.map((a) => [a.name, a.advantage, a.group_size, a.groups_per_batch])).toEqual([
      ['grpo_g8', 'group_mean', 8, 4],
      ['gs1_tfidf_g1', 'tfidf_kernel_loo_T0.1', 1, 32],
    ]);
  });

  it('keeps every section and every key the user gave', () => {
    const original = specObject();
    const spec = loadStudySpec(specText);
    expect(spec.raw).toEqual(original);
    expect(Object.keys(spec.raw).sort()).toEqual(Object.keys(original).sort());
    expect(spec.raw.base_model).toBe('Qwen/Qwen3.5-2B');
    // Unvalidated keys of the validated sections are kept as well.
    expect(spec.decisionRule.estimand).toBe((original.decision_rule as Record<string, unknown>).estimand);
    expect(spec.decisionRule.seeds).toEqual([0]);
    expect(spec.activationGate.reason).toMatch(/^The kernel only matters/);
    expect(spec.activationGate.checks[0]?.measures).toMatch(/^B_eff ratio/);
    expect(spec.arms[0]?.lr).toBe(3e-5);
  });
});

describe('loadStudySpec reports every problem at once', () => {
  it('lists each problem of every section with its JSON path', () => {
    const spec = specObject();
    const rule = spec.decision_rule as Record<string, unknown>;
    rule.alpha = 1.5;
    rule.criteria = [
      { ...criterion(), bounds: [1, 0] },
      { ...criterion(), id: 'primary', weights: { treatment: '1', baseline: -1 } },
    ];
    const gate = spec.activation_gate as { checks: Record<string, unknown>[] };
    gate.checks[2] = { metric: 'self_weight_max', min: 1, max: 0 };
    gate.checks[3] = { metric: 'executed_rollouts_per_step' };
    const arms = spec.arms as Record<string, unknown>[];
    (arms[1] as Record<string, unknown>).advantage = 7;
    (arms[0] as Record<string, unknown>).group_size = 0;

    const problems = problemsOf(() => loadStudySpec(spec));
    expect(problems.map((p) => p.path)).toEqual([
      'decision_rule.alpha',
      'decision_rule.criteria[0].bounds',
      'decision_rule.criteria[1].weights.treatment',
      'activation_gate.checks[2]',
      'activation_gate.checks[3]',
      'arms[0].group_size',
      'arms[1].advantage',
    ]);
    expect(problems.find((p) => p.path === 'arms[1].advantage')?.message).toBe('must be an estimator name or an object {"name", parameters in snake_case}, got 7');
    expect(problems.find((p) => p.path === 'decision_rule.criteria[0].bounds')?.message).toBe(
      'must have lo < hi, got [1, 0]',
    );
  });

  it('puts every problem in the one message, and the first path in field', () => {
    const spec = specObject();
    (spec.decision_rule as Record<string, unknown>).method = 'bootstrap';
    (spec.arms as Record<string, unknown>[])[0] = { name: 'grpo_g8', advantage: 'ppo' };
    try {
      loadStudySpec(spec);
      expect.unreachable();
    } catch (error) {
      const e = error as StudySpecError;
      expect(e.message).toContain('2 problems');
      expect(e.message).toContain('decision_rule.method must be one of "paired_hoeffding", "paired_empirical_bernstein", "paired_exact_binomial"');
      expect(e.message).toContain('arms[0].advantage must name an estimator');
      expect(e.field).toBe('decision_rule.method');
      expect(e.problems).toHaveLength(2);
    }
  });

  it('reports missing sections by name', () => {
    const problems = problemsOf(() => loadStudySpec({ title: 'x' }));
    expect(problems).toEqual([
      { path: 'decision_rule', message: 'must be an object, got undefined' },
      { path: 'activation_gate', message: 'must be an object, got undefined' },
      { path: 'arms', message: 'must be a non-empty array of arms, got undefined' },
    ]);
  });

  it('rejects text that is not JSON and a spec that is not an object', () => {
    expect(problemsOf(() => loadStudySpec('{"arms": ['))[0]?.message).toMatch(/^spec is not valid JSON/);
    expect(problemsOf(() => loadStudySpec('[1, 2]'))[0]?.message).toBe('spec must be a JSON object, got an array');
    expect(problemsOf(() => loadStudySpec(null))[0]?.message).toBe('spec must be a JSON object, got null');
  });
});

describe('parseDecisionRule', () => {
  const rule = (over: Record<string, unknown> = {}) => ({ method: 'paired_hoeffding', alpha: 0.05, criteria: [criterion()], ...over });

  it('accepts a minimal rule and keeps extra criterion keys', () => {
    const parsed = parseDecisionRule(rule({ criteria: [{ ...criterion(), note: 'kept' }] }));
    expect(parsed.criteria[0]?.note).toBe('kept');
    expect(parsed.criteria[0]?.bounds).toEqual([0, 1]);
  });

  it('rejects alpha outside (0, 1), at both ends', () => {
    for (const alpha of [0, 1, -0.1, Number.NaN, '0.05']) {
      expect(problemsOf(() => parseDecisionRule(rule({ alpha }))).map((p) => p.path)).toEqual(['decision_rule.alpha']);
    }
  });

  it('rejects an empty criteria list, repeated ids, all-zero weights and a missing margin', () => {
    expect(problemsOf(() => parseDecisionRule(rule({ criteria: [] })))).toEqual([
      { path: 'decision_rule.criteria', message: 'must not be empty' },
    ]);
    expect(problemsOf(() => parseArms([]))).toEqual([{ path: 'arms', message: 'must not be empty' }]);
    const problems = problemsOf(() =>
      parseDecisionRule(
        rule({
          criteria: [
            criterion(),
            criterion(),
            { ...criterion(), id: 'b', weights: { treatment: 0, baseline: 0 } },
            { ...criterion(), id: 'c', margin: undefined },
          ],
        }),
      ),
    );
    expect(problems).toEqual([
      { path: 'decision_rule.criteria[1].id', message: '"primary" repeats the id of decision_rule.criteria[0]' },
      { path: 'decision_rule.criteria[2].weights', message: 'must not be all zero' },
      { path: 'decision_rule.criteria[3].margin', message: 'must be a finite number, got undefined' },
    ]);
  });

  it('rejects a direction other than the one docs/method.md section 5 defines, and another unit', () => {
    const problems = problemsOf(() =>
      parseDecisionRule(rule({ unit: 'seeds', criteria: [{ ...criterion(), direction: 'smaller_favors_treatment' }] })),
    );
    expect(problems.map((p) => p.path)).toEqual(['decision_rule.unit', 'decision_rule.criteria[0].direction']);
    expect(parseDecisionRule(rule({ criteria: [{ ...criterion(), direction: 'larger_favors_treatment' }] }))).toBeTruthy();
  });

  it('uses the given path prefix', () => {
    expect(problemsOf(() => parseDecisionRule(rule({ alpha: 2 }), ''))[0]?.path).toBe('alpha');
  });
});

describe('parseActivationGate', () => {
  it('treats a missing applicable as true and needs checks then', () => {
    expect(parseActivationGate({ checks: [{ metric: 'm', max: 1 }] }).applicable).toBe(true);
    expect(problemsOf(() => parseActivationGate({ checks: [] }))).toEqual([
      { path: 'activation_gate.checks', message: 'must not be empty when the gate is applicable' },
    ]);
    expect(parseActivationGate({ applicable: false, checks: [] })).toEqual({ applicable: false, checks: [] });
  });

  it('rejects checks without bounds, with min > max, without a metric, or with non-finite bounds', () => {
    const problems = problemsOf(() =>
      parseActivationGate({
        applicable: 'yes',
        checks: [{ metric: 'a' }, { metric: 'b', min: 2, max: 1 }, { min: 0 }, { metric: 'd', min: Number.POSITIVE_INFINITY }],
      }),
    );
    expect(problems.map((p) => p.path)).toEqual([
      'activation_gate.applicable',
      'activation_gate.checks[0]',
      'activation_gate.checks[1]',
      'activation_gate.checks[2].metric',
      'activation_gate.checks[3].min',
    ]);
  });
});

describe('parseArms', () => {
  it('accepts every estimator name of docs/method.md section 2', () => {
    const names = [
      'group_mean',
      'loo_batch_mean',
      'group_mean_std',
      'rloo',
      'kernel_loo',
      'length_bucket_loo',
      'tfidf_kernel_loo_T0.1',
      'tfidf_kernel_loo_T2',
      'tfidf_kernel_loo_T0.001',
    ];
    const arms = parseArms(names.map((advantage, i) => ({ name: `arm${i}`, advantage })));
    expect(arms.map((a) => a.advantage)).toEqual(names);
  });

  it('accepts an arm estimator as a wire object: advantage is its canonical name, advantageSpec the library spec', () => {
    const arms = parseArms([
      { name: 'gs1', advantage: { name: 'tfidf_kernel_loo', temperature: 0.1 } },
      { name: 'std', advantage: { name: 'group_mean_std', std_floor: 0.01 } },
      { name: 'k', advantage: { name: 'kernel_file', path: 'run/kernel.json' } },
    ]);
    expect(arms.map((a) => [a.advantage, a.advantageSpec])).toEqual([
      ['tfidf_kernel_loo_T0.1', { name: 'tfidf_kernel_loo', temperature: 0.1 }],
      ['group_mean_std', { name: 'group_mean_std', stdFloor: 0.01 }],
      ['kernel:run/kernel.json', { name: 'kernel_file', path: 'run/kernel.json' }],
    ]);
    expect(problemsOf(() => parseArms([{ name: 'a', advantage: { name: 'group_mean', normalise: 'batch' } }, { name: 'b', advantage: 'tfidf_kernel_loo_T01' }]))).toEqual([
      {
        path: 'arms[0].advantage',
        message: 'must be an estimator of docs/method.md section 2 as {"name", parameters in snake_case}: normalise is not an option of group_mean (did you mean "normalize"?); its options: normalize, epsilon, std_floor, singleton',
      },
      {
        path: 'arms[1].advantage',
        message:
          'must name an estimator of docs/method.md section 2 or a kernel file (kernel:PATH): estimator "tfidf_kernel_loo_T01": temperature "01" is not a decimal number in canonical form (no exponent, sign, leading or trailing zero); write tfidf_kernel_loo_T1 or tfidf_kernel_loo_T0.1',
      },
    ]);
  });

  it('accepts a kernel file as kernel:PATH (read when the study runs) and refuses kernel: without a path', () => {
    expect(parseArms([{ name: 'k', advantage: 'kernel:../run/kernel.json' }])[0]?.advantage).toBe('kernel:../run/kernel.json');
    expect(problemsOf(() => parseArms([{ name: 'k', advantage: 'kernel: ' }]))).toEqual([
      { path: 'arms[0].advantage', message: 'must name an estimator of docs/method.md section 2 or a kernel file (kernel:PATH): "kernel: " names no kernel file: write kernel:PATH, PATH relative to the spec file' },
    ]);
  });

  it('rejects unknown names, T = 0 and a missing T', () => {
    const problems = problemsOf(() =>
      parseArms([
        { name: 'a', advantage: 'tfidf_kernel_loo_T0' },
        { name: 'b', advantage: 'tfidf_kernel_loo_T' },
        { name: 'c', advantage: 'GROUP_MEAN' },
      ]),
    );
    expect(problems.map((p) => p.path)).toEqual(['arms[0].advantage', 'arms[1].advantage', 'arms[2].advantage']);
  });

  it('rejects repeated names, bad integers and lr, and rloo with groups of one', () => {
    const problems = problemsOf(() =>
      parseArms([
        { name: 'a', advantage: 'rloo', group_size: 1 },
        { name: 'a', advantage: 'group_mean', steps: 2.5, seed: -1, lr: 0 },
      ]),
    );
    expect(problems.map((p) => p.path)).toEqual([
      'arms[0].group_size',
      'arms[1].name',
      'arms[1].steps',
      'arms[1].seed',
      'arms[1].lr',
    ]);
  });

  it('accepts names that are one safe path part (up to 64 characters) and refuses the rest, naming arms[i].name', () => {
    const ok = ['a', 'grpo_g8', 'gs1_tfidf_g1', 'T0.1-arm', '0', `g${'1'.repeat(63)}`];
    expect(parseArms(ok.map((name) => ({ name, advantage: 'group_mean' }))).map((a) => a.name)).toEqual(ok);
    const bad = ['../../X', '..', '.', '.hidden', 'a/b', 'a\\b', '/abs', 'a b', 'é', 'a\u0000b', `g${'1'.repeat(64)}`];
    const problems = problemsOf(() => parseArms(bad.map((name) => ({ name, advantage: 'group_mean' }))));
    expect(problems.map((p) => p.path)).toEqual(bad.map((_, i) => `arms[${i}].name`));
    expect(problems[0]?.message).toBe('must be a safe name: 1 to 64 characters of A-Z a-z 0-9 _ - ., not starting with "." (it names a folder or file of the run), got "../../X"');
    expect(problems.at(-1)?.message).toMatch(/^must be at most 64 characters \(.*\), got 65$/);
  });
});

describe('the shipped specs still load', () => {
  it('every specs/*.json', () => {
    const dir = path.join(repoRoot, 'specs');
    const files = readdirSync(dir).filter((f) => f.endsWith('.json'));
    expect(files.length).toBeGreaterThanOrEqual(3);
    for (const f of files) expect(loadStudySpec(readFileSync(path.join(dir, f), 'utf8')).arms.length, f).toBeGreaterThanOrEqual(2);
  });
});
