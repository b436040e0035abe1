// What every rl-adv command shares: its streams, its exit codes, its errors and its help layout.
// Kept apart from program.ts so command modules do not import the module that imports them.
import type { Command, Help, Option } from 'commander';
import { docsUrl } from '../internal/links.js';

/** Where a command reads and writes; tests substitute buffers. */
export interface CliIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  stdin: NodeJS.ReadableStream;
}

/** The exit codes of every rl-adv command: the one table of docs/cli.md ("Exit codes"). */
export const EXIT_CODES = Object.freeze({
  /** The command did what was asked. */
  ok: 0,
  /** The activation gate failed (`rl-adv gate`, and any command that evaluates the gate). */
  gateFailed: 1,
  /** Bad input or usage: a message on stderr names the file, line and field. */
  usage: 2,
  /** A bug in rl-adv (EX_SOFTWARE): the message carries a stack trace to report. */
  internal: 70,
  /** A file or stream could not be read or written (EX_IOERR): a full disk, a device error, a closed pipe. */
  io: 74,
});

/**
 * What an rl-adv executable does when its standard output fails: a reader that closed the pipe (`| head`) ends it
 * quietly, any other failure (`> /dev/full`: ENOSPC, EIO) with one line on stderr; both exit 74, never a stack trace.
 */
export function stdoutFailed(error: NodeJS.ErrnoException, stderr: NodeJS.WritableStream, exit: (code: number) => void): void {
  if (error.code !== 'EPIPE') {
    const reason = error.code === 'ENOSPC' ? 'no space left on the device' : error.code === 'EIO' ? 'an input/output error of the device' : error.message;
    stderr.write(`rl-adv: cannot write <stdout>: ${reason}${error.code === undefined ? '' : ` (${error.code})`}\n`);
  }
  exit(EXIT_CODES.io);
}

/** A usage or input error: exit code 2, `rl-adv: <message>` on stderr, no stack trace. */
export class CliUsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CliUsageError';
  }
}

/**
 * Ends a command with a given exit code after it has written its output: e.g. `rl-adv gate` prints
 * its report and then throws `new CliExit(EXIT_CODES.gateFailed)`. `message`, when given, is
 * printed on stderr as `rl-adv: <message>`.
 */
export class CliExit extends Error {
  readonly exitCode: number;
  /** True when nothing is to be printed. */
  readonly silent: boolean;

  constructor(exitCode: number, message = '') {
    super(message || `exit ${exitCode}`);
    this.name = 'CliExit';
    this.exitCode = exitCode;
    this.silent = message === '';
  }
}

/** The width help text is laid out for when the output is not a terminal (commander's default too). */
export const HELP_WIDTH = 80;

/** A default or choice as a user types it: `tfidf_kernel_loo_T0.1`, not `["tfidf_kernel_loo_T0.1"]`. */
export function plainValue(value: unknown): string {
  if (Array.isArray(value)) return value.map(plainValue).join(',');
  if (typeof value === 'string') return value === '' ? '""' : value;
  return String(value);
}

/**
 * Commander's help with plain defaults, and descriptions whose line breaks in the source are kept
 * only after a sentence (`.` or `:`), so a description hard-wrapped in code re-wraps to the width.
 */
export const HELP_CONFIGURATION: Partial<Help> = {
  optionDescription(option: Option): string {
    const extra: string[] = [];
    if (option.argChoices) extra.push(`choices: ${option.argChoices.map(plainValue).join(', ')}`);
    const showDefault = option.required || option.optional || (option.isBoolean() && typeof option.defaultValue === 'boolean');
    const shown = option.defaultValueDescription ?? (option.defaultValue === undefined ? '' : plainValue(option.defaultValue));
    // An empty list (a repeatable option given no times) is no default worth a word.
    if (shown !== '' && showDefault) extra.push(`default: ${shown}`);
    if (option.envVar !== undefined) extra.push(`env: ${option.envVar}`);
    const text = option.description;
    return extra.length === 0 ? text : `${text}${text === '' ? '' : ' '}(${extra.join(', ')})`;
  },
  commandDescription(command: Command): string {
    return command.description().replace(/([^.:])\n(?=\S)/g, '$1 ');
  },
};

/**
 * Splits a shell command line into the units a line break may fall between: words, with quoted
 * strings (and their spaces) whole, an option kept with its value and a redirection with its file.
 */
function shellUnits(line: string): string[] {
  const words = line.replace(/\\\n\s*/g, ' ').match(/(?:'[^']*'|"(?:[^"\\]|\\.)*"|[^\s'"])+/g) ?? [];
  const units: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const word = words[i] as string;
    const next = words[i + 1];
    const pairs = /^--?\w/.test(word) || /^\d?[<>]{1,2}$/.test(word);
    if (pairs && next !== undefined && !/^-|^[|&;<>]/.test(next)) {
      units.push(`${word} ${next}`);
      i++;
    } else units.push(word);
  }
  return units;
}

/**
 * One example as it prints in help: a `  # comment` after the command goes on the line above it,
 * and a command longer than `width` continues on indented lines ending in ` \` (broken between
 * words, never inside quotes), so it still runs when pasted.
 */
export function formatExample(example: string, width = HELP_WIDTH): string {
  const comment = /^(.*?)\s{2,}#\s*(.*)$/.exec(example);
  const command = comment === null ? example : (comment[1] as string);
  const lines: string[] = comment === null ? [] : [`  # ${comment[2] as string}`];
  let current = '  ';
  for (const word of shellUnits(command)) {
    const fresh = current.trim() === '';
    if (!fresh && current.length + 1 + word.length + 2 > width) {
      lines.push(`${current} \\`);
      current = `      ${word}`;
    } else current = fresh ? `${current}${word}` : `${current} ${word}`;
  }
  lines.push(current);
  return lines.join('\n');
}

/**
 * Adds the `Example:` section every command's `--help` shows, and a usage hint after an error.
 *
 * @param command - a command created with `parent.command(name)`.
 * @param examples - command lines, each optionally followed by `  # comment` (laid out by {@link formatExample}).
 */
export function withExamples(command: Command, examples: readonly string[]): Command {
  const path: string[] = [];
  for (let c: Command | null = command; c !== null; c = c.parent) path.unshift(c.name());
  // A user of an npm install has no docs/ folder: a description citing docs/method.md gets the page's URL.
  const cites = /docs\/method\.md/.test(command.description());
  const reference = cites ? `\nThe formulas: docs/method.md, online at\n  ${docsUrl('method.md')}\n` : '';
  return command
    .showHelpAfterError(`(run ${path.join(' ')} --help for usage)`)
    .addHelpText('after', `\nExample${examples.length > 1 ? 's' : ''}:\n${examples.map((e) => formatExample(e)).join('\n')}\n${reference}`);
}
