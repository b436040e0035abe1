// readBoundedFile: a regular file of at most the limit, checked before reading; devices, FIFOs and folders refused
// at once (a FIFO without blocking).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BoundedReadError, readBoundedFile, sizeWords } from '../../src/internal/bounded-read.js';

const dir = mkdtempSync(join(tmpdir(), 'rl-adv-bounded-'));

function refusal(path: string, max: number): BoundedReadError {
  try {
    readBoundedFile(path, max);
  } catch (error) {
    if (error instanceof BoundedReadError) return error;
    throw error;
  }
  throw new Error(`${path} was read`);
}

describe('readBoundedFile', () => {
  it('reads a regular file up to the limit, through a symbolic link too', () => {
    writeFileSync(join(dir, 'ten.txt'), '0123456789');
    expect(readBoundedFile(join(dir, 'ten.txt'), 10).toString()).toBe('0123456789');
    spawnSync('ln', ['-s', join(dir, 'ten.txt'), join(dir, 'link.txt')]);
    expect(readBoundedFile(join(dir, 'link.txt'), 10).toString()).toBe('0123456789');
    writeFileSync(join(dir, 'empty.txt'), '');
    expect(readBoundedFile(join(dir, 'empty.txt'), 10).length).toBe(0);
  });

  it('refuses a file over the limit before reading it, naming the size and the limit', () => {
    const big = join(dir, 'big.bin');
    writeFileSync(big, '');
    truncateSync(big, 3 * 1024 * 1024); // sparse
    const error = refusal(big, 1024 * 1024);
    expect([error.reason, error.message]).toEqual(['too_large', `${big} is 3145728 bytes (3 MiB), over the limit of 1048576 bytes (1 MiB)`]);
    expect(refusal(join(dir, 'ten.txt'), 9).reason).toBe('too_large');
  });

  it('refuses a device, a folder and a FIFO (without blocking), and says why a missing file cannot be read', () => {
    expect([refusal('/dev/zero', 100).reason, refusal('/dev/zero', 100).message]).toEqual(['not_regular', '/dev/zero is a device, not a regular file']);
    expect(refusal(dir, 100).message).toBe(`${dir} is a folder, not a regular file`);
    const fifo = join(dir, 'fifo');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    expect(refusal(fifo, 100).message).toBe(`${fifo} is a FIFO (named pipe), not a regular file`);
    const missing = refusal(join(dir, 'none'), 100);
    expect([missing.reason, (missing.cause as NodeJS.ErrnoException).code]).toEqual(['unreadable', 'ENOENT']);
  });

  it('words sizes in bytes and MiB', () => {
    expect([sizeWords(512), sizeWords(16 * 1024 * 1024), sizeWords(1.5 * 1024 * 1024)]).toEqual(['512 bytes', '16777216 bytes (16 MiB)', '1572864 bytes (1.5 MiB)']);
  });
});
