// Reading and writing the files rl-adv commands take: JSON-lines rows whose errors name the file,
// line and field; JSON documents; prompt corpora; the fitted vectorizer (outputs are written by outputs.ts).
import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { RlAdvantagesError } from '../errors.js';
import { BoundedReadError, readBoundedFile, sizeWords } from '../internal/bounded-read.js';
import { describe } from '../internal/validate.js';
import { TfidfVectorizer } from '../text/tfidf.js';
import { CliUsageError, type CliIo } from './core.js';

/** The file name that means standard input (for reading) or standard output (for writing). */
export const STDIO = '-';

/** How a file is named in messages: `<stdin>` / `<stdout>` for `-`, else the path as the user gave it. */
export function displayName(file: string, direction: 'in' | 'out' = 'in'): string {
  if (file !== STDIO) return file;
  return direction === 'in' ? '<stdin>' : '<stdout>';
}

/**
 * An input error located in a file: `FILE[:LINE]: [field "FIELD": ]MESSAGE`, e.g.
 * `input.jsonl:3: field "reward": must be a finite number, got "x"`. Exit code 2.
 */
export function inputError(file: string, line: number | undefined, field: string | undefined, message: string): CliUsageError {
  const where = line === undefined ? displayName(file) : `${displayName(file)}:${line}`;
  return new CliUsageError(`${where}: ${field === undefined ? '' : `field ${JSON.stringify(field)}: `}${message}`);
}

function reason(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'ENOENT') return 'no such file or folder';
  if (code === 'EISDIR') return 'is a folder, not a file';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  return error instanceof Error ? error.message : String(error);
}

async function readStream(stream: NodeJS.ReadableStream, maxBytes = Infinity, option = ''): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    size += bytes.length;
    if (size > maxBytes) throw new CliUsageError(`${option} <stdin>: more than the limit of ${sizeWords(maxBytes)}`);
    chunks.push(bytes);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Reads a file bounded (a regular file of at most `maxBytes`, or stdin for `-`, up to `maxBytes`). */
async function readBoundedText(file: string, io: CliIo, option: string, maxBytes: number): Promise<string> {
  if (file === STDIO) return readStream(io.stdin, maxBytes, option);
  try {
    return readBoundedFile(file, maxBytes).toString('utf8');
  } catch (error) {
    if (!(error instanceof BoundedReadError)) throw error;
    if (error.reason === 'unreadable') throw new CliUsageError(`${option} ${file}: cannot read it (${reason((error.cause ?? error) as Error)})`);
    throw new CliUsageError(`${option} ${error.message}`);
  }
}

/**
 * Reads a whole text file, or standard input for `-`, as UTF-8 (a leading byte-order mark is dropped).
 *
 * @param option - the option that named the file (e.g. `--input`), for the error message.
 * @param maxBytes - when given, the file must be a regular file (or `-`) of at most this many bytes, checked before
 *   it is read.
 * @throws {CliUsageError} when the file cannot be read, naming the option and the file, or when `-`
 *   is a terminal; with `maxBytes`, when it is not a regular file or is larger.
 */
export async function readText(file: string, io: CliIo, option: string, maxBytes?: number): Promise<string> {
  if (file === STDIO && (io.stdin as { isTTY?: boolean }).isTTY === true) {
    // Waiting for rows typed at a terminal is never what was meant.
    throw new CliUsageError(`${option} is standard input, which is a terminal: give ${option} FILE or pipe the rows in`);
  }
  let text: string;
  try {
    text = maxBytes !== undefined ? await readBoundedText(file, io, option, maxBytes) : file === STDIO ? await readStream(io.stdin) : await readFile(file, 'utf8');
  } catch (error) {
    if (error instanceof CliUsageError) throw error;
    throw new CliUsageError(`${option} ${displayName(file)}: cannot read it (${reason(error)})`);
  }
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** V8's JSON.parse message without the echo of the input it appends (which can be a whole line). */
function jsonMessage(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const echo = /^(.*?), ".*"(?:\.\.\.)? is not valid JSON$/s.exec(message);
  return echo?.[1] ?? message;
}

/** 1-based line of a character offset. */
function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

/**
 * Parses a whole-file JSON document (a spec, a metrics object, a saved vectorizer).
 *
 * @throws {CliUsageError} `FILE:LINE: not valid JSON (...)` (the line when V8 reports a position).
 */
export function parseJson(text: string, file: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    const position = /at position (\d+)/.exec(error instanceof Error ? error.message : '');
    const line = position?.[1] === undefined ? undefined : lineAt(text, Number(position[1]));
    throw inputError(file, line, undefined, `not valid JSON (${jsonMessage(error)})`);
  }
}

/** Reads and parses a JSON document. */
export async function readJson(file: string, io: CliIo, option: string): Promise<unknown> {
  return parseJson(await readText(file, io, option), file);
}

