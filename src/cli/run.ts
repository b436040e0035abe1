// The program and its runner for a given set of commands: the full `rl-adv` (./program.ts) and the
// Python package's bundle (src/serve-bundle.ts, a few commands without the report's chart code) share them.
import { Command, CommanderError } from 'commander';
import { RlAdvantagesError, RlAdvantagesIoError } from '../errors.js';
import { errnoReason, IO_ERRNOS } from '../internal/durable-write.js';
import { VERSION } from '../version.js';
import { CliExit, CliUsageError, EXIT_CODES, formatExample, HELP_CONFIGURATION, type CliIo } from './core.js';
import { guardOutputs } from './outputs.js';
import { ThreadsWarning } from './threads-warning.js';

/** Registers a set of commands on a program. */
export type RegisterAll = (program: Command, io: CliIo) => void;

/**
 * Builds the `rl-adv` program with the commands `registerAll` adds; output goes to `io`.
 *
 * @example
 * ```ts
 * const program = buildProgramWith({ stdout: process.stdout, stderr: process.stderr, stdin: process.stdin }, registerCommands);
 * console.log(program.commands.map((c) => c.name()));
 * ```
 */
export function buildProgramWith(io: CliIo, registerAll: RegisterAll): Command {
  const program = new Command('rl-adv')
    .description(
      'Advantage estimators for RL post-training (GRPO group mean, leave-one-out, GS1 TF-IDF kernel), ' +
        'B_eff calibration, the activation gate and the paired Hoeffding decision.',
    )
    .version(VERSION, '-V, --version', 'print the rl-advantages version')
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
      // Commander says "error: ..."; every rl-adv message starts "rl-adv: ".
      outputError: (text, write) => write(text.replace(/^error: /, 'rl-adv: ')),
    })
    .exitOverride()
    // Options are read by the command they follow, so `study --spec` and `study revise --spec` do not clash.
    .enablePositionalOptions()
    .configureHelp(HELP_CONFIGURATION)
    .showHelpAfterError('(run rl-adv --help for usage)')
    .addHelpText(
      'after',
      `\nExample:\n${formatExample('rl-adv advantages --estimator loo_batch_mean --input rollouts.jsonl')}\n\n` +
        'Exit codes: 0 success, 1 a failed gate, 2 bad input or usage, 74 a file or stream that cannot be written, 70 a bug.\n',
    );
  registerAll(program, io);
  unknownOptionsFirst(program);
  // Every command's outputs are checked against its inputs and the overwrite policy before it runs.
  program.hook('preAction', (_program, command) => guardOutputs(command));
  return program;
}

/** Commander's internals this file reaches: the parsed arguments and the unknown-option report. */
interface CommanderInternals {
  args: string[];
  missingMandatoryOptionValue(option: unknown): void;
  unknownOption(flag: string): void;
}

/** Whether `flag` is an option of `command` or of a command above it (help and version included). */
function known(command: Command, flag: string): boolean {
  if (flag === '-h' || flag === '--help') return true;
  for (let c: Command | null = command; c !== null; c = c.parent) if (c.options.some((o) => o.long === flag || o.short === flag)) return true;
  return false;
}

/**
 * Reports an unknown option (with commander's "Did you mean --estimator?") before a missing required
 * one: commander checks required options first, so `--estimater X` said only that `--estimator` was
 * missing. Applied to `command` and every subcommand.
 */
function unknownOptionsFirst(command: Command): void {
  const internals = command as unknown as CommanderInternals;
  const missing = internals.missingMandatoryOptionValue.bind(command);
  internals.missingMandatoryOptionValue = (option: unknown) => {
    // Left-over arguments that look like options are the ones no option of the command took.
    const unknown = internals.args.find((arg) => /^--?[^-\d]/.test(arg) && !known(command, arg.split('=')[0] as string));
    if (unknown !== undefined) internals.unknownOption(unknown.split('=')[0] as string);
    missing(option);
  };
  for (const sub of command.commands) unknownOptionsFirst(sub);
}

/**
 * The one-line message of an I/O failure (exit 74): an {@link RlAdvantagesIoError}, or a system error of a file
 * operation whose code is an I/O failure (a full disk, a device error, a read-only file system), which names its path.
 */
function ioFailure(error: unknown): string | undefined {
  if (error instanceof RlAdvantagesIoError) return error.message;
  const e = error as NodeJS.ErrnoException | null;
  // A permission refused in the middle of a command (a folder made read-only under it) is the system's too.
  const code = typeof e?.code === 'string' ? e.code : '';
  if (!(IO_ERRNOS.has(code) || code === 'EACCES' || code === 'EPERM') || typeof e?.syscall !== 'string') return undefined;
  return `cannot ${e.syscall}${e.path === undefined ? '' : ` ${e.path}`}: ${errnoReason(e)} (${code})`;
}

/**
 * Runs the command line of the commands `registerAll` adds with `argv` (without the node and script entries) and returns the exit
 * code (EXIT_CODES, the table of docs/cli.md): 0 success, 1 a failed gate, 2 bad input or usage, 74 an I/O failure.
 * User and I/O errors print one line `rl-adv: <message>` on stderr, never a stack trace; anything else is a bug and
 * is rethrown (the executable prints it with its stack and exits 70).
 */
export async function runCliWith(argv: readonly string[], io: CliIo, registerAll: RegisterAll): Promise<number> {
  const program = buildProgramWith(io, registerAll);
  const threads = new ThreadsWarning(io.stderr);
  program.hook('preAction', () => threads.start());
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return EXIT_CODES.ok;
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version exit through here with code 0; commander has printed its message.
      return error.exitCode === 0 ? EXIT_CODES.ok : EXIT_CODES.usage;
    }
    if (error instanceof CliExit) {
      if (!error.silent) io.stderr.write(`rl-adv: ${error.message}\n`);
      return error.exitCode;
    }
    const io74 = ioFailure(error);
    if (io74 !== undefined) {
      io.stderr.write(`rl-adv: ${io74}\n`);
      return EXIT_CODES.io;
    }
    if (error instanceof CliUsageError || error instanceof RlAdvantagesError) {
      io.stderr.write(`rl-adv: ${error.message}\n`);
      return EXIT_CODES.usage;
    }
    throw error;
  } finally {
    threads.stop();
  }
}
