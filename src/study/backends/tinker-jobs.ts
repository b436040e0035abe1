// The Tinker backend's job functions (docs/reproduce.md): each runs one driver of examples/tinker-cookbook as a
// subprocess (through `TinkerDrivers`) and reads its artifact back; the scheduler (src/study/jobs.ts) calls them per
// arm x seed. A driver writes to <artifact>.partial, renamed once it exits 0: a killed driver never leaves a
// trusted artifact.
import { copyFileSync, existsSync, renameSync } from 'node:fs';
import path from 'node:path';
import type { CalibrationRow } from '../../calibration/beff.js';
import { RlAdvantagesError } from '../../errors.js';
import type { Gsm8kItem } from '../../data/gsm8k.js';
import { readJson, readJsonl, writeJsonAtomic } from './files.js';
import { completedFailedReport, preflightChecks, replicateArgs, type PreflightReport } from './tinker-checks.js';
import type { JobPlan } from '../executor/types.js';
import type { ArmRunRequest, ArmRunResult, BackendCheck, CurvePoint, EvalRow, StudyContext, TuningRequest } from './types.js';

/** Names a job when the backend is called on its own (no plan of the study's graph). */
type Fallback = Pick<JobPlan, 'id' | 'kind'>;

/**
 * How the job functions run a driver as the job `plan` of the study's graph through the study's executor: `run`
 * returns its stdout (stdout and stderr also kept in DIR/logs/<logName>.log).
 */
export interface TinkerDrivers {
  readonly run: (ctx: StudyContext, script: string, args: readonly string[], logName: string, plan: JobPlan | undefined, fallback: Fallback) => Promise<string>;
}

const partial = (file: string): string => `${file}.partial`;
const common = (ctx: StudyContext): string[] => ['--spec', ctx.specPath, '--data-dir', ctx.dataDir];

/** preflight.py once per run folder; its report's checks, prefixed `tinker:`. */
export async function tinkerPreflight(d: TinkerDrivers, ctx: StudyContext, plan?: JobPlan): Promise<readonly BackendCheck[]> {
  const out = path.join(ctx.dir, 'preflight_tinker.json');
  if (!existsSync(out)) {
    try {
      await d.run(ctx, 'preflight.py', ['--out', partial(out), ...common(ctx)], 'preflight', plan, { id: 'preflight', kind: 'preflight' });
    } catch (error) {
      // Exit 1 with a whole report is a preflight whose checks failed: keep the report so the study records
      // the failure check by check (and stops), instead of losing it with the driver's error.
      if (!completedFailedReport(partial(out))) throw error;
    }
    renameSync(partial(out), out);
  }
  return preflightChecks(readJson<PreflightReport>(out));
}

/** sample_calibration.py: `rollouts` rollouts of the starting policy on each calibration task. */
export async function tinkerSampleCalibration(d: TinkerDrivers, ctx: StudyContext, tasks: readonly Gsm8kItem[], rollouts: number, out: string, plan?: JobPlan): Promise<CalibrationRow[]> {
  if (!existsSync(out)) {
    const seed = String(ctx.spec.arms[0]?.seed ?? 0);
    await d.run(ctx, 'sample_calibration.py', ['--out', partial(out), '--tasks', String(tasks.length), '--rollouts', String(rollouts), '--seed', seed, ...common(ctx)], 'calibration', plan, { id: 'calibration', kind: 'calibration' });
    renameSync(partial(out), out);
  }
  return readJsonl<CalibrationRow>(out);
}

/** sample_calibration.py on the tuning tasks; a row of a task the study did not ask for is refused. */
export async function tinkerSampleTuning(d: TinkerDrivers, ctx: StudyContext, request: TuningRequest, plan?: JobPlan): Promise<CalibrationRow[]> {
  const out = request.out;
  if (!existsSync(out)) {
    const seed = String(ctx.spec.arms[0]?.seed ?? 0);
    const args = ['--out', partial(out), '--first', String(request.first), '--tasks', String(request.tasks.length), '--rollouts', '1', '--seed', seed];
    if (request.exclude.length > 0) args.push('--exclude-rows', request.exclude.join(','));
    await d.run(ctx, 'sample_calibration.py', [...args, ...common(ctx)], 'tuning', plan, { id: 'tuning', kind: 'tuning' });
    renameSync(partial(out), out);
  }
  const rows = readJsonl<CalibrationRow>(out);
  // The driver takes the same tasks from the same (numpy) order: anything else would be another data set.
  const expected = new Set(request.tasks.map((t) => t.id));
  const stray = rows.find((row) => !expected.has(row.task_id));
  if (stray !== undefined) {
    throw new RlAdvantagesError(`${out}: task ${stray.task_id} is not one of the tuning tasks the study asked for`, { code: 'driver_failed' });
  }
  return rows;
}