/** One row of a JSON-lines file, with typed access whose errors name the file, line and field. */
export class Row {
  readonly file: string;
  /** 1-based line number in the file. */
  readonly line: number;
  readonly value: Readonly<Record<string, unknown>>;

  constructor(file: string, line: number, value: Readonly<Record<string, unknown>>) {
    this.file = file;
    this.line = line;
    this.value = value;
  }

  /** An error about `field` of this row. */
  error(field: string | undefined, message: string): CliUsageError {
    return inputError(this.file, this.line, field, message);
  }

  /** Whether the row gives `field` (an own property that is not undefined). */
  has(field: string): boolean {
    return Object.hasOwn(this.value, field) && this.value[field] !== undefined;
  }

  private required(field: string, what: string): unknown {
    if (!this.has(field)) throw this.error(field, `is missing (${what})`);
    return this.value[field];
  }

  /** A required finite number. */
  number(field: string, what = 'a finite number'): number {
    const value = this.required(field, what);
    if (typeof value !== 'number' || !Number.isFinite(value)) {
      throw this.error(field, `must be a finite number, got ${describe(value)}`);
    }
    return value;
  }

  /** A required string. */
  string(field: string, what = 'a string'): string {
    const value = this.required(field, what);
    if (typeof value !== 'string') throw this.error(field, `must be a string, got ${describe(value)}`);
    return value;
  }

  /** A string when given, else undefined. */
  optionalString(field: string): string | undefined {
    return this.has(field) ? this.string(field) : undefined;
  }

  /** A required boolean. */
  boolean(field: string, what = 'true or false'): boolean {
    const value = this.required(field, what);
    if (typeof value !== 'boolean') throw this.error(field, `must be true or false, got ${describe(value)}`);
    return value;
  }

  /**
   * An id compared exactly: a non-empty string or an integer within +-(2^53 - 1). A JSON number beyond has lost its
   * identity in parsing (9007199254740993 reads as 9007199254740992), and a fraction's decimal is not its value.
   */
  id(field: string, what = 'a string or an integer'): string | number {
    const value = this.required(field, what);
    if ((typeof value === 'string' && value !== '') || Number.isSafeInteger(value)) return value as string | number;
    const why = typeof value === 'number' && Number.isInteger(value) ? ' (a JSON number beyond loses its identity: write such ids as strings)' : '';
    throw this.error(field, `must be a non-empty string or an integer within +-(2^53 - 1), got ${describe(value)}${why}`);
  }

  /** A required array of finite numbers. */
  numbers(field: string, what = 'an array of numbers'): number[] {
    const value = this.required(field, what);
    if (!Array.isArray(value)) throw this.error(field, `must be an array of finite numbers, got ${describe(value)}`);
    value.forEach((x: unknown, i) => {
      if (typeof x !== 'number' || !Number.isFinite(x)) {
        throw this.error(`${field}[${i}]`, `must be a finite number, got ${describe(x)}`);
      }
    });
    return value as number[];
  }
}

/**
 * Parses JSON-lines text: one JSON object a line; whitespace-only lines are skipped (they are not
 * rows), and line numbers count every physical line from 1.
 *
 * @throws {CliUsageError} `FILE:LINE: not valid JSON (...)` or `FILE:LINE: must be a JSON object`.
 */
export function parseJsonl(text: string, file: string): Row[] {
  const rows: Row[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    if (line.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      throw inputError(file, i + 1, undefined, `not valid JSON (${jsonMessage(error)})`);
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw inputError(file, i + 1, undefined, `must be a JSON object, got ${describe(value)}`);
    }
    rows.push(new Row(file, i + 1, value as Record<string, unknown>));
  }
  return rows;
}

/** Reads a JSON-lines file (or stdin for `-`); `required` makes an empty file an error. */
export async function readJsonl(file: string, io: CliIo, option: string, required = true): Promise<Row[]> {
  const rows = parseJsonl(await readText(file, io, option), file);
  if (required && rows.length === 0) throw inputError(file, undefined, undefined, 'holds no rows (one JSON object a line)');
  return rows;
}

/**
 * Restates a library error about element `index` of a batch array as an error about a file's row:
 * the library's field (e.g. `rewards`) becomes the row field (`reward`) and the index becomes the
 * row's line. Errors that name no row keep the file alone.
 *
 * @param fields - library field name -> row field name (e.g. `{ rewards: 'reward' }`).
 * @param lineOf - line of the row at a batch index.
 */
export function atRow(
  error: RlAdvantagesError,
  file: string,
  fields: Readonly<Record<string, string>>,
  lineOf: (index: number) => number | undefined,
): CliUsageError {
  const libraryField = error.field;
  const field = libraryField === undefined ? undefined : (fields[libraryField] ?? libraryField);
  let message = error.message;
  if (libraryField !== undefined) {
    // "rewards[3] must be ..." -> "must be ...": the file, line and field already say where.
    const prefix = new RegExp(`^${libraryField.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(\\[\\d+\\])? `);
    message = message.replace(prefix, '');
  }
  const line = error.index === undefined ? undefined : lineOf(error.index);
  return inputError(file, line, field, message);
}

