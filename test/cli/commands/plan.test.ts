// rl-adv plan end to end: the spec's half-width 0.0748 and the +0.025 it takes to validate (METHOD section 5).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { rlAdv, specPath, tempDir } from '../run.js';

describe('rl-adv plan', () => {
  it('for the spec (n = eval.n_examples = 1319): half-width 0.0748, validates above about +0.025', () => {
    const run = rlAdv(['plan', '--spec', specPath, '--json']);
    expect(run.code).toBe(0);
    const plan = JSON.parse(run.stdout) as { n: number; criteria: Record<string, number | boolean | string>[] };
    expect(plan.n).toBe(1319);
    // R = (|1| + |-1|) * (1 - 0) = 2; h = R * sqrt(ln(2 / 0.05) / (2 * 1319)) (METHOD section 5).
    const h = 2 * Math.sqrt(Math.log(2 / 0.05) / (2 * 1319));
    expect(plan.criteria[0]).toEqual({
      id: 'primary',
      metric: 'accuracy',
      margin: -0.05,
      range: 2,
      half_width: h,
      validates_above: -0.05 + h,
      fails_below: -0.05 - h,
      can_validate: true,
      can_fail: true,
    });
    expect(h.toFixed(4)).toBe('0.0748');
    expect((-0.05 + h).toFixed(3)).toBe('0.025');
    const text = rlAdv(['plan', '--spec', specPath]);
    expect(text.stdout).toMatch(/half-width 0\.0748 \(wider than the margin 0\.05\); validates only if the observed mean difference is above \+0\.0248/);
  });

  it('--n overrides; a tiny n can never validate', () => {
    const run = rlAdv(['plan', '--spec', specPath, '--n', '3', '--json']);
    const c = (JSON.parse(run.stdout) as { criteria: { half_width: number; can_validate: boolean }[] }).criteria[0];
    expect(c?.half_width).toBeCloseTo(2 * Math.sqrt(Math.log(40) / 6), 15);
    expect(c?.can_validate).toBe(false);
    expect(rlAdv(['plan', '--spec', specPath, '--n', '3']).stdout).toMatch(/can never validate/);
  });

  it('bad usage exits 2', () => {
    let run = rlAdv(['plan', '--spec', specPath, '--n', 'many']);
    expect([run.code, run.stderr]).toEqual([2, expect.stringMatching(/option '--n <n>' argument 'many' is invalid\. must be an integer >= 1/)]);
    const dir = tempDir();
    const noEval = join(dir, 'spec.json');
    writeFileSync(
      noEval,
      JSON.stringify({
        decision_rule: { method: 'paired_hoeffding', alpha: 0.05, criteria: [{ id: 'p', metric: 'accuracy', bounds: [0, 1], margin: 0, weights: { treatment: 1, baseline: -1 } }] },
        activation_gate: { checks: [{ metric: 'm', min: 0 }] },
        arms: [{ name: 'a', advantage: 'group_mean' }],
      }),
    );
    run = rlAdv(['plan', '--spec', noEval]);
    expect([run.code, run.stderr]).toEqual([2, expect.stringMatching(/has no eval\.n_examples: give the number of paired items with --n N/)]);
    expect(rlAdv(['plan', '--spec', noEval, '--n', '100']).code).toBe(0);
  });
});
