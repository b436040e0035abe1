// Outputs that are not regular files, and outputs that cannot be written: --force writes through a symbolic link (its
// target replaced whole, the link kept) and into a FIFO or a device, never replacing the node; a full disk, a
// read-only file system and a full standard output give exit 74 with one line, and leave no temporary file.
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, lstatSync, mkdtempSync, openSync, readdirSync, readFileSync, readlinkSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { mountTmpfs, type Tmpfs } from '../helpers/tmpfs.js';
import { cliPath, rlAdv } from './run.js';

const ROWS = '{"reward":1,"group":0}\n{"reward":0,"group":0}\n{"reward":1,"group":1}\n{"reward":1,"group":1}\n';

function folder(): { dir: string; input: string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'rl-adv-outputs-special-'));
  const input = path.join(dir, 'rollouts.jsonl');
  writeFileSync(input, ROWS);
  return { dir, input };
}

const advantages = (input: string, output: string, ...more: string[]): string[] => ['advantages', '--estimator', 'loo_batch_mean', '--input', input, '--output', output, ...more];

describe('--force onto a node that is not a regular file', () => {
  it('a symbolic link: its target is replaced whole and the link stays; a dangling link creates its target', async () => {
    const { dir, input } = folder();
    writeFileSync(path.join(dir, 'target.jsonl'), 'old\n');
    symlinkSync('target.jsonl', path.join(dir, 'link.jsonl'));
    symlinkSync('made.jsonl', path.join(dir, 'dangling.jsonl'));
    const expected = (await rlAdv(['advantages', '--estimator', 'loo_batch_mean', '--input', input])).stdout;
    for (const [link, target] of [['link.jsonl', 'target.jsonl'], ['dangling.jsonl', 'made.jsonl']] as const) {
      const r = await rlAdv(advantages(input, path.join(dir, link), '--force'));
      expect(r.code, r.stderr).toBe(0);
      expect(lstatSync(path.join(dir, link)).isSymbolicLink()).toBe(true);
      expect(readlinkSync(path.join(dir, link))).toBe(target);
      expect(readFileSync(path.join(dir, target), 'utf8')).toBe(expected);
    }
    expect(readdirSync(dir).filter((f) => f.startsWith('.'))).toEqual([]);
  });

  it('without --force a link, a FIFO or a device is kept (exit 2)', async () => {
    const { dir, input } = folder();
    symlinkSync('target.jsonl', path.join(dir, 'link.jsonl'));
    for (const out of [path.join(dir, 'link.jsonl'), '/dev/null']) {
      const r = await rlAdv(advantages(input, out));
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`--output ${out} exists; it is kept`);
    }
  });

  it('a FIFO is written into (a reader gets the rows) and stays a FIFO', async () => {
    const { dir, input } = folder();
    const fifo = path.join(dir, 'pipe');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    const reader = spawn('cat', [fifo], { stdio: ['ignore', 'pipe', 'inherit'] });
    let got = '';
    reader.stdout.on('data', (d: Buffer) => (got += d.toString()));
    const ended = new Promise((resolve) => reader.on('close', resolve));
    const r = await rlAdv(advantages(input, fifo, '--force'));
    await ended;
    expect(r.code, r.stderr).toBe(0);
    expect(got.trim().split('\n')).toHaveLength(4);
    expect(lstatSync(fifo).isFIFO()).toBe(true);
  });

  it('/dev/null is written into and stays a device; /dev/full gives exit 74 with one line and stays a device', async () => {
    const ok = await rlAdv(advantages(folder().input, '/dev/null', '--force'));
    expect(ok.code, ok.stderr).toBe(0);
    expect(statSync('/dev/null').isCharacterDevice()).toBe(true);
    const full = await rlAdv(advantages(folder().input, '/dev/full', '--force'));
    expect(full.code).toBe(74);
    expect(full.stderr).toContain('rl-adv: --output /dev/full: cannot write it: no space left on the device (ENOSPC); free some space, then run the command again\n');
    expect(full.stderr).not.toMatch(/\n\s+at /);
    expect(statSync('/dev/full').isCharacterDevice()).toBe(true);
  });
});

describe('standard output that cannot be written', () => {
  it('`rl-adv ... > /dev/full`: exit 74 and one line on stderr, not exit 1 (a failed gate) and no stack trace', () => {
    const { input } = folder();
    for (const args of [['estimators'], ['advantages', '--estimator', 'loo_batch_mean', '--input', input]]) {
      const full = openSync('/dev/full', 'w');
      try {
        const r = spawnSync(process.execPath, [cliPath, ...args], { stdio: ['ignore', full, 'pipe'], encoding: 'utf8' });
        expect(r.status, args.join(' ')).toBe(74);
        expect(r.stderr).toContain('rl-adv: cannot write <stdout>: no space left on the device (ENOSPC)\n');
        expect(r.stderr).not.toMatch(/\n\s+at /);
      } finally {
        closeSync(full);
      }
    }
  });
});

const disk = mountTmpfs('16k');
const readOnly = mountTmpfs('16k');
const why = 'cannot' in disk ? disk.cannot : '';
afterAll(() => {
  for (const m of [disk, readOnly]) if (!('cannot' in m)) m.unmount();
});

describe.skipIf('cannot' in disk || 'cannot' in readOnly)(`--output on a full disk and on a read-only mount (small tmpfs)${why === '' ? '' : ` — SKIPPED: ${why}`}`, () => {
  it('a full disk: exit 74 naming --output and the remedy, nothing left behind (no hidden temporary)', async () => {
    const fs = disk as Tmpfs;
    const filler = path.join(fs.dir, 'filler');
    writeFileSync(filler, '');
    // Fill the disk to the last byte it takes.
    const fd = openSync(filler, 'a');
    try {
      for (;;) writeFileSync(fd, Buffer.alloc(1024));
    } catch {
      // ENOSPC: full
    } finally {
      closeSync(fd);
    }
    const out = path.join(fs.dir, 'out.jsonl');
    const r = await rlAdv(advantages(folder().input, out));
    expect(r.code).toBe(74);
    expect(r.stderr).toContain(`rl-adv: --output ${out}: cannot write it: no space left on the device (ENOSPC); free some space, then run the command again\n`);
    expect(readdirSync(fs.dir)).toEqual(['filler']);
  });

  it('a read-only mount says so (EROFS), for --output and for study --out, with exit 74', async () => {
    const fs = readOnly as Tmpfs;
    fs.resize('16k,ro');
    const out = path.join(fs.dir, 'out.jsonl');
    const r = await rlAdv(advantages(folder().input, out));
    expect(r.code).toBe(74);
    expect(r.stderr).toContain('the file system is read-only (EROFS)');
    const run = await rlAdv(['study', '--out', path.join(fs.dir, 'new', 'run'), '--sim-questions', 'clustered']);
    expect(run.code).toBe(74);
    expect(run.stderr).toMatch(/--out .*new\/run cannot be created: read-only file system \(EROFS\)/);
    expect(run.stderr).not.toContain('no such file');
  });
});
