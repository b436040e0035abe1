// Reading a whole file the user named, bounded: a regular file of at most a stated size, checked before reading,
// so /dev/zero, a FIFO or a huge file is one clear error instead of a read that never ends or fills the memory.
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';

/** Why a bounded read refused a file (the caller puts it in its own words and error type). */
export class BoundedReadError extends Error {
  readonly reason: 'not_regular' | 'too_large' | 'unreadable';
  constructor(reason: 'not_regular' | 'too_large' | 'unreadable', message: string, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.reason = reason;
  }
}

/** `bytes` in words: "268435456 bytes (256 MiB)". */
export function sizeWords(bytes: number): string {
  const mib = bytes / (1024 * 1024);
  return mib >= 1 ? `${bytes} bytes (${Number.isInteger(mib) ? mib : mib.toFixed(1)} MiB)` : `${bytes} bytes`;
}

/**
 * The bytes of the regular file `path` (symbolic links followed), refused before reading when it is not a regular
 * file (a device, a FIFO, a folder) or is larger than `maxBytes`; a file that grows past `maxBytes` while read is
 * refused too. Opened non-blocking, so a FIFO never blocks the open. With `followLinks: false` a symbolic link is
 * refused too (opened with O_NOFOLLOW: a lock file that links to /dev/zero is never read through).
 *
 * @throws {@link BoundedReadError} naming the path: `not_regular` (a symbolic link too, without `followLinks`),
 *   `too_large` (with the limit), `unreadable` (the system error is its `cause`: ENOENT for a missing file).
 * @example
 * const bytes = readBoundedFile('kernel.json', 256 * 1024 * 1024);
 */
export function readBoundedFile(path: string, maxBytes: number, options: { readonly followLinks?: boolean } = {}): Buffer {
  let fd: number;
  const noFollow = options.followLinks === false ? (constants.O_NOFOLLOW ?? 0) : 0;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | noFollow);
  } catch (error) {
    if (noFollow !== 0 && (error as NodeJS.ErrnoException).code === 'ELOOP') throw new BoundedReadError('not_regular', `${path} is a symbolic link, not a regular file`, error);
    throw new BoundedReadError('unreadable', `cannot read ${path}: ${(error as Error).message}`, error);
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) {
      const kind = stat.isDirectory() ? 'a folder' : stat.isFIFO() ? 'a FIFO (named pipe)' : stat.isCharacterDevice() || stat.isBlockDevice() ? 'a device' : stat.isSocket() ? 'a socket' : 'not a regular file';
      throw new BoundedReadError('not_regular', `${path} is ${kind}, not a regular file`);
    }
    if (stat.size > maxBytes) throw new BoundedReadError('too_large', `${path} is ${sizeWords(stat.size)}, over the limit of ${sizeWords(maxBytes)}`);
    // One byte more than its size: a file that grows while read is seen, not cut short.
    const buffer = Buffer.allocUnsafe(stat.size + 1);
    let length = 0;
    while (length < buffer.length) {
      const n = readSync(fd, buffer, length, buffer.length - length, null);
      if (n === 0) break;
      length += n;
    }
    if (length > stat.size) throw new BoundedReadError('unreadable', `${path} grew while it was read: read it again once it is complete`);
    return buffer.subarray(0, length);
  } catch (error) {
    if (error instanceof BoundedReadError) throw error;
    throw new BoundedReadError('unreadable', `cannot read ${path}: ${(error as Error).message}`, error);
  } finally {
    closeSync(fd);
  }
}
