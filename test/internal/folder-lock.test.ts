// The folder lock: taken atomically, refused while a live process holds it, taken over from a dead one (pid gone, or
// reused by a later process), kept from another host, and taken by exactly one of several real processes racing for
// one stale lock.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { buildSync } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { LOCK_FILE, lockFolder, processStart, readOwner, type LockOwner } from '../../src/internal/folder-lock.js';
import { repoRoot } from '../helpers/paths.js';

const temp = (): string => mkdtempSync(path.join(tmpdir(), 'rl-adv-lock-'));

/** The pid of a process that has ended (node run to completion). */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(r.stdout);
}

function writeLock(dir: string, owner: Partial<LockOwner>): void {
  const full: LockOwner = { pid: 1, host: hostname(), start: null, token: 'deadbeefdeadbeef', command: 'rl-adv study', since: '2026-01-01T00:00:00.000Z', ...owner };
  writeFileSync(path.join(dir, LOCK_FILE), JSON.stringify(full));
}

describe('lockFolder', () => {
  it('takes a free folder, refuses a second taker while held (naming the holder), and is free again once released', () => {
    const dir = temp();
    const first = lockFolder(dir, 'rl-adv study');
    expect('heldBy' in first).toBe(false);
    const second = lockFolder(dir, 'rl-adv report');
    expect(second).toEqual({ heldBy: expect.objectContaining({ pid: process.pid, command: 'rl-adv study' }) as unknown });
    if ('heldBy' in first) throw new Error('unreachable');
    first.release();
    expect(readdirSync(dir)).toEqual([]);
    const third = lockFolder(dir, 'rl-adv study');
    expect('heldBy' in third).toBe(false);
    if (!('heldBy' in third)) third.release();
  });

  it("takes over the lock of a process that is gone, and of a pid reused by a later process (another start time)", () => {
    const gone = temp();
    writeLock(gone, { pid: deadPid() });
    const a = lockFolder(gone, 'rl-adv study');
    expect('heldBy' in a).toBe(false);
    expect(readOwner(path.join(gone, LOCK_FILE))?.pid).toBe(process.pid);
    if (!('heldBy' in a)) a.release();

    const reused = temp();
    const start = processStart(process.pid);
    if (start === null) return; // no /proc: a start time cannot be compared (the pid check above still runs)
    writeLock(reused, { pid: process.pid, start: String(Number(start) - 1) });
    const b = lockFolder(reused, 'rl-adv study');
    expect('heldBy' in b).toBe(false);
    if (!('heldBy' in b)) b.release();
    // Leftover claims are removed: only the lock, then nothing.
    expect(readdirSync(reused)).toEqual([]);
  });

  it('keeps a live holder (this very process, with its start time) and a holder on another host', () => {
    const live = temp();
    writeLock(live, { pid: process.pid, start: processStart(process.pid) });
    expect(lockFolder(live, 'x')).toEqual({ heldBy: expect.objectContaining({ pid: process.pid }) as unknown });
    const remote = temp();
    writeLock(remote, { pid: deadPid(), host: `${hostname()}-elsewhere` });
    expect(lockFolder(remote, 'x')).toEqual({ heldBy: expect.objectContaining({ host: `${hostname()}-elsewhere` }) as unknown });
    expect(JSON.parse(readFileSync(path.join(remote, LOCK_FILE), 'utf8'))).toMatchObject({ host: `${hostname()}-elsewhere` });
  });

  it('six real processes racing for one stale lock: exactly one takes it, the others name that one as the holder', async () => {
    const dir = temp();
    writeLock(dir, { pid: deadPid() });
    // The lock module as the processes load it: bundled from the source under test.
    const bundle = path.join(temp(), 'folder-lock.mjs');
    buildSync({ entryPoints: [path.join(repoRoot, 'src/internal/folder-lock.ts')], bundle: true, platform: 'node', format: 'esm', outfile: bundle, logLevel: 'silent' });
    // Each takes the lock and says what it got, then holds it until its standard input closes (no timers).
    const script =
      `const { lockFolder } = await import(${JSON.stringify(bundle)});` +
      `const l = lockFolder(${JSON.stringify(dir)}, 'racer');` +
      `process.stdout.write(('heldBy' in l ? 'held ' + l.heldBy.pid : 'took ' + process.pid) + '\\n');` +
      `process.stdin.resume(); process.stdin.on('end', () => { if (!('heldBy' in l)) l.release(); });`;
    const racers = Array.from({ length: 6 }, () => spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['pipe', 'pipe', 'inherit'] }));
    const lines = await Promise.all(
      racers.map(
        (p) =>
          new Promise<string>((resolve) => {
            let out = '';
            p.stdout.on('data', (d: Buffer) => {
              out += d.toString();
              if (out.includes('\n')) resolve(out.trim());
            });
          }),
      ),
    );
    const took = lines.filter((l) => l.startsWith('took '));
    expect(took).toHaveLength(1);
    const winner = (took[0] as string).slice('took '.length);
    for (const l of lines) if (!l.startsWith('took ')) expect(l).toBe(`held ${winner}`);
    await Promise.all(racers.map((p) => new Promise((resolve) => { p.on('exit', resolve); p.stdin.end(); })));
    expect(readdirSync(dir)).toEqual([]);
  });
});
