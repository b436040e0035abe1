// Finding and loading GSM8K from local JSON-lines files (the data is never bundled with this package).
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { RlAdvantagesError } from '../errors.js';
import { BoundedReadError, readBoundedFile } from '../internal/bounded-read.js';
import { describe } from '../internal/validate.js';
import { gsm8kReferenceAnswer } from '../grading/gsm8k.js';
import { gsm8kCacheDir } from './cache.js';

/** A GSM8K split. */
export type Gsm8kSplit = 'train' | 'test';

/** One GSM8K row with its position, a stable id and the parsed reference answer. */
export interface Gsm8kItem {
  /** 0-based position among the split's rows (blank lines are not rows). */
  readonly index: number;
  /** `gsm8k_<split>_<index>`, e.g. `gsm8k_test_0`. */
  readonly id: string;
  readonly question: string;
  /** The worked solution, ending `#### <answer>`. */
  readonly answer: string;
  /** `gsm8kReferenceAnswer(answer)`. */
  readonly referenceAnswer: string;
}

/**
 * The one message every command shows when it cannot find GSM8K: the ways to provide it, in the order
 * {@link resolveGsm8kDir} looks.
 */
export function gsm8kHowToProvide(): string {
  return (
    'Provide GSM8K (MIT licence, openai/grade-school-math) one of these ways: run `rl-adv data gsm8k` to download it ' +
    `into the cache ${gsm8kCacheDir()} (sha256-verified), or \`rl-adv data gsm8k --from DIR\` to verify and copy a local copy; ` +
    'or pass --data-dir DIR, or set GSM8K_DIR=DIR, with DIR a folder holding train.jsonl and test.jsonl ' +
    '(one JSON object a line with "question" and "answer"; the rows of Hugging Face openai/gsm8k, config "main").'
  );
}

/** True when `dir` holds both splits (the cache is only ever filled whole). */
function holdsSplits(dir: string): boolean {
  return existsSync(path.join(dir, 'train.jsonl')) && existsSync(path.join(dir, 'test.jsonl'));
}

/**
 * Chooses the GSM8K folder, in this order: `flag` when given and non-empty (a command's `--data-dir`), else
 * the `GSM8K_DIR` environment variable, else the cache folder {@link gsm8kCacheDir} when it holds
 * `train.jsonl` and `test.jsonl`, else an error that says how to provide the data. A folder chosen by
 * `flag` or `GSM8K_DIR` must exist. This never downloads: `ensureGsm8kDir` does, on first use.
 *
 * @param flag - A folder given on the command line (e.g. `--data-dir`).
 * @returns The folder as an absolute path.
 * @throws {RlAdvantagesError} `missing_gsm8k_dir` when none of the three is available (the message is
 *   {@link gsm8kHowToProvide}); `gsm8k_dir_not_found` when the folder of `flag` or `GSM8K_DIR` does not
 *   exist or is not a folder.
 * @example
 * ```ts
 * import { resolveGsm8kDir } from 'rl-advantages/data';
 * process.env.GSM8K_DIR = '.';
 * resolveGsm8kDir(); // absolute path of the current folder
 * ```
 */
export function resolveGsm8kDir(flag?: string): string {
  let chosen: string;
  let source: string;
  if (flag !== undefined && flag !== '') {
    chosen = flag;
    source = '--data-dir';
  } else if (process.env.GSM8K_DIR) {
    chosen = process.env.GSM8K_DIR;
    source = 'GSM8K_DIR';
  } else {
    const cached = gsm8kCacheDir();
    if (holdsSplits(cached)) return cached;
    throw new RlAdvantagesError(`GSM8K not found: no --data-dir, no GSM8K_DIR, and no copy in the cache ${cached}. ${gsm8kHowToProvide()}`, {
      code: 'missing_gsm8k_dir',
      field: 'dataDir',
    });
  }
  const resolved = path.resolve(chosen);
  if (!existsSync(resolved) || !statSync(resolved).isDirectory()) {
    throw new RlAdvantagesError(`${source} is ${JSON.stringify(chosen)}, which is not a folder. ${gsm8kHowToProvide()}`, {
      code: 'gsm8k_dir_not_found',
      field: 'dataDir',
    });
  }
  return resolved;
}

/** The largest GSM8K split read: 512 MiB (the real train.jsonl is about 4 MiB), checked before reading, with its kind. */
export const GSM8K_FILE_MAX_BYTES = 512 * 1024 * 1024;

