// `rl-adv study` under faults, through the built CLI: a disk that fills up in the middle of the arms (a real small
// tmpfs; skipped, saying why, where mounting is not permitted) stops the run with exit 74 and one line naming the file
// and the remedy, leaves no torn file and no temporary, and --resume once space is back ends with the uninterrupted
// run's bytes; a truncated run.json or state.json on --resume is named (exit 2), never a stack trace.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { mountTmpfs, type Tmpfs } from '../helpers/tmpfs.js';
import { repoRoot, specPath } from '../helpers/paths.js';

const cli = path.join(repoRoot, 'dist', 'cli.js');
const temp = (): string => mkdtempSync(path.join(tmpdir(), 'rl-adv-study-faults-'));

function study(args: readonly string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [cli, 'study', ...args], { encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const quick = (out: string): string[] => [
  '--spec', specPath, '--out', out, '--sim-questions', 'clustered', '--sim-coupling', '0.9', '--steps', '20', '--eval-limit', '50',
  '--calibration-batches', '200', '--calibration-interval', 'none', '--jobs', '2',
];

const files = (dir: string): string[] => (readdirSync(dir, { recursive: true }) as string[]).filter((f) => /\.(json|jsonl)$/.test(f) && f !== 'summary.json').sort();
const leftovers = (dir: string): string[] => (readdirSync(dir, { recursive: true }) as string[]).filter((f) => /\.rl-adv-tmp-|\.rl-adv\.lock/.test(f));

const whole = path.join(temp(), 'whole');

describe('a truncated run file on --resume', () => {
  it('the uninterrupted run', () => {
    expect(study(quick(whole)).code).toBe(0);
  });

  for (const file of ['run.json', path.join('arms', 'gs1_tfidf_g1', 'state.json')]) {
    it(`${file}: exit 2, one line naming it, no stack trace`, () => {
      const dir = path.join(temp(), 'run');
      expect(study(quick(dir)).code).toBe(0);
      const full = path.join(dir, file);
      writeFileSync(full, readFileSync(full).subarray(0, 40));
      // A finished run resumes without reading state.json: mark the arms phase undone so it is read.
      const summary = JSON.parse(readFileSync(path.join(dir, 'summary.json'), 'utf8')) as { phases: Record<string, unknown> };
      for (const phase of ['arms', 'eval', 'decision']) delete summary.phases[phase];
      writeFileSync(path.join(dir, 'summary.json'), JSON.stringify(summary));
      const r = study([...quick(dir), '--resume']);
      expect(r.code, r.stderr).toBe(2);
      const lines = r.stderr.trim().split('\n');
      const last = lines[lines.length - 1] as string;
      expect(last).toMatch(new RegExp(`^rl-adv: .*${file.replace(/[./]/g, '\\$&')}(:\\d+)?:? .*not valid JSON`));
      expect(last).toContain('start it again in an empty folder');
      expect(r.stderr).not.toMatch(/\n\s+at /);
      expect(leftovers(dir)).toEqual([]);
    });
  }
});

const disk = mountTmpfs('256k');
const why = 'cannot' in disk ? disk.cannot : '';
afterAll(() => {
  if (!('cannot' in disk)) disk.unmount();
});

describe.skipIf('cannot' in disk)(`a disk that fills up during the run (a 256 KiB tmpfs; the run needs about 580 KB)${why === '' ? '' : ` — SKIPPED: ${why}`}`, () => {
  it("stops with exit 74 and one line naming the file and the remedy; --resume after space returns gives the uninterrupted run's bytes", () => {
    const fs = disk as Tmpfs;
    const dir = path.join(fs.dir, 'run');
    const full = study(quick(dir));
    expect(full.code, full.stderr).toBe(74);
    const last = full.stderr.trim().split('\n').pop() as string;
    expect(last).toMatch(/^rl-adv: cannot write .*: no space left on the device \(ENOSPC\); free some space, then run the same command with --resume$/);
    expect(full.stderr).not.toMatch(/\n\s+at /);
    expect(leftovers(dir)).toEqual([]);
    // Every JSON file left is whole (none torn), JSON lines included.
    for (const f of files(dir)) {
      const text = readFileSync(path.join(dir, f), 'utf8');
      if (f.endsWith('.jsonl')) for (const line of text.split('\n').filter((l) => l !== '')) expect(() => JSON.parse(line) as unknown, f).not.toThrow();
      else expect(() => JSON.parse(text) as unknown, f).not.toThrow();
    }

    fs.resize('4m');
    const resumed = study([...quick(dir), '--resume']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(files(dir)).toEqual(files(whole));
    for (const f of files(whole)) expect(readFileSync(path.join(dir, f)).equals(readFileSync(path.join(whole, f))), f).toBe(true);
    expect(leftovers(dir)).toEqual([]);
  });
});
