// The command line the Python package runs (python/rl_advantages/_js/rl-adv.js): `serve`, `estimators`,
// `advantages` and the commands its thin wrappers call, in one self-contained file (every dependency inlined, see
// tsup.config.ts). It leaves out `report` and `study`, whose chart code needs vega.
import { register as advantages } from './cli/commands/advantages.js';
import { register as calibrate } from './cli/commands/calibrate.js';
import { register as decide } from './cli/commands/decide.js';
import { register as estimators } from './cli/commands/estimators.js';
import { register as plan } from './cli/commands/plan.js';
import { register as serve } from './cli/commands/serve.js';
import { register as tuneKernel } from './cli/commands/tune-kernel.js';
import type { RegisterCommand } from './cli/commands/index.js';
import { EXIT_CODES, stdoutFailed } from './cli/core.js';
import { runCliWith } from './cli/run.js';

/** The bundle's commands, in help order. */
const BUNDLED: readonly RegisterCommand[] = [estimators, advantages, serve, calibrate, tuneKernel, decide, plan];

// Standard output that fails (a reader that stopped early, a full device): exit 74, without a stack trace.
process.stdout.on('error', (error: NodeJS.ErrnoException) => stdoutFailed(error, process.stderr, (code) => process.exit(code)));

runCliWith(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin }, (program, io) => {
  for (const register of BUNDLED) register(program, io);
}).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`rl-adv: internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = EXIT_CODES.internal;
  },
);
