// rl-adv spec print: writes out the study spec that ships with the package, for a user to copy and edit.
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { withExamples, type CliIo } from '../core.js';
import { SHIPPED_SPEC, shippedSpecPath } from '../shipped-spec.js';

/** Registers `rl-adv spec` and its `print` subcommand. */
export function register(program: Command, io: CliIo): void {
  const spec = program.command('spec').summary('the study spec that ships with rl-advantages').description('The study spec rl-adv study runs when no --spec is given.');
  withExamples(spec, ['rl-adv spec print > my.spec.json']);
  const print = spec
    .command('print')
    .summary(`write specs/${SHIPPED_SPEC} (the default study spec) to stdout`)
    .description(
      `Writes the shipped specs/${SHIPPED_SPEC}, byte for byte, to stdout: the spec rl-adv study runs without ` +
        '--spec. Redirect it into a file, edit it, and pass that file with --spec.',
    )
    .option('--path', 'print only where the file is')
    .action((options: { path?: boolean }) => {
      const file = shippedSpecPath();
      io.stdout.write(options.path === true ? `${file}\n` : readFileSync(file, 'utf8'));
    });
  withExamples(print, ['rl-adv spec print > my.spec.json', 'rl-adv study --spec my.spec.json --out runs/mine']);
}
