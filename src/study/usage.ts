// The study's bad-input error (exit 2 in the CLI): one helper so every refusal carries a code.
import { RlAdvantagesError } from '../errors.js';
import { BoundedReadError, readBoundedFile } from '../internal/bounded-read.js';

/** A refused option or folder, as an RlAdvantagesError with `code` (default `bad_option`). */
export function usage(message: string, code = 'bad_option'): RlAdvantagesError {
  return new RlAdvantagesError(message, { code });
}

/** The reason of a file-system error without Node's `ENOENT: ..., open 'PATH'` wrapping (the caller names the path). */
export function plainReason(error: unknown): string {
  const e = error as NodeJS.ErrnoException;
  const reasons: Record<string, string> = {
    ENOENT: 'no such file or folder',
    EACCES: 'permission denied',
    EISDIR: 'it is a folder',
    ENOTDIR: 'a part of the path is not a folder',
    EROFS: 'read-only file system',
  };
  return (e.code !== undefined ? reasons[e.code] : undefined) ?? e.message;
}

/**
 * The bytes of a file the user named with `flag` (`--spec`, `--kernel`), read bounded (src/internal/bounded-read.ts):
 * a FIFO, a device, a folder or a file over `maxBytes` is refused at once, before anything is read.
 *
 * @throws {RlAdvantagesError} (exit 2) `FLAG FILE is a FIFO (named pipe), not a regular file` (`not_regular_file`),
 *   `FLAG FILE is N bytes, over the limit of M` (`file_too_large`), `FLAG FILE cannot be read: REASON` (`file_not_found`).
 * @example
 * ```ts
 * const bytes = readUserFile('kernel.json', '--kernel', 256 * 1024 * 1024);
 * ```
 */
export function readUserFile(file: string, flag: string, maxBytes: number): Buffer {
  try {
    return readBoundedFile(file, maxBytes);
  } catch (error) {
    if (!(error instanceof BoundedReadError)) throw error;
    if (error.reason === 'unreadable') throw usage(`${flag} ${file} cannot be read: ${plainReason(error.cause ?? error)}`, 'file_not_found');
    throw usage(`${flag} ${error.message}`, error.reason === 'too_large' ? 'file_too_large' : 'not_regular_file');
  }
}
