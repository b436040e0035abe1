// What every rl-adv command shares: its streams, its exit codes, its errors and its help layout.
// Kept apart from program.ts so command modules do not import the module that imports them.
import type { Command } from 'commander';
import { docsUrl } from '../internal/links.js';

/** Where a command reads and writes; tests substitute buffers. */
export interface CliIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  stdin: NodeJS.ReadableStream;
}

/** The exit codes of every rl-adv command. */
export const EXIT_CODES = Object.freeze({
  /** The command did what was asked. */
  ok: 0,
  /** The activation gate failed (`rl-adv gate`, and any command that evaluates the gate). */
  gateFailed: 1,
  /** Bad input or usage: a message on stderr names the file, line and field. */
  usage: 2,
});

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

/**
 * Adds the `Example:` section every command's `--help` shows, and a usage hint after an error.
 *
 * @param command - a command created with `parent.command(name)`.
 * @param examples - command lines, each optionally followed by `  # comment`.
 */
export function withExamples(command: Command, examples: readonly string[]): Command {
  const path: string[] = [];
  for (let c: Command | null = command; c !== null; c = c.parent) path.unshift(c.name());
  // A user of an npm install has no docs/ folder: a description citing docs/method.md gets the page's URL.
  const cites = /docs\/method\.md/.test(command.description());
  const reference = cites ? `\ndocs/method.md: ${docsUrl('method.md')}\n` : '';
  return command
    .showHelpAfterError(`(run ${path.join(' ')} --help for usage)`)
    .addHelpText('after', `\nExample${examples.length > 1 ? 's' : ''}:\n${examples.map((e) => `  ${e}`).join('\n')}\n${reference}`);
}
