// rl-adv plan --seeds on a spec with decision_rule.comparisons: each comparison's power at alpha / K, equal to
// seedDesignPower on its own one-criterion rule; bad flags exit 2 naming the flag.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { seedDesignPower } from '../../../src/stats/seed-power.js';
import { comparisonRule } from '../../../src/study/comparisons.js';
import { loadStudySpec } from '../../../src/study/spec.js';
import { repoRoot } from '../../helpers/paths.js';
import { rlAdv, specPath, tempDir } from '../run.js';

const ablation = path.join(repoRoot, 'specs', 'arith-ablation.json');

describe('rl-adv plan --seeds over a K-arm design', () => {
  it('gives each comparison its power at alpha / K (Bonferroni, a lower bound for Holm), as seedDesignPower does', async () => {
    const args = ['plan', '--spec', ablation, '--seeds', '5', '--between-seed-sd', '0.02', '--comparison-effect', 'gs1_vs_batchmean=0.02', '--json'];
    const run = await rlAdv(args);
    expect(run.code, run.stderr).toBe(0);
    const out = JSON.parse(run.stdout) as { procedure: string; comparisons: { id: string; effect: number; alpha: number; p_validated: number; n_for_80_percent_power: number | null }[] };
    expect(out.procedure).toBe('holm');
    const spec = loadStudySpec(readFileSync(ablation, 'utf8'));
    expect(out.comparisons.map((c) => [c.id, c.effect, c.alpha])).toEqual([
      ['gs1_vs_grpo', 0, 0.05 / 3],
      ['batchmean_vs_grpo', 0, 0.05 / 3],
      ['gs1_vs_batchmean', 0.02, 0.05 / 3],
    ]);
    for (const [i, c] of out.comparisons.entries()) {
      const p = seedDesignPower({
        rule: comparisonRule(spec.decisionRule, spec.comparisons?.[i] as never, 0.05 / 3),
        seeds: 5,
        n: 1000,
        effect: c.effect,
        seedSd: 0.02,
        discordance: { value: 0.2, source: 'assumed' },
      });
      expect([c.p_validated, c.n_for_80_percent_power]).toEqual([p?.p_validated, p?.n_for_80_percent_power]);
    }
    const text = await rlAdv(args.slice(0, -1));
    expect(text.stdout).toContain("family-wise alpha 0.05 by Holm's step-down");
    expect(text.stdout).toContain('gs1_vs_batchmean');
  });

  it('refuses an effect for an unknown comparison, a malformed one, and one without --seeds (exit 2)', async () => {
    const unknown = await rlAdv(['plan', '--spec', ablation, '--seeds', '5', '--between-seed-sd', '0.02', '--comparison-effect', 'nope=0.1']);
    expect([unknown.code, unknown.stderr]).toEqual([2, expect.stringContaining('--comparison-effect nope: no comparison') as string]);
    const bad = await rlAdv(['plan', '--spec', ablation, '--seeds', '5', '--between-seed-sd', '0.02', '--comparison-effect', 'gs1_vs_grpo']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--comparison-effect');
    const stray = await rlAdv(['plan', '--spec', ablation, '--comparison-effect', 'gs1_vs_grpo=0']);
    expect([stray.code, stray.stderr]).toEqual([2, expect.stringContaining('--comparison-effect needs --seeds S') as string]);
  });

  it('--from-decision reads a K-arm decision.json: each comparison planned at its own run-to-run SD and item SD, seeds from the file', async () => {
    const dir = tempDir();
    // What a K-arm study with 4 seeds writes to decision.json (the fields plan reads; the rest as the study has them).
    const sds = { gs1_vs_grpo: [0.01, 0], batchmean_vs_grpo: [0.02, 0.05], gs1_vs_batchmean: [0.03, 0] } as const;
    const decision = {
      comparisons: Object.entries(sds).map(([id, [sd, item]]) => ({ id, seeds: 4, n: 200, verdict: 'inconclusive', run_to_run_sd: sd, item_component_sd: item })),
      multiplicity: { procedure: 'holm', alpha: 0.05, comparisons: 3 },
    };
    const file = path.join(dir, 'decision.json');
    writeFileSync(file, JSON.stringify(decision));
    const run = await rlAdv(['plan', '--spec', ablation, '--from-decision', file, '--json']);
    expect(run.code, run.stderr).toBe(0);
    const out = JSON.parse(run.stdout) as { seeds: number; comparisons: { id: string; seed_sd: number; item_sd: number; p_validated: number }[] };
    expect(out.seeds).toBe(4);
    const spec = loadStudySpec(readFileSync(ablation, 'utf8'));
    for (const [i, c] of out.comparisons.entries()) {
      const [sd, item] = sds[c.id as keyof typeof sds];
      expect([c.seed_sd, c.item_sd]).toEqual([sd, item]);
      const p = seedDesignPower({ rule: comparisonRule(spec.decisionRule, spec.comparisons?.[i] as never, 0.05 / 3), seeds: 4, n: 1000, effect: 0, seedSd: sd, itemSd: item, discordance: { value: 0.2, source: 'assumed' } });
      expect(c.p_validated).toBe(p?.p_validated);
    }
    const text = await rlAdv(['plan', '--spec', ablation, '--from-decision', file]);
    expect(text.stdout).toContain("each comparison's own between-seed SD");

    // A two-arm spec, a one-seed K-arm decision, a decision without one of the spec's comparisons: exit 2, named.
    const twoArm = await rlAdv(['plan', '--spec', specPath, '--from-decision', file]);
    expect([twoArm.code, twoArm.stderr]).toEqual([2, expect.stringContaining('a K-arm decision') as string]);
    const one = path.join(dir, 'one-seed.json');
    writeFileSync(one, JSON.stringify({ comparisons: [{ id: 'gs1_vs_grpo', seeds: 1, n: 200 }] }));
    const oneRun = await rlAdv(['plan', '--spec', ablation, '--from-decision', one, '--seeds', '3']);
    expect([oneRun.code, oneRun.stderr]).toEqual([2, expect.stringContaining('comparisons[0] has no run_to_run_sd') as string]);
    const fewer = path.join(dir, 'fewer.json');
    writeFileSync(fewer, JSON.stringify({ comparisons: decision.comparisons.slice(0, 2) }));
    const fewerRun = await rlAdv(['plan', '--spec', ablation, '--from-decision', fewer]);
    expect([fewerRun.code, fewerRun.stderr]).toEqual([2, expect.stringContaining('the decision has no comparison "gs1_vs_batchmean"') as string]);
  });
});
