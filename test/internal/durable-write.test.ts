// Durable writes on a real full disk (a small tmpfs; skipped, saying why, where mounting is not permitted): a file is
// replaced whole or not at all, an append never leaves a torn line, no temporary file is left, and the error names
// the path and the remedy.
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RlAdvantagesIoError } from '../../src/errors.js';
import { appendDurable, TEMP_NAME, tempPath, writeFileDurable } from '../../src/internal/durable-write.js';
import { mountTmpfs, type Tmpfs } from '../helpers/tmpfs.js';

describe('writeFileDurable and appendDurable on a disk with room', () => {
  it('replaces a file whole, appends whole lines, and leaves no temporary; temporaries have a name no user picks', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'rl-adv-durable-'));
    const file = path.join(dir, 'a.json');
    writeFileDurable(file, 'one');
    writeFileDurable(file, 'two');
    appendDurable(path.join(dir, 'log.jsonl'), '{"a":1}\n');
    appendDurable(path.join(dir, 'log.jsonl'), '{"a":2}\n');
    expect(readFileSync(file, 'utf8')).toBe('two');
    expect(readFileSync(path.join(dir, 'log.jsonl'), 'utf8')).toBe('{"a":1}\n{"a":2}\n');
    expect(readdirSync(dir).sort()).toEqual(['a.json', 'log.jsonl']);
    const name = path.basename(tempPath(dir));
    expect(name).toMatch(TEMP_NAME);
    expect(TEMP_NAME.exec(name)?.[1]).toBe(String(process.pid));
    expect('state.json.tmp-123').not.toMatch(TEMP_NAME);
  });
});

const disk = mountTmpfs('64k');
const why = 'cannot' in disk ? disk.cannot : '';
afterAll(() => {
  if (!('cannot' in disk)) disk.unmount();
});

describe.skipIf('cannot' in disk)(`on a full disk (a 64 KiB tmpfs)${why === '' ? '' : ` — SKIPPED: ${why}`}`, () => {
  const fs = disk as Tmpfs;
  it('a write that does not fit: exit-74 error naming the file and the remedy, the old file intact, no temporary left', () => {
    const file = path.join(fs.dir, 'state.json');
    writeFileDurable(file, 'old state\n');
    let error: unknown;
    try {
      writeFileDurable(file, 'x'.repeat(200 * 1024));
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(RlAdvantagesIoError);
    expect((error as RlAdvantagesIoError).errno).toBe('ENOSPC');
    expect((error as Error).message).toBe(`cannot write ${file}: no space left on the device (ENOSPC); free some space, then run the command again`);
    expect(readFileSync(file, 'utf8')).toBe('old state\n');
    expect(readdirSync(fs.dir)).toEqual(['state.json']);
  });

  it('an append that does not fit is cut back: the log keeps its whole lines and nothing torn', () => {
    const log = path.join(fs.dir, 'advantages.jsonl');
    appendDurable(log, '{"step":0}\n');
    // Fill the disk up to a few bytes with another file, then append a line longer than what is left.
    const filler = path.join(fs.dir, 'filler');
    let size = 60 * 1024;
    for (;;) {
      try {
        writeFileSync(filler, Buffer.alloc(size));
        break;
      } catch {
        size -= 1024;
      }
    }
    expect(() => appendDurable(log, `{"step":1,"pad":"${'p'.repeat(16 * 1024)}"}\n`)).toThrow(RlAdvantagesIoError);
    expect(readFileSync(log, 'utf8')).toBe('{"step":0}\n');
  });
});
