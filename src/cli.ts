// The `rl-adv` executable.
import { EXIT_CODES, stdoutFailed } from './cli/core.js';
import { runCli } from './cli/program.js';

// Standard output that fails (a reader that stopped early, `> /dev/full`): exit 74, without a stack trace.
process.stdout.on('error', (error: NodeJS.ErrnoException) => stdoutFailed(error, process.stderr, (code) => process.exit(code)));

runCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin }).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`rl-adv: internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = EXIT_CODES.internal;
  },
);
