// The rl-adv command line, built as a commander program that tests can run in-process or as a
// subprocess. Commands live one per module beside this file and register themselves here.
import { Command, CommanderError } from 'commander';
import { RlAdvantagesError } from '../errors.js';
import { VERSION } from '../version.js';

/** Where a command writes; tests substitute buffers. */
export interface CliIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  stdin: NodeJS.ReadableStream;
}

/** A usage or input error: exit code 2, message on stderr, no stack trace. */
export class CliUsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CliUsageError';
  }
}

export function buildProgram(io: CliIo): Command {
  const program = new Command('rl-adv')
    .description(
      'Advantage estimators for RL post-training (GRPO group mean, leave-one-out, GS1 TF-IDF kernel), ' +
        'B_eff calibration, the activation gate and the paired Hoeffding decision.',
    )
    .version(VERSION, '-V, --version', 'print the rl-advantages version')
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
    })
    .exitOverride()
    .showHelpAfterError('(run rl-adv --help for usage)')
    .addHelpText(
      'after',
      '\nExample:\n  rl-adv --version\n\nExit codes: 0 success, 1 a failed gate, 2 bad input or usage.',
    );
  return program;
}

/**
 * Runs the command line with `argv` (without the node and script entries) and returns the exit
 * code: 0 success, 1 a failed gate, 2 bad input or usage. User errors print one message on
 * stderr, never a stack trace.
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const program = buildProgram(io);
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version exit through here with code 0.
      return error.exitCode === 0 ? 0 : 2;
    }
    if (error instanceof CliUsageError || error instanceof RlAdvantagesError) {
      io.stderr.write(`rl-adv: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
}