/** Where a command's prompt vectorizer comes from. */
export interface VectorizerOptions {
  /** A corpus to fit on: JSON lines (one document in `corpusField` a line) or `.txt` (one a line). */
  corpus?: string | undefined;
  /** The JSON-lines field holding each document (default `question`). */
  corpusField?: string | undefined;
  /** A vectorizer saved by `rl-adv tfidf fit`. */
  vectorizer?: string | undefined;
}

/**
 * Reads a corpus: a `.txt` file is one document a line (whitespace-only lines are not documents);
 * any other file is JSON lines whose `field` (default `question`) holds the document text.
 *
 * @throws {CliUsageError} naming the file, line and field of a bad row, or an empty corpus.
 */
export async function readCorpus(file: string, io: CliIo, field = 'question'): Promise<string[]> {
  const text = await readText(file, io, '--corpus');
  let documents: string[];
  if (extname(file).toLowerCase() === '.txt') {
    documents = text
      .split('\n')
      .map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line))
      .filter((line) => line.trim() !== '');
  } else {
    documents = parseJsonl(text, file).map((row) => row.string(field, `each corpus row needs the document text in "${field}"; --corpus-field picks another field`));
  }
  if (documents.length === 0) throw inputError(file, undefined, undefined, 'holds no documents');
  return documents;
}

/**
 * The fitted TF-IDF vectorizer a command needs: fitted once on `--corpus`, or loaded from a
 * `--vectorizer` file saved by `rl-adv tfidf fit`; undefined when neither is given.
 *
 * @throws {CliUsageError} when both are given, or a file is unreadable or invalid (naming the file and field).
 */
export async function loadVectorizer(options: VectorizerOptions, io: CliIo): Promise<TfidfVectorizer | undefined> {
  if (options.corpus !== undefined && options.vectorizer !== undefined) {
    throw new CliUsageError('give either --corpus or --vectorizer, not both');
  }
  if (options.corpus !== undefined) {
    const documents = await readCorpus(options.corpus, io, options.corpusField ?? 'question');
    try {
      return TfidfVectorizer.fit(documents);
    } catch (error) {
      if (error instanceof RlAdvantagesError) throw inputError(options.corpus, undefined, undefined, error.message);
      throw error;
    }
  }
  if (options.vectorizer !== undefined) {
    const file = options.vectorizer;
    const text = await readText(file, io, '--vectorizer');
    // A corpus given where a saved vectorizer belongs is the likely mistake behind a file that is not one.
    const hint = `; --vectorizer takes a vectorizer saved by "rl-adv tfidf fit": to fit on this file, give it as --corpus ${file}`;
    let json: unknown;
    try {
      json = parseJson(text, file);
    } catch (error) {
      if (error instanceof CliUsageError) throw new CliUsageError(error.message + hint);
      throw error;
    }
    try {
      return TfidfVectorizer.fromJSON(json as Parameters<typeof TfidfVectorizer.fromJSON>[0]);
    } catch (error) {
      if (!(error instanceof RlAdvantagesError)) throw error;
      if (error.field === 'format') throw inputError(file, lineOfPath(text, 'format'), 'format', error.message.replace(/^format /, '') + hint);
      if (error.field === undefined) throw inputError(file, undefined, undefined, error.message);
      // fromJSON says e.g. "idf[3] must be a finite number": the field goes in front, the rest is the message.
      const field = error.index === undefined ? error.field : `${error.field}[${error.index}]`;
      const message = error.message.startsWith(`${field} `) ? error.message.slice(field.length + 1) : error.message;
      const key = error.field.split('.').pop() as string;
      throw inputError(file, lineOfPath(text, key), field, message);
    }
  }
  return undefined;
}

/**
 * 1-based line of a JSON path such as `decision_rule.criteria[0].margin` in a pretty-printed JSON
 * text: each key is searched for after the previous one, so the line is that of the right section
 * in the usual layouts (an approximation for keys repeated inside arrays). Undefined when a key is
 * not found. `path` may also be given as its keys.
 */
export function lineOfPath(text: string, path: string | readonly string[]): number | undefined {
  // A path given as keys keeps keys that contain dots (e.g. "tfidf_kernel_loo_T0.1") whole.
  const keys = (typeof path === 'string' ? path.split('.') : path)
    .map((part) => part.replace(/\[\d+\]/g, ''))
    .filter((part) => part !== '');
  let from = 0;
  let at = -1;
  for (const key of keys) {
    const needle = JSON.stringify(key);
    let found = -1;
    for (let i = text.indexOf(needle, from); i >= 0; i = text.indexOf(needle, i + needle.length)) {
      if (/^\s*:/.test(text.slice(i + needle.length, i + needle.length + 64))) {
        found = i;
        break;
      }
    }
    if (found < 0) return undefined;
    at = found;
    from = found + needle.length;
  }
  return at < 0 ? undefined : lineAt(text, at);
}
