// The kernel-arm phase (docs/study.md, "Kernel arms"): after the tuning phase has frozen the tuned kernel and before
// the pilot, every kernel arm's B_eff ratio against the LOO batch mean on the gate's calibration set
// (calibration/calibration.jsonl, the calibration phase's rows and settings: the same batches for every kernel),
// written to calibration/kernel-arms.json and summary.json's `kernel_arms`. The decision phase adds each arm's gain.
import path from 'node:path';
import { calibrateBeff, groupCalibrationRows, type CalibrationRow } from '../../calibration/beff.js';
import { calibrationJson } from '../../calibration/json.js';
import { formatFigure } from '../../internal/figures.js';
import { readJson, readJsonl, writeJsonAtomic } from '../backends/files.js';
import { isKernelArmAdvantage, measuresKernelArms, TUNED_KERNEL } from '../kernel-arm-spec.js';
import type { RunKernelRecord } from '../run-kernels.js';
import type { KernelArmsSummary } from '../summary.js';
import type { PhaseContext, PhaseResult, StudyPhaseStep } from './context.js';

/** The phase's artifact, in the run folder. */
export const KERNEL_ARMS_FILE = 'calibration/kernel-arms.json';

/** The sha256 run.json records for an arm's kernel, or null (a named estimator). */
function kernelSha(run: Record<string, unknown>, advantage: string): string | null {
  if (advantage === TUNED_KERNEL) return (run.tuned_kernel as RunKernelRecord | undefined)?.sha256 ?? null;
  return (run.kernels as Record<string, RunKernelRecord> | undefined)?.[advantage]?.sha256 ?? null;
}

async function run(ctx: PhaseContext): Promise<PhaseResult> {
  const arms = ctx.spec.arms.filter((a) => isKernelArmAdvantage(a.advantage));
  const names = [...new Set(arms.map((a) => a.advantage))];
  const rows = ctx.state.calibrationRows ?? readJsonl<CalibrationRow>(path.join(ctx.dir, 'calibration', 'calibration.jsonl'));
  ctx.events.label(`kernel arms: B_eff of ${names.length} kernel(s) (${ctx.settings.batches} batches)`);
  const c = calibrateBeff(groupCalibrationRows(rows), {
    batchSize: ctx.settings.batchSize,
    batches: ctx.settings.batches,
    bootstrap: ctx.settings.bootstrap,
    estimators: names,
    reference: 'loo_batch_mean',
    seed: ctx.settings.calibrationSeed,
    vectorizer: ctx.study.vectorizer,
    kernels: ctx.study.kernels,
    onProgress: ctx.study.progress,
  });
  writeJsonAtomic(path.join(ctx.dir, KERNEL_ARMS_FILE), calibrationJson(c, { corpus: 'train.jsonl', corpus_field: 'question' }));
  const runJson = readJson<Record<string, unknown>>(path.join(ctx.dir, 'run.json'));
  const summary: KernelArmsSummary = {
    file: KERNEL_ARMS_FILE,
    reference: 'loo_batch_mean',
    reference_arm: ctx.spec.arms.find((a) => a.advantage === 'loo_batch_mean')?.name ?? null,
    batch_size: c.batchSize,
    batches: c.batches,
    interval_method: c.intervalMethod,
    arms: arms.map((arm) => {
      const e = c.estimators[arm.advantage];
      return {
        arm: arm.name,
        advantage: arm.advantage,
        kernel_sha256: kernelSha(runJson, arm.advantage),
        beff_ratio: e?.ratio ?? Number.NaN,
        beff_ratio_ci95: e?.ratioCi95 ?? null,
        gain: null,
      };
    }),
  };
  ctx.summary.kernel_arms = summary;
  const parts = summary.arms.map((a) => `${a.arm} ${formatFigure(a.beff_ratio)}${a.beff_ratio_ci95 ? ` [${formatFigure(a.beff_ratio_ci95[0])}, ${formatFigure(a.beff_ratio_ci95[1])}]` : ''}`);
  return Promise.resolve({ line: `B_eff ratio vs the LOO batch mean: ${parts.join('; ')}` });
}

/** The kernel-arm phase: calibration/kernel-arms.json; it runs for a spec with kernel arms (measuresKernelArms). */
export const kernelArmsPhase: StudyPhaseStep = {
  name: 'kernel_arms',
  run,
  enabled: (ctx) => measuresKernelArms(ctx.spec.raw, ctx.spec.arms) && ctx.spec.arms.some((a) => isKernelArmAdvantage(a.advantage)),
};
