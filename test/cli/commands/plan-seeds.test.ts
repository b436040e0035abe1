// rl-adv plan --seeds: the seed-level power, equal to seedDesignPower; its flags' errors name the flag (exit 2).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { seedDesignPower } from '../../../src/stats/index.js';
import { loadStudySpec } from '../../../src/study/spec.js';
import { rlAdv, specPath } from '../run.js';

const rule = () => loadStudySpec(JSON.parse(readFileSync(specPath, 'utf8'))).decisionRule;

describe('rl-adv plan --seeds', () => {
  it('--json equals seedDesignPower at the same design (n from the spec)', async () => {
    const run = await rlAdv(['plan', '--spec', specPath, '--seeds', '4', '--between-seed-sd', '0.01', '--effect', '0.02', '--control-accuracy', '0.6', '--json']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const lib = seedDesignPower({
      rule: rule(),
      seeds: 4,
      n: 1319,
      effect: 0.02,
      seedSd: 0.01,
      discordance: { value: 0.2, source: 'assumed' },
      controlAccuracy: { value: 0.6, source: 'given' },
      frontier: true,
    });
    expect(JSON.parse(run.stdout)).toEqual(lib);
  });

  it('the readable form gives the power with its error and the n per number of seeds', async () => {
    const run = await rlAdv(['plan', '--spec', specPath, '--seeds', '3', '--between-seed-sd', '0.02', '--n', '1000', '--seed-method', 'seed_t']);
    expect(run.code).toBe(0);
    const lib = seedDesignPower({ rule: rule(), seeds: 3, n: 1000, effect: 0, seedSd: 0.02, method: 'seed_t', discordance: { value: 0.2, source: 'assumed' }, frontier: true });
    expect(run.stdout).toContain(`P(validated) = ${lib?.p_validated.toFixed(4)} ± ${lib?.mc_error.p_validated.toFixed(4)}`);
    expect(run.stdout).toContain('seed-level power (seed_t)');
    expect(run.stdout).toMatch(/^10\s+\d+$/m);
  });

  it.each([
    [['--seeds', '3'], '--seeds needs --between-seed-sd X'],
    [['--between-seed-sd', '0.01'], '--between-seed-sd needs --seeds S'],
    [['--seeds', '1', '--between-seed-sd', '0.01'], "option '--seeds <S>' argument '1' is invalid"],
    [['--seeds', '3', '--between-seed-sd', '-1'], "option '--between-seed-sd <x>' argument '-1' is invalid"],
    [['--seeds', '3', '--between-seed-sd', '0.01', '--method', 'paired_hoeffding'], 'with --seeds use --seed-method'],
    [['--seeds', '3', '--between-seed-sd', '0.5'], '--discordance: discordance 0.2 leaves no run-by-item noise'],
    [['--seeds', '3', '--between-seed-sd', '0.01', '--effect', '0.5'], '--control-accuracy: controlAccuracy 0.5 with effect 0.5'],
  ])('%j: exit 2, %s', async (args, message) => {
    const run = await rlAdv(['plan', '--spec', specPath, ...args]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(message);
  });
});

describe('rl-adv plan --from-decision', () => {
  it("takes a decision's run-to-run SD, item SD and seed count; a study's decision.json too; refuses both SDs and a file without one", async () => {
    const { mkdtempSync, writeFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const dir = mkdtempSync(join(tmpdir(), 'from-decision-'));
    const decision = { seeds: 4, run_to_run_sd: 0.013, per_seed_difference_sd: 0.02, item_component_sd: 0.05 };
    writeFileSync(join(dir, 'd.json'), JSON.stringify(decision));
    writeFileSync(join(dir, 'study.json'), JSON.stringify({ decision }));
    writeFileSync(join(dir, 'none.json'), JSON.stringify({ seeds: 4, per_seed_difference_sd: 0.02 }));
    const lib = seedDesignPower({ rule: rule(), seeds: 4, n: 1319, effect: 0, seedSd: 0.013, itemSd: 0.05, discordance: { value: 0.2, source: 'assumed' }, frontier: true });
    for (const f of ['d.json', 'study.json']) {
      const run = await rlAdv(['plan', '--spec', specPath, '--from-decision', join(dir, f), '--json']);
      expect(run.stderr).toBe('');
      expect(JSON.parse(run.stdout)).toEqual(lib);
    }
    const both = await rlAdv(['plan', '--spec', specPath, '--from-decision', join(dir, 'd.json'), '--between-seed-sd', '0.01']);
    expect([both.code, both.stderr]).toEqual([2, expect.stringContaining('not both')]);
    const none = await rlAdv(['plan', '--spec', specPath, '--from-decision', join(dir, 'none.json')]);
    expect([none.code, none.stderr]).toEqual([2, expect.stringContaining('no run_to_run_sd')]);
  });
});