/**
 * A GSM8K split's bytes, read bounded: a FIFO, a device, a folder or a file over {@link GSM8K_FILE_MAX_BYTES} is
 * refused at once (`gsm8k_file_not_regular`), never waited on or read without end.
 *
 * @throws {RlAdvantagesError} `gsm8k_file_not_regular` naming the file and what it is; `gsm8k_file_not_found` when unreadable.
 * @example
 * ```ts
 * const bytes = readGsm8kFile('data/gsm8k/train.jsonl');
 * ```
 */
export function readGsm8kFile(file: string): Buffer {
  try {
    return readBoundedFile(file, GSM8K_FILE_MAX_BYTES);
  } catch (error) {
    if (!(error instanceof BoundedReadError)) throw error;
    const code = error.reason === 'unreadable' ? 'gsm8k_file_not_found' : 'gsm8k_file_not_regular';
    throw new RlAdvantagesError(`GSM8K file ${error.message}${error.reason === 'unreadable' ? '' : `. ${gsm8kHowToProvide()}`}`, { code, field: 'dir' });
  }
}

/**
 * Reads `<dir>/<split>.jsonl`: one JSON object a line with string fields `question` and `answer`
 * (other fields are ignored); whitespace-only lines are skipped. Each row's reference answer is
 * `gsm8kReferenceAnswer(answer)`.
 *
 * @param dir - The folder holding `train.jsonl` and `test.jsonl` (see `resolveGsm8kDir`).
 * @param split - `'train'` (7473 rows) or `'test'` (1319 rows).
 * @returns The rows in file order.
 * @throws {RlAdvantagesError} `bad_split` for another split; `gsm8k_file_not_found` when the file is
 *   missing; `gsm8k_file_not_regular` for a FIFO, a device, a folder or a file over 512 MiB; `bad_json`, `missing_field` or `no_reference_answer`/`empty_reference_answer` naming the
 *   file and 1-based line of a bad row.
 * @example
 * ```ts
 * import { loadGsm8k } from 'rl-advantages/data';
 * const test = loadGsm8k(process.env.GSM8K_DIR ?? 'data/gsm8k', 'test');
 * console.log(test[0]?.id, test[0]?.referenceAnswer); // gsm8k_test_0 18
 * ```
 */
export function loadGsm8k(dir: string, split: Gsm8kSplit): Gsm8kItem[] {
  if (split !== 'train' && split !== 'test') {
    throw new RlAdvantagesError(`split must be "train" or "test", got ${describe(split)}`, {
      code: 'bad_split',
      field: 'split',
    });
  }
  const file = path.join(dir, `${split}.jsonl`);
  if (!existsSync(file)) {
    throw new RlAdvantagesError(`GSM8K file ${file} does not exist. ${gsm8kHowToProvide()}`, {
      code: 'gsm8k_file_not_found',
      field: 'dir',
    });
  }
  const lines = readGsm8kFile(file).toString('utf8').split('\n');
  const items: Gsm8kItem[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    if (line.trim() === '') continue;
    const where = `${file} line ${i + 1}`;
    const row = parseRow(line, where);
    const question = requireString(row, 'question', where);
    const answer = requireString(row, 'answer', where);
    let referenceAnswer: string;
    try {
      referenceAnswer = gsm8kReferenceAnswer(answer);
    } catch (error) {
      if (!(error instanceof RlAdvantagesError)) throw error;
      throw new RlAdvantagesError(`${where}: ${error.message}`, { code: error.code, field: 'answer' });
    }
    const index = items.length;
    items.push({ index, id: `gsm8k_${split}_${index}`, question, answer, referenceAnswer });
  }
  return items;
}

function parseRow(line: string, where: string): Record<string, unknown> {
  let row: unknown;
  try {
    row = JSON.parse(line);
  } catch (error) {
    throw new RlAdvantagesError(`${where} is not valid JSON: ${(error as Error).message}`, { code: 'bad_json' });
  }
  if (typeof row !== 'object' || row === null || Array.isArray(row)) {
    throw new RlAdvantagesError(`${where} must be a JSON object, got ${describe(row)}`, { code: 'bad_json' });
  }
  return row as Record<string, unknown>;
}

function requireString(row: Record<string, unknown>, field: string, where: string): string {
  const value = row[field];
  if (typeof value !== 'string') {
    throw new RlAdvantagesError(`${where}: field "${field}" must be a string, got ${describe(value)}`, {
      code: 'missing_field',
      field,
    });
  }
  return value;
}
