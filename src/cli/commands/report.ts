// rl-adv report: rebuild report.md and report.html of a study run from its artifacts alone.
import type { Command } from 'commander';
import { writeStudyReports } from '../../report/write.js';
import { withExamples, type CliIo } from '../core.js';

async function run(runDir: string, io: CliIo): Promise<void> {
  const written = await writeStudyReports(runDir);
  io.stdout.write(`wrote ${written.markdown}\nwrote ${written.html}\n`);
}

/** Registers `rl-adv report`. */
export function register(program: Command, io: CliIo): void {
  const command = program
    .command('report')
    .summary("rebuild a study run's report.md and report.html from its artifacts")
    .description(
      'Reads RUN_DIR/summary.json and the files it names (no phase is run, nothing is recomputed) and writes ' +
        'report.md and report.html beside them: the same artifacts give the same bytes. report.html is one ' +
        'self-contained page (inline SVG charts and CSS, no script, no network). Exit 2 if RUN_DIR is not a study ' +
        'run or an artifact is missing.',
    )
    .argument('<run-dir>', 'a folder written by rl-adv study --out')
    .action(async (runDir: string) => run(runDir, io));
  withExamples(command, ['rl-adv report runs/sim']);
}
