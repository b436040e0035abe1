// rl-adv plan end to end: the spec's half-width 0.0748 and the +0.025 it takes to validate (docs/method.md section 5).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { rlAdv, specPath, tempDir, writeJsonl } from '../run.js';

describe('rl-adv plan', () => {
  it('for the spec (n = eval.n_examples = 1319): half-width 0.0748, validates above about +0.025', async () => {
    const run = await rlAdv(['plan', '--spec', specPath, '--json']);
    expect(run.code).toBe(0);
    const plan = JSON.parse(run.stdout) as { n: number; criteria: Record<string, number | boolean | string>[] };
    expect(plan.n).toBe(1319);
    // R = (|1| + |-1|) * (1 - 0) = 2; h = R * sqrt(ln(2 / 0.05) / (2 * 1319)) (docs/method.md section 5).
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
    const text = await rlAdv(['plan', '--spec', specPath]);
    expect(text.stdout).toMatch(/half-width 0\.0748 \(wider than the margin 0\.05\); validates only if the observed mean difference is above \+0\.0248/);
  });

  it('without --spec, plan, decide and gate read the shipped spec (what rl-adv study runs)', async () => {
    expect((await rlAdv(['plan', '--json'])).stdout).toBe((await rlAdv(['plan', '--spec', specPath, '--json'])).stdout);
    for (const command of ['decide', 'gate']) {
      expect((await rlAdv([command, '--help'])).stdout).toMatch(/--spec <file>\s+the study spec \(JSON; default: the shipped\s+specs\/gs1-vs-grpo\.json\)/);
    }
  });

  it('--n overrides; a tiny n can never validate', async () => {
    const run = await rlAdv(['plan', '--spec', specPath, '--n', '3', '--json']);
    const c = (JSON.parse(run.stdout) as { criteria: { half_width: number; can_validate: boolean }[] }).criteria[0];
    expect(c?.half_width).toBeCloseTo(2 * Math.sqrt(Math.log(40) / 6), 15);
    expect(c?.can_validate).toBe(false);
    expect((await rlAdv(['plan', '--spec', specPath, '--n', '3'])).stdout).toMatch(/can never validate/);
  });

  it('bad usage exits 2', async () => {
    let run = await rlAdv(['plan', '--spec', specPath, '--n', 'many']);
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
    run = await rlAdv(['plan', '--spec', noEval]);
    expect([run.code, run.stderr]).toEqual([2, expect.stringMatching(/has no eval\.n_examples: give the number of paired items with --n N/)]);
    expect((await rlAdv(['plan', '--spec', noEval, '--n', '100'])).code).toBe(0);
  });
});

interface PlanPowerJson {
  power_criterion: string;
  discordance: { value: number; source: string };
  thresholds: { method: string; discordant: number; validates_at: number | null; fails_at: number | null }[];
  power: { method: string; difference: number; p_validated: number; p_failed: number }[];
  n_for_80_percent_power: Record<string, number | null>;
}

