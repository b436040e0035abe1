// rl-adv study revise: writes the revised spec that adopts a tuned kernel (src/study/revise.ts), the only way a
// study's treatment arm changes to a tuned kernel. Exit 0 written, 2 refused or bad input.
import { join } from 'node:path';
import type { Command } from 'commander';
import { loadGsm8k, resolveGsm8kDir } from '../../data/gsm8k.js';
import { formatFigure } from '../../internal/figures.js';
import { studyTrainItems } from '../../study/load-questions.js';
import { writeRevisedSpec } from '../../study/revise.js';
import type { SimQuestionSet } from '../../study/sim/questions.js';
import { withExamples, type CliIo } from '../core.js';
import { forceOption, inputOption, outputOption } from '../outputs.js';
import { questionSetOption } from './study-options.js';

interface ReviseCliOptions {
  spec: string;
  kernel: string;
  out: string;
  reason?: string;
  force?: boolean;
  dataDir?: string;
  simQuestions?: SimQuestionSet;
}

function run(options: ReviseCliOptions, io: CliIo): void {
  const questions = options.simQuestions ?? 'gsm8k';
  const train = questions === 'gsm8k' ? loadGsm8k(resolveGsm8kDir(options.dataDir), 'train') : studyTrainItems(questions);
  const revised = writeRevisedSpec({
    specPath: options.spec,
    kernelPath: options.kernel,
    outPath: options.out,
    train,
    ...(options.reason !== undefined ? { reason: options.reason } : {}),
    force: options.force === true,
  });
  const r = revised.revision;
  const held = r.held_out as { ratio?: unknown; ratio_ci95?: unknown };
  const figure = (x: unknown): string => formatFigure(typeof x === 'number' ? x : null);
  const ci = Array.isArray(held.ratio_ci95) ? ` [${held.ratio_ci95.map(figure).join(', ')}]` : '';
  io.stdout.write(
    `${options.out}: version ${r.previous_version + 1}, arm ${r.arm}: ${r.previous_advantage} -> ${r.advantage} ` +
      `(${r.kernel_family}, held-out ratio ${figure(held.ratio)}${ci}; ${r.tuning_tasks} tuning tasks, none in the gate's calibration set)\n`,
  );
}

/** Registers `rl-adv study revise` under the `study` command. */
export function registerRevise(study: Command, io: CliIo): void {
  const command = study
    .command('revise')
    .summary('write a revised spec whose treatment arm uses a tuned kernel (kernel:PATH), with a recorded revision')
    .description(
      'Writes --out: the spec of --spec with version + 1, the treatment arm\'s advantage set to kernel:PATH (PATH the\n' +
        'kernel file relative to the folder of --out) and a "revision" record (reason, date, previous spec sha256,\n' +
        'kernel sha256, tuning data sha256, the kernel\'s held-out figures). Nothing else changes: not the gate, not\n' +
        'the other arm. Refused (exit 2) when the kernel was tuned on any task of the gate\'s calibration set (by task\n' +
        'id or by prompt), so the gate is never scored on data the kernel saw. Never overwrites --out unless --force.',
    )
    .addOption(inputOption('--spec <file>', 'the spec to revise').makeOptionMandatory())
    .addOption(inputOption('--kernel <file>', 'the kernel file (rl-adv tune-kernel --out, or kernel.json of rl-adv study --tune-kernel)').makeOptionMandatory())
    .addOption(outputOption('--out <file>', 'the revised spec to write').makeOptionMandatory())
    .option('--reason <text>', 'why the spec is revised (recorded)')
    .addOption(forceOption())
    .addOption(
      inputOption(
        '--data-dir <dir>',
        "GSM8K folder (the gate's calibration set is read from its train.jsonl; default: $GSM8K_DIR, else the cache)",
        (dir) => [join(dir as string, 'train.jsonl')],
      ),
    )
    .option('--sim-questions <set>', 'clustered: the study ran on the built-in clustered question set (sim)', questionSetOption)
    .action((options: ReviseCliOptions) => run(options, io));
  withExamples(command, [
    'rl-adv study revise --spec my.spec.json --kernel runs/sim/kernel.json --out my.spec.v2.json --reason "tuned kernel, held out 1.04"',
  ]);
}
