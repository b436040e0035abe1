// A small tmpfs mounted for a test, so a full disk is real (ENOSPC from the kernel, short writes included). Needs
// root and a kernel that lets the process mount (CI runs as root); elsewhere `mountTmpfs` says why it cannot.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** A mounted tmpfs: its folder, a way to resize it and to unmount it. */
export interface Tmpfs {
  readonly dir: string;
  resize(size: string): void;
  unmount(): void;
}

function run(args: readonly string[]): { ok: boolean; message: string } {
  const r = spawnSync(args[0] as string, args.slice(1), { encoding: 'utf8' });
  if (r.error) return { ok: false, message: r.error.message };
  return { ok: r.status === 0, message: (r.stderr || r.stdout).trim() };
}

/**
 * Mounts a tmpfs of `size` (e.g. `256k`) on a fresh folder, or returns the reason it cannot (not root, no
 * permission to mount in this container).
 */
export function mountTmpfs(size: string): Tmpfs | { cannot: string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'rl-adv-tmpfs-'));
  const mounted = run(['mount', '-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir]);
  if (!mounted.ok) {
    rmSync(dir, { recursive: true, force: true });
    return { cannot: `mount -t tmpfs is not permitted here (${mounted.message || 'no message'}); a full disk needs a small file system of its own` };
  }
  return {
    dir,
    resize: (to: string) => {
      const r = run(['mount', '-o', `remount,size=${to}`, dir]);
      if (!r.ok) throw new Error(`remount ${dir}: ${r.message}`);
    },
    unmount: () => {
      run(['umount', dir]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Whether this process may mount a tmpfs (tried once), with the reason when it may not. */
export function tmpfsSupport(): { ok: true } | { ok: false; reason: string } {
  const probe = mountTmpfs('64k');
  if ('cannot' in probe) return { ok: false, reason: probe.cannot };
  probe.unmount();
  return { ok: true };
}