/** The driver's curve.jsonl, copied beside the arm's advantages.jsonl and returned. */
function readCurve(source: string, copy: string): CurvePoint[] {
  if (!existsSync(source)) {
    throw new RlAdvantagesError(`run_arm.py was asked for a learning curve but wrote no ${source}`, { code: 'driver_failed' });
  }
  copyFileSync(source, copy);
  return readJsonl<CurvePoint>(copy);
}

/** run_arm.py's last stdout line: its JSON result. */
function resultLine(stdout: string, logPath: string): { log: string; checkpoint: string } {
  const last = stdout.trim().split('\n').at(-1) ?? '';
  let info: { advantages_log?: unknown; final_sampler_path?: unknown };
  try {
    info = JSON.parse(last) as typeof info;
  } catch {
    throw new RlAdvantagesError(`run_arm.py did not end with its JSON result line; got ${JSON.stringify(last.slice(0, 200))}`, { code: 'driver_failed' });
  }
  const log = typeof info.advantages_log === 'string' ? info.advantages_log : path.join(logPath, 'advantages.jsonl');
  if (typeof info.final_sampler_path !== 'string' || !existsSync(log)) {
    throw new RlAdvantagesError(`run_arm.py reported no final_sampler_path or no advantages log (${log})`, { code: 'driver_failed' });
  }
  return { log, checkpoint: info.final_sampler_path };
}

/** run_arm.py for one arm x seed (with --seed and the curve's flags); result.json makes a finished job a no-op. */
export async function tinkerTrainArm(d: TinkerDrivers, ctx: StudyContext, request: ArmRunRequest, plan?: JobPlan): Promise<ArmRunResult> {
  const resultFile = path.join(request.dir, 'result.json');
  if (existsSync(resultFile)) return readJson<ArmRunResult>(resultFile);
  const logPath = path.join(request.dir, 'tinker');
  // An interrupted driver run continues from the cookbook's last checkpoint in logPath (--resume; a fresh
  // start when logPath does not exist), so a sampling error late in an arm does not cost the whole arm.
  const name = request.seed === undefined ? `${request.phase}_${request.arm.name}` : `${request.phase}_${request.arm.name}_seed${request.seed}`;
  const args = ['--arm', request.arm.name, '--log-path', logPath, '--steps', String(request.steps), '--resume', ...replicateArgs(request), ...common(ctx)];
  const fallback: Fallback = { id: `train/${request.phase}/${request.arm.name}${request.seed === undefined ? '' : `/seed-${request.seed}`}`, kind: request.phase === 'pilot' ? 'pilot' : 'train' };
  const { log, checkpoint } = resultLine(await d.run(ctx, 'run_arm.py', args, name, plan, fallback), logPath);
  copyFileSync(log, path.join(request.dir, 'advantages.jsonl'));
  const rows = readJsonl<{ rewards: number[] }>(path.join(request.dir, 'advantages.jsonl'));
  const result: ArmRunResult = {
    rewardPerStep: rows.map((row) => row.rewards.reduce((s, r) => s + r, 0) / row.rewards.length),
    checkpoint,
    ...(request.curve ? { curve: readCurve(path.join(logPath, 'curve.jsonl'), path.join(request.dir, 'curve.jsonl')) } : {}),
  };
  writeJsonAtomic(resultFile, result);
  return result;
}

/** eval_gsm8k.py on one checkpoint ('init': the base model) over the first items.length test items. */
export async function tinkerEvaluate(d: TinkerDrivers, ctx: StudyContext, checkpoint: string, items: readonly Gsm8kItem[], out: string, plan?: JobPlan): Promise<EvalRow[]> {
  if (!existsSync(out)) {
    const args = ['--checkpoint', checkpoint === 'init' ? 'base' : checkpoint, '--out', partial(out), '--limit', String(items.length), ...common(ctx)];
    await d.run(ctx, 'eval_gsm8k.py', args, `eval_${path.basename(out, '.jsonl')}`, plan, { id: `eval_${path.basename(out, '.jsonl')}`, kind: 'eval' });
    renameSync(partial(out), out);
  }
  const rows = readJsonl<{ item_id: string; correct: boolean }>(out);
  return rows.map((row) => ({ item_id: row.item_id, correct: row.correct === true }));
}
