// Writes that survive a kill and a full disk: every byte is written (a short write is continued, never ignored),
// a file is renamed into place only when complete and flushed, and a failure removes what this write created and
// throws one RlAdvantagesIoError naming the path. Temporary files carry a name no user would choose,
// `.rl-adv-tmp-<pid>-<random>`, so a cleanup can tell them from the user's files and from a live process's.
import { randomBytes } from 'node:crypto';
import { closeSync, fstatSync, fsyncSync, ftruncateSync, openSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import path from 'node:path';
import { RlAdvantagesIoError } from '../errors.js';

/** The prefix of every temporary file rl-adv creates: `.rl-adv-tmp-<pid>-<8 hex digits>`. */
export const TEMP_PREFIX = '.rl-adv-tmp-';

/** Matches a temporary file name of {@link TEMP_PREFIX} and captures its pid. */
export const TEMP_NAME = /^\.rl-adv-tmp-(\d+)-[0-9a-f]{8}$/;

/** A fresh temporary file name in `folder` (a random part, so two writes of one process never share it). */
export function tempPath(folder: string): string {
  return path.join(folder, `${TEMP_PREFIX}${process.pid}-${randomBytes(4).toString('hex')}`);
}

/** What a system error code means, in words. */
const REASONS: Readonly<Record<string, string>> = {
  ENOSPC: 'no space left on the device',
  EDQUOT: 'the disk quota is exceeded',
  EIO: 'an input/output error of the device',
  EROFS: 'the file system is read-only',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EFBIG: 'the file is too large for the file system',
  ENOENT: 'no such file or folder',
  ENOTDIR: 'a part of the path is not a folder',
  EISDIR: 'it is a folder',
  EPIPE: 'the reader closed the pipe',
  EMFILE: 'too many open files',
  ENFILE: 'too many open files in the system',
};

/**
 * The system error codes that are failures of the device or the system (exit 74), not of the path a user chose: a
 * path refused for permissions (EACCES, EPERM) or absent (ENOENT) is a user error where a command checks its paths.
 */
export const IO_ERRNOS: ReadonlySet<string> = new Set(['ENOSPC', 'EDQUOT', 'EIO', 'EROFS', 'EFBIG', 'EPIPE', 'EMFILE', 'ENFILE', 'ENXIO']);

/** The words for a system error (`no space left on the device`), or its message when it has no known code. */
export function errnoReason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  const message = (error as { message?: unknown } | null)?.message;
  return (code !== undefined ? REASONS[code] : undefined) ?? (typeof message === 'string' ? message : String(error));
}

/** The remedy a full or failing disk asks for: `free some space`. */
export function remedy(code: string): string {
  if (code === 'ENOSPC' || code === 'EDQUOT') return 'free some space';
  if (code === 'EROFS') return 'write to a writable file system';
  if (code === 'EACCES' || code === 'EPERM') return 'make it writable';
  return 'check the device';
}

/**
 * The error of a failed write of `file`: `cannot write FILE: no space left on the device (ENOSPC); free some space`.
 *
 * @param after - what to do once the remedy is applied (e.g. `then run the same command with --resume`).
 */
export function ioError(file: string, error: unknown, after = 'then run the command again'): RlAdvantagesIoError {
  const errno = (error as NodeJS.ErrnoException | null)?.code ?? 'EIO';
  return new RlAdvantagesIoError(`cannot write ${file}: ${errnoReason(error)} (${errno}); ${remedy(errno)}, ${after}`, { path: file, errno });
}

/** A short write that made no progress: the device takes no more bytes. */
function noProgress(): NodeJS.ErrnoException {
  return Object.assign(new Error('no space left on device, write'), { code: 'ENOSPC' });
}

/** The same I/O error with the second half of its remedy replaced by `after` (e.g. `then ... with --resume`). */
export function withRemedy(error: RlAdvantagesIoError, after: string): RlAdvantagesIoError {
  const message = error.message.replace(/then run the command again$/, after);
  return message === error.message ? error : new RlAdvantagesIoError(message, { path: error.path, errno: error.errno });
}

/**
 * Writes every byte of `data` to `fd` from its current position: a short write (a disk filling up) is continued, and a
 * write that makes no progress throws ENOSPC. Node's `writeSync` returns the count written and may write fewer.
 *
 * @throws the system error of the failed write (ENOSPC, EIO, ...).
 */
export function writeAllSync(fd: number, data: string | Uint8Array): void {
  const buffer = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  let offset = 0;
  while (offset < buffer.length) {
    const written = writeSync(fd, buffer, offset, buffer.length - offset);
    if (written <= 0) throw noProgress();
    offset += written;
  }
}

/** Flushes a folder's entries (a rename in it) to disk; skipped where a folder cannot be opened or synced. */
export function fsyncFolder(folder: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(folder, 'r');
    fsyncSync(fd);
  } catch {
    // Some file systems refuse fsync on a folder (EINVAL, EISDIR on a few platforms): the file itself is synced.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function unlinkQuietly(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    // Already gone: nothing of this write is left.
  }
}

/**
 * Writes `data` to a new temporary file beside `file` (flushed to disk) and returns its path; on failure removes it.
 *
 * @throws {RlAdvantagesIoError} naming `file` when the temporary file cannot be created or completed.
 */
export function writeTempBeside(file: string, data: string | Uint8Array, after?: string): string {
  const temp = tempPath(path.dirname(file));
  let fd: number;
  try {
    fd = openSync(temp, 'wx');
  } catch (error) {
    throw ioError(file, error, after);
  }
  try {
    writeAllSync(fd, data);
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    unlinkQuietly(temp);
    throw ioError(file, error, after);
  }
  closeSync(fd);
  return temp;
}

/**
 * Writes `data` to `file` atomically and durably: a complete, flushed temporary file is renamed over `file` and the
 * folder is flushed, so a kill, a crash or a full disk leaves either the old file or the new one, never a torn one,
 * and no temporary file.
 *
 * @param after - the remedy's second half in an error message (default `then run the command again`).
 * @throws {RlAdvantagesIoError} (exit 74 in the CLI) naming `file`, the reason and the remedy.
 * @example
 * ```ts
 * writeFileDurable('out/summary.json', JSON.stringify(summary));
 * ```
 */
export function writeFileDurable(file: string, data: string | Uint8Array, after?: string): void {
  const temp = writeTempBeside(file, data, after);
  try {
    renameSync(temp, file);
  } catch (error) {
    unlinkQuietly(temp);
    throw ioError(file, error, after);
  }
  fsyncFolder(path.dirname(file));
}

/**
 * Appends `data` (whole lines) to `file` and flushes it. A write cut short (a full disk) is undone: the file is cut
 * back to its length before, so a log never keeps a torn line.
 *
 * @throws {RlAdvantagesIoError} naming `file`.
 */
export function appendDurable(file: string, data: string, after?: string): void {
  let fd: number;
  try {
    fd = openSync(file, 'a');
  } catch (error) {
    throw ioError(file, error, after);
  }
  try {
    const before = fstatSync(fd).size;
    try {
      writeAllSync(fd, data);
      fsyncSync(fd);
    } catch (error) {
      try {
        ftruncateSync(fd, before);
      } catch {
        // The reader on resume cuts a torn tail too (keepFirstLines).
      }
      throw ioError(file, error, after);
    }
  } finally {
    closeSync(fd);
  }
}
