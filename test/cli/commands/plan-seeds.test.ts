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