describe('rl-adv plan: power (docs/method.md section 5.6)', () => {
  it('for the spec at the assumed D = 0.2: Hoeffding validates equal arms with probability 0.023; the other methods do better', async () => {
    const run = await rlAdv(['plan', '--spec', specPath, '--json']);
    const plan = JSON.parse(run.stdout) as PlanPowerJson;
    expect(plan.discordance).toEqual({ value: 0.2, source: 'assumed' });
    expect(plan.power).toHaveLength(66);
    expect(Object.keys(plan.power[0] ?? {})).toEqual(['method', 'difference', 'p_validated', 'p_failed']);
    const at0 = (m: string): number => plan.power.find((r) => r.method === m && r.difference === 0)?.p_validated ?? NaN;
    expect(Math.abs(at0('paired_hoeffding') - 0.023)).toBeLessThanOrEqual(0.005);
    expect(at0('paired_empirical_bernstein')).toBeGreaterThan(at0('paired_hoeffding'));
    expect(at0('paired_exact_binomial')).toBeGreaterThan(at0('paired_empirical_bernstein'));
    const n80 = plan.n_for_80_percent_power;
    expect(Object.keys(n80)).toEqual(['paired_hoeffding', 'paired_empirical_bernstein', 'paired_exact_binomial', 'paired_exact_unconditional', 'paired_tango', 'paired_newcombe']);
    expect(n80.paired_exact_binomial as number).toBeLessThan(n80.paired_hoeffding as number);
    // The targets for the exact unconditional method: P(validated | equal) >= 0.97, n for 80% <= 700.
    expect(at0('paired_exact_unconditional')).toBeGreaterThanOrEqual(0.97);
    expect(n80.paired_exact_unconditional as number).toBeLessThanOrEqual(700);
    const text = (await rlAdv(['plan', '--spec', specPath])).stdout;
    expect(text).toMatch(/discordance D = 0\.2 \(assumed: give --discordance D or --pilot T\.jsonl,B\.jsonl\)/);
    expect(text).toMatch(/\n0\s+0\.0227 \/ 0\.0000\s+0\.4371 \/ 0\.0000\s+0\.9083 \/ 0\.0000\s+0\.9810 \/ 0\.0000\s+0\.9814 \/ 0\.0000\s+0\.9820 \/ 0\.0000\n/);
    // The asymptotic methods carry their lowest measured coverage beside their names (docs/method.md section 5.7).
    expect(text).toMatch(/paired_tango: asymptotic: lowest measured coverage 0\.835 at n = 10 \(docs\/method\.md section 5\.7\), its coverage is not guaranteed/);
    expect(text).toMatch(/paired_newcombe: asymptotic: lowest measured coverage 0\.835 at n = 10 \(docs\/method\.md section 5\.7\)/);
    expect(text).toMatch(/control accuracy 0\.5 \(assumed: give --control-accuracy P; paired_newcombe only\)/);
    expect(plan).toMatchObject({ control_accuracy: { value: 0.5, source: 'assumed' } });
    expect(text).toMatch(/paired_exact_unconditional: each end misses with probability <= alpha\/\(2k\) whatever D; its lowest coverage, enumerated over delta and D/);
    expect(text).toMatch(/scope: each arm is one training run.*decision_rule\.seeds lists one seed \(0\)/);
  });

  it('--method M: that method only; --discordance D is used as given', async () => {
    const plan = JSON.parse((await rlAdv(['plan', '--spec', specPath, '--method', 'paired_exact_binomial', '--discordance', '0.1', '--json'])).stdout) as PlanPowerJson;
    expect(new Set(plan.power.map((r) => r.method))).toEqual(new Set(['paired_exact_binomial']));
    expect(plan.discordance).toEqual({ value: 0.1, source: 'given' });
    expect(plan.thresholds[0]?.discordant).toBe(132);
  });

  it('--control-accuracy P: paired_newcombe\'s power at that control accuracy; refused outside [0, 1] or where no 2x2 table has it', async () => {
    const args = ['plan', '--spec', specPath, '--method', 'paired_newcombe', '--json'];
    const plan = JSON.parse((await rlAdv([...args, '--control-accuracy', '0.8'])).stdout) as PlanPowerJson & { control_accuracy: unknown };
    expect(plan.control_accuracy).toEqual({ value: 0.8, source: 'given' });
    const at0 = plan.power.find((r) => r.difference === 0)?.p_validated ?? NaN;
    expect(at0).toBeGreaterThan(0.97);
    // p2 = 0.88 at D = 0.2: p11 = 0.78 + delta/2 <= 0.8 leaves out delta = +0.05 only.
    const cut = JSON.parse((await rlAdv([...args, '--control-accuracy', '0.88'])).stdout) as PlanPowerJson;
    expect(cut.power.map((r) => r.difference)).toEqual([-0.05, -0.04, -0.03, -0.02, -0.01, 0, 0.01, 0.02, 0.03, 0.04]);
    const bad = await rlAdv([...args, '--control-accuracy', '1.2']);
    expect([bad.code, bad.stderr]).toEqual([2, expect.stringMatching(/--control-accuracy.*must be a number in \[0, 1\]/)]);
    const impossible = await rlAdv([...args, '--control-accuracy', '0.95']);
    expect([impossible.code, impossible.stderr]).toEqual([2, expect.stringMatching(/--control-accuracy 0\.95: is impossible with discordance 0\.2 and difference 0: it must lie in \[0\.1, 0\.9\]/)]);
  });

  it('--pilot T,B estimates D from two per-item files', async () => {
    const dir = tempDir();
    // 10 items, the arms disagree on 3: D = 0.3.
    const t = writeJsonl(dir, 't.jsonl', [1, 1, 1, 0, 0, 1, 1, 0, 0, 1].map((c, i) => ({ item_id: i, correct: c === 1 })));
    const b = writeJsonl(dir, 'b.jsonl', [1, 0, 1, 1, 0, 1, 0, 0, 0, 1].map((c, i) => ({ item_id: i, correct: c === 1 })));
    const plan = JSON.parse((await rlAdv(['plan', '--spec', specPath, '--pilot', `${t},${b}`, '--method', 'paired_hoeffding', '--json'])).stdout) as PlanPowerJson;
    expect(plan.discordance).toEqual({ value: 0.3, source: 'pilot' });
    const same = writeJsonl(dir, 's.jsonl', [1, 1, 1, 0, 0, 1, 1, 0, 0, 1].map((c, i) => ({ item_id: i, correct: c === 1 })));
    const run = await rlAdv(['plan', '--spec', specPath, '--pilot', `${t},${same}`]);
    expect([run.code, run.stderr]).toEqual([2, expect.stringMatching(/--pilot: the two files agree on all 10 items \(D = 0\)/)]);
    const both = await rlAdv(['plan', '--spec', specPath, '--pilot', `${t},${b}`, '--discordance', '0.2']);
    expect([both.code, both.stderr]).toEqual([2, expect.stringMatching(/give --discordance D or --pilot T\.jsonl,B\.jsonl, not both/)]);
    const one = await rlAdv(['plan', '--spec', specPath, '--pilot', t]);
    expect([one.code, one.stderr]).toEqual([2, expect.stringMatching(/must be two files, TREATMENT\.jsonl,BASELINE\.jsonl/)]);
  });

  it('a margin of 0 is worded as superiority, not "wider than the margin 0"', async () => {
    const dir = tempDir();
    const spec = JSON.parse(readFileSync(specPath, 'utf8')) as { decision_rule: { criteria: { margin: number }[] } };
    (spec.decision_rule.criteria[0] as { margin: number }).margin = 0;
    const file = join(dir, 'spec0.json');
    writeFileSync(file, JSON.stringify(spec));
    const run = await rlAdv(['plan', '--spec', file, '--method', 'paired_hoeffding']);
    expect(run.stdout).not.toMatch(/wider than the margin 0\b/);
    expect(run.stdout).toMatch(/the margin 0 asks for superiority/);
    expect(run.stdout).toMatch(/paired_hoeffding\s+\S+\s+\S+\s+not below 100000/);
  });

  it('--html writes the power page: an <svg>, no <script>', async () => {
    const out = join(tempDir(), 'power.html');
    const run = await rlAdv(['plan', '--spec', specPath, '--html', out]);
    expect(run.code).toBe(0);
    const html = readFileSync(out, 'utf8');
    expect(html).toContain('<svg');
    expect(html).not.toMatch(/<script/i);
    expect(html).toContain('What this design can conclude');
  });
});
