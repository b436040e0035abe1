// rl-adv study with kernel arms (docs/study.md, "Kernel arms"): the bad inputs refused before any work, exit 2 naming
// the field (through the built CLI; `npm run build` first), the run folder never created.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot, specPath } from '../helpers/paths.js';

const cli = path.join(repoRoot, 'dist', 'cli.js');
const kernelsSpec = path.join(repoRoot, 'specs', 'arith-kernels.json');

function refused(spec: object, backend: string): { code: number | null; stderr: string; out: string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'rl-adv-kernel-arms-cli-'));
  const file = path.join(dir, 'spec.json');
  writeFileSync(file, JSON.stringify(spec, null, 2));
  const out = path.join(dir, 'run');
  // A --python that cannot start: the spec is refused before the TRL backend is probed.
  const python = backend === 'trl' ? ['--python', path.join(dir, 'no-python')] : [];
  const r = spawnSync(process.execPath, [cli, 'study', '--backend', backend, '--spec', file, '--out', out, ...python], { encoding: 'utf8' });
  return { code: r.status, stderr: r.stderr, out };
}

describe('rl-adv study: kernel arms refused before any work', () => {
  const arith = JSON.parse(readFileSync(kernelsSpec, 'utf8')) as Record<string, unknown> & { arms: Record<string, unknown>[] };

  it('a tuned-kernel arm without the spec’s tuning phase: exit 2 naming arms[3].advantage', () => {
    const spec = { ...arith };
    delete spec.tuning;
    const r = refused(spec, 'sim');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/spec\.json:\d+: field "arms\[3\]\.advantage": "tuned_kernel" needs the spec's tuning phase/);
    expect(existsSync(r.out)).toBe(false);
  });

  it('an oracle kernel on a world without cells (GSM8K, on the sim and the trl backends): exit 2 naming the arm', () => {
    const gsm8k = JSON.parse(readFileSync(specPath, 'utf8')) as { arms: Record<string, unknown>[] };
    gsm8k.arms[1] = { ...gsm8k.arms[1], advantage: 'oracle_cell_kernel' };
    for (const backend of ['sim', 'trl']) {
      const r = refused(gsm8k, backend);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/field "arms\[1\]\.advantage": "oracle_cell_kernel" needs a world with difficulty cells \(dataset\.name "arith"\)/);
      expect(existsSync(r.out)).toBe(false);
    }
  });

  it('a kernel file that does not exist: exit 2 naming the arm and the file', () => {
    const spec = { ...arith, arms: arith.arms.map((a, i) => (i === 3 ? { ...a, advantage: 'kernel:nowhere.json' } : a)) };
    const r = refused(spec, 'sim');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/spec field "arms\[3\]\.advantage" \(PATH relative to the spec file\): .*nowhere\.json/);
    expect(existsSync(r.out)).toBe(false);
  });
});
