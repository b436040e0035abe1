// rl-adv plan --seeds on a spec with decision_rule.comparisons: each comparison's power at alpha / K, equal to
// seedDesignPower on its own one-criterion rule; bad flags exit 2 naming the flag.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { seedDesignPower } from '../../../src/stats/seed-power.js';
import { comparisonRule } from '../../../src/study/comparisons.js';
import { loadStudySpec } from '../../../src/study/spec.js';
import { repoRoot } from '../../helpers/paths.js';
import { rlAdv } from '../run.js';

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
});
