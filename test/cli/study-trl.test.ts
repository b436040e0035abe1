// rl-adv study --backend trl: what it refuses before any work (through the built CLI). The real training runs in
// python/tests/test_trl_study.py (CI's Python step, with TRL installed).
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { repoRoot, specPath } from '../helpers/paths.js';

const cli = path.join(repoRoot, 'dist', 'cli.js');
const arithSpec = path.join(repoRoot, 'specs', 'arith-gs1-vs-grpo.json');
const temp = (): string => mkdtempSync(path.join(tmpdir(), 'rl-adv-study-trl-'));

function study(args: readonly string[], env: NodeJS.ProcessEnv = {}): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [cli, 'study', ...args], { encoding: 'utf8', env: { ...process.env, ...env } });
  if (r.error) throw r.error;
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A stand-in interpreter whose `-m rl_advantages.study probe` reports `missing` (exit 2 when any). */
function fakePython(dir: string, missing: readonly string[]): string {
  const file = path.join(dir, 'python');
  writeFileSync(file, `#!/bin/sh\necho '${JSON.stringify({ missing })}'\nexit ${missing.length > 0 ? 2 : 0}\n`);
  chmodSync(file, 0o755);
  return file;
}

/** The Python of the real probe: RL_ADV_PYTHON, when it has the drivers and TRL. */
function realPython(): string | undefined {
  const candidate = process.env.RL_ADV_PYTHON;
  if (candidate === undefined || !existsSync(candidate)) return undefined;
  return spawnSync(candidate, ['-c', 'import rl_advantages.study, torch, trl'], { encoding: 'utf8' }).status === 0 ? candidate : undefined;
}

beforeAll(() => {
  for (let attempt = 0; ; attempt++) {
    try {
      execFileSync('npx', ['tsup', '--silent'], { cwd: repoRoot, stdio: 'pipe' });
      break;
    } catch (error) {
      if (attempt >= 2) throw error;
    }
  }
}, 180_000);

describe('rl-adv study --backend trl refuses before any work', () => {
  it('names everything the spec needs that the machine lacks, in one message, and leaves no folder (exit 2)', () => {
    const dir = temp();
    const out = path.join(dir, 'run');
    const python = fakePython(dir, ['a GPU (torch.cuda.is_available() is False)', 'the weights of Qwen/Qwen3.5-2B']);
    const r = study(['--backend', 'trl', '--spec', specPath, '--out', out, '--python', python]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toEqual([
      'rl-adv: --backend trl: this machine cannot run gs1-vs-grpo.json: missing a GPU (torch.cuda.is_available() is False); the weights of Qwen/Qwen3.5-2B',
    ]);
    expect(existsSync(out)).toBe(false);
  });

  it('says how to point it at a Python when the one given cannot run, and when it lacks the drivers', () => {
    const dir = temp();
    const missing = study(['--backend', 'trl', '--spec', arithSpec, '--out', path.join(dir, 'run'), '--python', path.join(dir, 'no-python')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^rl-adv: --backend trl: cannot run Python \(".*no-python"\): .*pass --python or set RL_ADV_PYTHON/);
    const broken = path.join(dir, 'broken');
    writeFileSync(broken, '#!/bin/sh\necho "No module named rl_advantages" >&2\nexit 1\n');
    chmodSync(broken, 0o755);
    const r = study(['--backend', 'trl', '--spec', arithSpec, '--out', path.join(dir, 'run')], { RL_ADV_PYTHON: broken });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/-m rl_advantages\.study does not run \(No module named rl_advantages\); install the package/);
    expect(readdirSync(dir).sort()).toEqual(['broken']);
  });

  it('refuses the trl options with another backend, and the sim options with trl', () => {
    const out = path.join(temp(), 'run');
    expect(study(['--out', out, '--python', 'python3']).stderr).toMatch(/--python applies to --backend trl only/);
    expect(study(['--out', out, '--backend', 'tinker', '--model', 'm']).stderr).toMatch(/--model applies to --backend trl only/);
    expect(study(['--spec', arithSpec, '--out', out, '--backend', 'trl', '--sim-coupling', '0.5']).stderr).toMatch(/--sim-coupling applies to --backend sim only/);
    expect(existsSync(out)).toBe(false);
  });

  // .ci/run runs this file again after its Python step with RL_ADV_REQUIRE_TRL_PROBE=1 and RL_ADV_PYTHON set to the
  // venv it built from the wheel: there the real probe must run, never skip.
  const requireProbe = process.env.RL_ADV_REQUIRE_TRL_PROBE === '1';
  it.skipIf(!requireProbe && realPython() === undefined)('with the real probe on this CPU machine, the GSM8K spec stops at once naming the GPU and the uncached weights', () => {
    const python = realPython();
    if (python === undefined) throw new Error('RL_ADV_REQUIRE_TRL_PROBE=1 but RL_ADV_PYTHON does not import rl_advantages.study, torch and trl');
    const out = path.join(temp(), 'run');
    const started = performance.now();
    const r = study(['--backend', 'trl', '--spec', specPath, '--out', out, '--python', python], { HF_HUB_OFFLINE: '1' });
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(
      /^rl-adv: --backend trl: this machine cannot run gs1-vs-grpo\.json: missing a GPU for "dtype": "bfloat16" .*the weights of Qwen\/Qwen3\.5-2B in the Hugging Face cache \(.*HF_HUB_OFFLINE=1 forbids downloading them\)/,
    );
    expect(existsSync(out)).toBe(false);
    // Before any work: the probe imports torch only (seconds on a quiet machine; the bound allows a loaded one).
    expect(performance.now() - started).toBeLessThan(120_000);
  }, 180_000);
});
