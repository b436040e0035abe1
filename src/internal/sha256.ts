// SHA-256 digests as lowercase hex: of bytes or text, and of a file's bytes (what run folders, kernel files and the
// GSM8K cache record).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

/** The SHA-256 of `data` (text as UTF-8), lowercase hex. */
export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** The SHA-256 of a file's bytes, lowercase hex. @throws the file system's error when it cannot be read. */
export function sha256File(file: string): string {
  return sha256Hex(readFileSync(file));
}
