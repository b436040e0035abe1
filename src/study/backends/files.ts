// Artifact writing for study runs: every artifact appears whole or not at all (write a temporary file beside it,
// then rename, which is atomic on one file system), so a run killed at any instant leaves no half-written file.
import { existsSync, truncateSync } from 'node:fs';
import { RlAdvantagesError, RlAdvantagesIoError } from '../../errors.js';
import { BoundedReadError, readBoundedFile } from '../../internal/bounded-read.js';
import { appendDurable, errnoReason, IO_ERRNOS, writeFileDurable } from '../../internal/durable-write.js';

/**
 * Writes `text` to `file` atomically and durably (src/internal/durable-write.ts): a complete, flushed temporary
 * `.rl-adv-tmp-<pid>-<random>` beside it is renamed over `file`; a full disk leaves the old file and no temporary.
 *
 * @throws {RlAdvantagesIoError} (exit 74 in the CLI) naming `file`, the reason and the remedy.
 * @example
 * ```ts
 * writeFileAtomic('out/summary.json', JSON.stringify(summary));
 * ```
 */
export function writeFileAtomic(file: string, text: string): void {
  writeFileDurable(file, text);
}

/** Writes a JSON value atomically, pretty-printed, with a final newline. */
export function writeJsonAtomic(file: string, value: unknown): void {
  writeFileAtomic(file, JSON.stringify(value, null, 2) + '\n');
}

/** Writes JSON lines atomically, one value a line. */
export function writeJsonlAtomic(file: string, rows: readonly unknown[]): void {
  writeFileAtomic(file, rows.map((row) => JSON.stringify(row) + '\n').join(''));
}

/**
 * The largest run file read: 512 MiB, about the longest string V8 holds (an artifact is read whole, then parsed).
 * Checked before reading, with the file's kind.
 */
export const RUN_FILE_MAX_BYTES = 512 * 1024 * 1024;

/**
 * A run file's bytes, read bounded (src/internal/bounded-read.ts): a FIFO, a device, a folder or a file over
 * {@link RUN_FILE_MAX_BYTES} where an artifact belongs is refused at once (exit 2, `bad_artifact`), never waited on or
 * read without end; a missing or unreadable one is named (exit 2), a failing device is an I/O error (exit 74).
 *
 * @example
 * ```ts
 * const lines = readRunBytes('runs/a/arms/grpo_g8/advantages.jsonl').toString('utf8').split('\n');
 * ```
 */
export function readRunBytes(file: string): Buffer {
  try {
    return readBoundedFile(file, RUN_FILE_MAX_BYTES);
  } catch (boundedError) {
    if (!(boundedError instanceof BoundedReadError)) throw boundedError;
    if (boundedError.reason !== 'unreadable') {
      throw new RlAdvantagesError(`${boundedError.message}: rl-adv did not write it; remove it, then run the same command with --resume`, { code: 'bad_artifact', field: file });
    }
    const error = boundedError.cause ?? boundedError;
    const code = (error as NodeJS.ErrnoException).code ?? '';
    if (code === 'ENOENT') {
      throw new RlAdvantagesError(`${file}: not found (the run folder is incomplete: was it edited?)`, { code: 'missing_artifact', field: file });
    }
    if (IO_ERRNOS.has(code)) throw new RlAdvantagesIoError(`cannot read ${file}: ${errnoReason(error)} (${code})`, { path: file, errno: code });
    throw error;
  }
}

/** {@link readRunBytes} as UTF-8 text. */
function readRunText(file: string): string {
  return readRunBytes(file).toString('utf8');
}

function corrupt(file: string, line: number | undefined, error: unknown): RlAdvantagesError {
  const where = line === undefined ? file : `${file}:${line}`;
  return new RlAdvantagesError(
    `${where}: not valid JSON (${(error as Error).message.replace(/, ".*" is not valid JSON$/s, '')}): the file is truncated or was edited; ` +
      'the run cannot continue from it: start it again in an empty folder',
    { code: 'bad_artifact', field: file, ...(line === undefined ? {} : { index: line }) },
  );
}

/**
 * Reads a JSON file of a run folder.
 *
 * @throws {RlAdvantagesError} `bad_artifact` naming the file when it is not valid JSON; `missing_artifact` when absent.
 */
export function readJson<T>(file: string): T {
  const text = readRunText(file);
  try {
    return JSON.parse(text) as T;
  } catch (error) {
    throw corrupt(file, undefined, error);
  }
}

/**
 * Reads JSON lines (blank lines skipped).
 *
 * @throws {RlAdvantagesError} `bad_artifact` naming the file and line of a line that is not valid JSON.
 */
export function readJsonl<T>(file: string): T[] {
  const rows: T[] = [];
  readRunText(file)
    .split('\n')
    .forEach((line, i) => {
      if (line.trim() === '') return;
      try {
        rows.push(JSON.parse(line) as T);
      } catch (error) {
        throw corrupt(file, i + 1, error);
      }
    });
  return rows;
}

/**
 * Appends one JSON line to a log (flushed). An append cut short by a full disk is cut back at once; one cut short by
 * a kill is cut on resume by {@link keepFirstLines}, which makes the log consistent with its checkpoint.
 */
export function appendJsonLine(file: string, row: unknown): void {
  appendDurable(file, JSON.stringify(row) + '\n');
}

/** Truncates `file` to its first `n` complete lines (creating it empty when missing). */
export function keepFirstLines(file: string, n: number): void {
  if (!existsSync(file)) {
    writeFileAtomic(file, '');
    return;
  }
  const buffer = readRunBytes(file);
  let offset = 0;
  for (let seen = 0; seen < n; seen++) {
    const next = buffer.indexOf(0x0a, offset);
    if (next < 0) {
      throw new RlAdvantagesError(`${file} has ${seen} complete lines where its checkpoint counts ${n}; the run folder is inconsistent: start the run again in an empty folder`, {
        code: 'bad_artifact',
        field: file,
      });
    }
    offset = next + 1;
  }
  truncateSync(file, offset);
}
