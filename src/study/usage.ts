// The study's bad-input error (exit 2 in the CLI): one helper so every refusal carries a code.
import { RlAdvantagesError } from '../errors.js';

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
