// Phase 3 (docs/method.md section 8): B_eff calibration of the treatment on the held-out tasks (docs/method.md section 4).
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { calibrateBeff, groupCalibrationRows, type BeffCalibration } from '../../calibration/beff.js';
import { calibrationJson, parseCalibrationJson } from '../../calibration/json.js';
import { readJson, writeJsonAtomic } from '../backends/files.js';
import { CALIBRATION_ROLLOUTS, CALIBRATION_TASKS, type CalibrationSummary } from '../summary.js';
import type { PhaseContext, PhaseResult, StudyPhaseStep } from './context.js';
import { calibrationJob } from './job-graph.js';
import { formatFigure } from '../../internal/figures.js';

function calibrationSummary(c: BeffCalibration): CalibrationSummary {
  const estimators: CalibrationSummary['estimators'] = {};
  for (const [name, e] of Object.entries(c.estimators)) {
    estimators[name] = { mse_corrected: e.mseCorrected, ratio: e.ratio, ratio_se: e.ratioSe, ratio_ci95: e.ratioCi95 };
  }
  return {
    tasks: c.tasks,
    rollouts: c.rollouts,
    mean_reward: c.meanReward,
    sigma_eps2: c.sigmaEps2,
    batch_size: c.batchSize,
    batches: c.batches,
    interval_method: c.intervalMethod,
    seed: c.seed,
    reference: c.reference,
    estimators,
  };
}

async function run(ctx: PhaseContext): Promise<PhaseResult> {
  const { settings, treatment } = ctx;
  const calibrationDir = path.join(ctx.dir, 'calibration');
  mkdirSync(calibrationDir, { recursive: true });
  ctx.events.label(`calibration: sampling ${CALIBRATION_TASKS} tasks x ${CALIBRATION_ROLLOUTS}`);
  const rows = await calibrationJob(ctx).run();
  ctx.state.calibrationRows = rows;
  ctx.events.label(`calibration: B_eff (${settings.batches} batches)`);
  const calibration = calibrateBeff(groupCalibrationRows(rows), {
    batchSize: settings.batchSize,
    batches: settings.batches,
    bootstrap: settings.bootstrap,
    estimators: [treatment.advantage],
    reference: 'loo_batch_mean',
    seed: settings.calibrationSeed,
    vectorizer: ctx.study.vectorizer,
    kernels: ctx.study.kernels,
    onProgress: ctx.study.progress,
  });
  ctx.state.calibration = calibration;
  writeJsonAtomic(path.join(calibrationDir, 'beff.json'), calibrationJson(calibration, { corpus: 'train.jsonl', corpus_field: 'question' }));
  ctx.summary.calibration = calibrationSummary(calibration);
  const ratio = calibration.estimators[treatment.advantage]?.ratio;
  return { line: `mean reward ${formatFigure(calibration.meanReward, 3)}, sigma_eps^2 ${formatFigure(calibration.sigmaEps2)}, B_eff ratio ${formatFigure(ratio)}` };
}

/** On a resume: the calibration read back from calibration/beff.json, for the gate. */
function restore(ctx: PhaseContext): void {
  ctx.state.calibration ??= parseCalibrationJson(readJson<unknown>(path.join(ctx.dir, 'calibration', 'beff.json')));
}

/** The calibration phase: calibration/calibration.jsonl and calibration/beff.json. */
export const calibrationPhase: StudyPhaseStep = { name: 'calibration', run, restore };
