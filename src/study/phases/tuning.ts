// The optional tuning phase (`rl-adv study --tune-kernel`; docs/study.md, "The tuning phase"): the starting
// policy's rollouts, one per task, on train tasks neither arm reaches nor the gate uses (tuning.jsonl, the
// calibrate row format), and a kernel tuned on them by tune-kernel (kernel.json). It never changes this run's arms:
// a kernel is adopted only through `rl-adv study revise`, a recorded revised spec, before any training, or by an arm
// the spec itself declares `tuned_kernel` (with its `tuning` section): the kernel is then frozen here, its sha256 in
// run.json, before the pilot (docs/study.md, "Kernel arms").
import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { CalibrationRow } from '../../calibration/beff.js';
import { readJsonl } from '../backends/files.js';
import { TUNING_TASKS, type TuningKernelSummary, type TuningSummary } from '../summary.js';
import { tuningTaskRows } from '../task-sets.js';
import { tuneStudyKernel } from '../tune-kernel.js';
import type { PhaseContext, PhaseResult, StudyPhaseStep } from './context.js';
import { tuningJob } from './job-graph.js';
import { sha256File } from '../../internal/sha256.js';
import { formatFigure } from '../../internal/figures.js';
import type { LoadedKernel } from '../../kernels/kernel-file.js';
import { TUNED_KERNEL } from '../kernel-arm-spec.js';
import { freezeTunedKernel } from '../run-kernels.js';

/** The rows' file and the kernel's, in the run folder. */
export const TUNING_FILE = 'tuning.jsonl';
export const KERNEL_FILE = 'kernel.json';

/** The tuning rows: tuning.jsonl when a previous attempt wrote it (a resume), else sampled by the backend. */
async function tuningRows(ctx: PhaseContext, count: number): Promise<{ rows: CalibrationRow[]; first: number; end: number }> {
  const { study } = ctx;
  const picked = tuningTaskRows(ctx.spec, study.train, study.order, count, ctx.options.steps);
  const file = path.join(ctx.dir, TUNING_FILE);
  if (existsSync(file)) {
    // Kept only when it is the file summary.json recorded (an attempt killed before recording it wrote it whole).
    const recorded = ctx.summary.tuning?.sha256;
    if (recorded === undefined || sha256File(file) === recorded) return { rows: readJsonl<CalibrationRow>(file), first: picked.first, end: picked.end };
    ctx.options.onPhase?.({ kind: 'note', line: `${file}: its sha256 differs from the one summary.json records (truncated or edited); sampling it again` });
    for (const f of [file, path.join(ctx.dir, KERNEL_FILE)]) rmSync(f, { force: true });
  }
  ctx.events.label(`tuning: sampling ${count} tasks x 1`);
  const rows = await tuningJob(ctx).run();
  return { rows, first: picked.first, end: picked.end };
}

function kernelLine(k: TuningKernelSummary): string {
  const ci = k.held_out.ratio_ci95 === null ? '' : ` [${formatFigure(k.held_out.ratio_ci95[0])}, ${formatFigure(k.held_out.ratio_ci95[1])}]`;
  return `kernel ${k.family}: held-out B_eff ratio ${formatFigure(k.held_out.ratio)}${ci} (tuning ${formatFigure(k.tuning_ratio)}, ${k.candidates ?? '?'} candidates)`;
}

async function run(ctx: PhaseContext): Promise<PhaseResult> {
  const count = ctx.summary.options.tuning_tasks ?? TUNING_TASKS;
  const { rows, first, end } = await tuningRows(ctx, count);
  const file = path.join(ctx.dir, TUNING_FILE);
  const tuning: TuningSummary = {
    tasks: count,
    rows: rows.length,
    file: TUNING_FILE,
    sha256: sha256File(file),
    mean_reward: rows.reduce((s, r) => s + r.reward, 0) / rows.length,
    order_first: first,
    order_end: end,
    kernel: null,
  };
  ctx.summary.tuning = tuning;
  ctx.save();
  ctx.events.label(`tuning: tune-kernel on ${rows.length} rows`);
  tuning.kernel = await tuneStudyKernel(ctx, rows, { file, sha256: tuning.sha256 }, path.join(ctx.dir, KERNEL_FILE));
  const arms = freeze(ctx);
  const use = arms === '' ? 'not adopted (rl-adv study revise)' : `frozen for ${arms} (sha256 ${tuning.kernel.sha256.slice(0, 12)}... in run.json)`;
  return { line: `${rows.length} rows (mean reward ${formatFigure(tuning.mean_reward, 3)}); ${kernelLine(tuning.kernel)}; ${use}` };
}

/**
 * The arms that train with the tuned kernel (`tuned_kernel`): kernel.json frozen into run.json (a resumed run's
 * checked against it) and loaded for the backend and the calibration. Their names, or '' when there are none.
 */
function freeze(ctx: PhaseContext): string {
  const arms = ctx.spec.arms.filter((a) => a.advantage === TUNED_KERNEL).map((a) => a.name);
  if (arms.length > 0) (ctx.study.kernels as Record<string, LoadedKernel>)[TUNED_KERNEL] = freezeTunedKernel(ctx.dir, KERNEL_FILE, ctx.spec);
  return arms.join(', ');
}

/**
 * The tuning phase: tuning.jsonl and kernel.json; it runs with `--tune-kernel` or the spec's `tuning` section (the
 * run's tuning settings in summary.json's options).
 */
export const tuningPhase: StudyPhaseStep = { name: 'tuning', run, restore: (ctx) => void freeze(ctx), enabled: (ctx) => ctx.summary.options.tuning_tasks !== undefined };
