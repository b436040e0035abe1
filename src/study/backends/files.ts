// Artifact writing for study runs: every artifact appears whole or not at all (write a temporary file beside it,
// then rename, which is atomic on one file system), so a run killed at any instant leaves no half-written file.
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, writeSync, existsSync, truncateSync } from 'node:fs';

/**
 * Writes `text` to `file` atomically: `<file>.tmp-<pid>` first (flushed to disk), then renamed over `file`.
 *
 * @example
 * ```ts
 * writeFileAtomic('out/summary.json', JSON.stringify(summary));
 * ```
 */
export function writeFileAtomic(file: string, text: string): void {
  const temp = `${file}.tmp-${process.pid}`;
  const fd = openSync(temp, 'w');
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temp, file);
}

/** Writes a JSON value atomically, pretty-printed, with a final newline. */
export function writeJsonAtomic(file: string, value: unknown): void {
  writeFileAtomic(file, JSON.stringify(value, null, 2) + '\n');
}

/** Writes JSON lines atomically, one value a line. */
export function writeJsonlAtomic(file: string, rows: readonly unknown[]): void {
  writeFileAtomic(file, rows.map((row) => JSON.stringify(row) + '\n').join(''));
}

/** Reads a JSON file. */
export function readJson<T>(file: string): T {
  return JSON.parse(readFileSync(file, 'utf8')) as T;
}

/** Reads JSON lines (blank lines skipped). */
export function readJsonl<T>(file: string): T[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as T);
}

/**
 * Appends one JSON line to a log (flushed). A log is made consistent with its checkpoint on resume by
 * {@link keepFirstLines}, so an append cut short by a kill never survives.
 */
export function appendJsonLine(file: string, row: unknown): void {
  const fd = openSync(file, 'a');
  try {
    writeSync(fd, JSON.stringify(row) + '\n');
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Truncates `file` to its first `n` complete lines (creating it empty when missing). */
export function keepFirstLines(file: string, n: number): void {
  if (!existsSync(file)) {
    writeFileAtomic(file, '');
    return;
  }
  const buffer = readFileSync(file);
  let offset = 0;
  for (let seen = 0; seen < n; seen++) {
    const next = buffer.indexOf(0x0a, offset);
    if (next < 0) throw new Error(`${file} has fewer than ${n} complete lines; the run folder is inconsistent`);
    offset = next + 1;
  }
  truncateSync(file, offset);
}
