// --spec files are checked before they are read: a regular file of at most SPEC_FILE_MAX_BYTES.
import { spawnSync } from 'node:child_process';
import { truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SPEC_FILE_MAX_BYTES } from '../../src/cli/spec.js';
import { rlAdv, tempDir } from './run.js';

describe('--spec FILE', () => {
  it('refuses a device, a FIFO and a file over 16 MiB at once (exit 2, one line), naming the limit', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'big.json'), '');
    truncateSync(join(dir, 'big.json'), SPEC_FILE_MAX_BYTES + 1);
    expect(spawnSync('mkfifo', [join(dir, 'fifo.json')]).status).toBe(0);
    const cases: [string, string][] = [
      ['/dev/zero', 'rl-adv: --spec /dev/zero is a device, not a regular file\n'],
      ['fifo.json', 'rl-adv: --spec fifo.json is a FIFO (named pipe), not a regular file\n'],
      ['big.json', 'rl-adv: --spec big.json is 16777217 bytes (16.0 MiB), over the limit of 16777216 bytes (16 MiB)\n'],
      ['none.json', 'rl-adv: --spec none.json: cannot read it (no such file or folder)\n'],
    ];
    for (const [spec, stderr] of cases) {
      const run = await rlAdv(['study', '--spec', spec, '--out', join(dir, 'run')], { cwd: dir });
      expect([run.code, run.stderr]).toEqual([2, stderr]);
    }
  });
});
