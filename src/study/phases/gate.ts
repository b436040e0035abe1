// Phase 5 (docs/method.md section 8): the activation gate on the calibration and the pilot's advantage logs. On failure the
// length_bucket_loo fallback is scored on the same calibration set and the run stops: the gate is never relaxed.
import path from 'node:path';
import { calibrateBeff, groupCalibrationRows, type CalibrationRow } from '../../calibration/beff.js';
import { readJsonl, readRunBytes, writeJsonAtomic } from '../backends/files.js';
import { evaluateGate, gateJson, type GateResult } from '../gate.js';
import { gateMetrics, isKernelAdvantage, parseAdvantageLog, type AdvantageLogRow } from '../gate-metrics.js';
import type { PhaseContext, PhaseResult, StudyPhaseStep } from './context.js';
import { formatFigure } from '../../internal/figures.js';
import { pathUnder } from '../../internal/path-parts.js';

function pilotLogs(ctx: PhaseContext, arms: PhaseContext['spec']['arms']): Record<string, AdvantageLogRow[]> {
  const logs: Record<string, AdvantageLogRow[]> = {};
  for (const arm of arms) {
    const file = pathUnder(ctx.dir, 'pilot', arm.name, 'advantages.jsonl');
    logs[arm.name] = parseAdvantageLog(readRunBytes(file).toString('utf8'), file);
  }
  return logs;
}

/** Scores length_bucket_loo on the calibration set, records it as the fallback, and returns the FAILED line. */
function scoreFallback(ctx: PhaseContext, result: GateResult): string {
  const { settings } = ctx;
  ctx.events.label('gate: scoring the length_bucket_loo fallback on the same calibration set');
  const rows = ctx.state.calibrationRows ?? readJsonl<CalibrationRow>(path.join(ctx.dir, 'calibration', 'calibration.jsonl'));
  const fallback = calibrateBeff(groupCalibrationRows(rows), {
    batchSize: settings.batchSize,
    batches: settings.batches,
    bootstrap: settings.bootstrap,
    estimators: ['length_bucket_loo'],
    reference: 'loo_batch_mean',
    seed: settings.calibrationSeed,
    vectorizer: ctx.study.vectorizer,
  });
  const f = fallback.estimators.length_bucket_loo;
  ctx.summary.fallback = {
    estimator: 'length_bucket_loo',
    ratio: f?.ratio ?? Number.NaN,
    ratio_ci95: f?.ratioCi95 ?? null,
    note: 'scored on the same calibration set and batches; adopting it needs a recorded revised spec before any training',
  };
  const failed = result.checks
    .filter((c) => c.status !== 'pass')
    .map((c) => `${c.metric} = ${formatFigure(c.value)} (${c.status}; min ${c.min ?? '-'}, max ${c.max ?? '-'})`);
  return `FAILED: ${failed.join('; ')}; fallback length_bucket_loo B_eff ratio ${formatFigure(f?.ratio)}`;
}

async function run(ctx: PhaseContext): Promise<PhaseResult> {
  // The gate is about the treatment (the first kernel arm): other kernel arms (kernel arms, docs/study.md) are left out.
  const arms = ctx.spec.arms.filter((a) => a === ctx.treatment || !isKernelAdvantage(a.advantage));
  const metrics = gateMetrics({ calibration: ctx.state.calibration, pilotLogs: pilotLogs(ctx, arms), arms });
  const result = evaluateGate(ctx.spec.activationGate, metrics);
  ctx.summary.gate_metrics = metrics;
  ctx.summary.gate = gateJson(result);
  const line = result.passed ? `PASSED (all ${result.checks.length} checks)` : scoreFallback(ctx, result);
  writeJsonAtomic(path.join(ctx.dir, 'gate.json'), { metrics, result, fallback: ctx.summary.fallback ?? null });
  return { line, status: result.passed ? 'done' : 'stopped' };
}

/** The gate phase: gate.json (status `stopped` when the gate fails). */
export const gatePhase: StudyPhaseStep = { name: 'gate', run };
