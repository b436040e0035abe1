// The rl-adv command line, built as a commander program that tests can run in-process or as a
// subprocess. Commands live one per module in ./commands and register themselves through
// ./commands/index.ts; ./run.ts builds and runs the program.
import type { Command } from 'commander';
import { registerCommands } from './commands/index.js';
import type { CliIo } from './core.js';
import { buildProgramWith, runCliWith } from './run.js';

export { CliExit, CliUsageError, EXIT_CODES, withExamples, type CliIo } from './core.js';

/**
 * Builds the `rl-adv` program with every command registered; output goes to `io`.
 *
 * @example
 * ```ts
 * const program = buildProgram({ stdout: process.stdout, stderr: process.stderr, stdin: process.stdin });
 * console.log(program.commands.map((c) => c.name()));
 * ```
 */
export function buildProgram(io: CliIo): Command {
  return buildProgramWith(io, registerCommands);
}

/**
 * Runs the command line with `argv` (without the node and script entries) and returns the exit
 * code: 0 success, 1 a failed gate, 2 bad input or usage. User errors print one line
 * `rl-adv: <message>` on stderr, never a stack trace; anything else is a bug and is rethrown.
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  return runCliWith(argv, io, registerCommands);
}
