// The study's job graph: every job of a run (preflight, calibration and tuning sampling, each pilot and full arm x
// seed training, each evaluation) as a plan (id, kind, arm, seed, resources, the files it reads and writes) and the
// backend call that does it, handed the plan so a backend can describe the job's process to the executor. The phases
// run these jobs; `rl-adv study --dry-run` prints the plans; `rl-adv study job` (the sim's job command) runs one.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { CalibrationRow } from '../../calibration/beff.js';
import type { Gsm8kItem } from '../../data/gsm8k.js';
import type { ArmRunResult, BackendCheck, EvalRow } from '../backends/types.js';
import type { JobDescription, JobPlan, JobResources } from '../executor/types.js';
import { specArithSection } from '../load-questions.js';
import { CALIBRATION_ROLLOUTS, CALIBRATION_TASKS, PILOT_EVAL_ITEMS, PILOT_STEPS, TUNING_TASKS } from '../summary.js';
import { gateCalibrationTasks, tuningTaskRows } from '../task-sets.js';
import type { StudyArm } from '../spec.js';
import { armRuns, type ArmRun } from './arm-runs.js';
import { evaluateWhole } from './evaluate-whole.js';
import { pathUnder } from '../../internal/path-parts.js';
import type { PhaseContext } from './context.js';

/** A job of the graph: its plan and the call that runs it (resolving to the backend's result). */
export interface GraphJob<T> {
  readonly plan: JobPlan;
  readonly run: () => Promise<T>;
}

/** The files every job reads: the spec, and the data folder when there is one. */
function common(ctx: PhaseContext): string[] {
  return [ctx.study.specPath, ...(ctx.study.dataDir === '' ? [] : [ctx.study.dataDir])];
}

/**
 * A job's resources: `--job-gpus`/`--job-cpus`, else the backend's and spec's defaults: a TRL job on a model of the
 * hub or a folder (a GPU spec: no `arith` world) 1 GPU and 1 CPU; the small world's, the sim's and Tinker's (whose
 * GPUs are remote) 0 GPU and 1 CPU.
 *
 * @example
 * ```ts
 * jobResources(ctx, 'train'); // { gpus: 1, cpus: 1 } for specs/gsm8k-gs1-vs-grpo.json on --backend trl
 * ```
 */
export function jobResources(ctx: Pick<PhaseContext, 'options' | 'spec' | 'backend'>, kind: JobDescription['kind']): JobResources {
  const gpuSpec = ctx.backend.name === 'trl' && specArithSection(ctx.spec) === undefined;
  return {
    gpus: ctx.options.jobGpus ?? (gpuSpec && kind !== 'preflight' ? 1 : 0),
    cpus: ctx.options.jobCpus ?? 1,
  };
}

function plan(ctx: PhaseContext, base: Omit<JobPlan, 'resources'>): JobPlan {
  return { ...base, resources: jobResources(ctx, base.kind) };
}

/**
 * The preflight job (preflight.json holds the phase's record; the backend's own report is its write).
 *
 * @example
 * ```ts
 * const checks = await preflightJob(ctx).run();
 * ```
 */
export function preflightJob(ctx: PhaseContext): GraphJob<readonly BackendCheck[]> {
  const writes = ctx.backend.name === 'sim' ? [] : [path.join(ctx.dir, `preflight_${ctx.backend.name}.json`)];
  const p = plan(ctx, { id: 'preflight', kind: 'preflight', reads: common(ctx), writes });
  return { plan: p, run: () => ctx.backend.preflight(ctx.study, p) };
}

/**
 * The calibration sampling job: calibration/calibration.jsonl.
 *
 * @example
 * ```ts
 * calibrationJob(ctx).plan.writes; // ['/runs/a/calibration/calibration.jsonl']
 * ```
 */
export function calibrationJob(ctx: PhaseContext): GraphJob<CalibrationRow[]> {
  const out = path.join(ctx.dir, 'calibration', 'calibration.jsonl');
  const p = plan(ctx, { id: 'calibration', kind: 'calibration', reads: common(ctx), writes: [out] });
  return { plan: p, run: () => (mkdirSync(path.dirname(out), { recursive: true }), ctx.backend.sampleCalibration(ctx.study, ctx.settings.calibrationTasks, CALIBRATION_ROLLOUTS, out, p)) };
}

/**
 * The tuning sampling job: tuning.jsonl, on tasks neither arm reaches nor the gate uses.
 *
 * @example
 * ```ts
 * const rows = await tuningJob(ctx).run(); // tuning.jsonl's rows
 * ```
 */
export function tuningJob(ctx: PhaseContext): GraphJob<CalibrationRow[]> {
  const { study } = ctx;
  const picked = tuningTaskRows(ctx.spec, study.train, study.order, ctx.summary.options.tuning_tasks ?? TUNING_TASKS, ctx.options.steps);
  const mine = new Set(Array.from(study.order.slice(-CALIBRATION_TASKS)));
  const exclude = gateCalibrationTasks(ctx.spec, study.train)
    .map((t) => t.index)
    .filter((q) => !mine.has(q));
  const tasks = picked.rows.map((q) => study.train[q] as Gsm8kItem);
  const out = path.join(ctx.dir, 'tuning.jsonl');
  const p = plan(ctx, { id: 'tuning', kind: 'tuning', reads: common(ctx), writes: [out] });
  return { plan: p, run: () => ctx.backend.sampleTuning(study, { tasks, first: picked.first, exclude, out }, p) };
}

/**
 * The pilot's items: the first PILOT_EVAL_ITEMS test items.
 *
 * @example
 * ```ts
 * pilotItems(ctx).length; // 100 (PILOT_EVAL_ITEMS) on GSM8K
 * ```
 */
export function pilotItems(ctx: PhaseContext): readonly Gsm8kItem[] {
  return ctx.study.test.slice(0, Math.min(PILOT_EVAL_ITEMS, ctx.study.test.length));
}

/**
 * The eval phase's items: every test item, or the first --eval-limit.
 *
 * @example
 * ```ts
 * evalItems(ctx).length; // --eval-limit, else every test item
 * ```
 */
export function evalItems(ctx: PhaseContext): readonly Gsm8kItem[] {
  const test = ctx.study.test;
  return ctx.options.evalLimit === undefined ? test : test.slice(0, ctx.options.evalLimit);
}

/**
 * A pilot arm's training job: PILOT_STEPS steps into pilot/<arm>.
 *
 * @example
 * ```ts
 * pilotTrainJob(ctx, arm).plan.id; // 'train/pilot/grpo_g8'
 * ```
 */
export function pilotTrainJob(ctx: PhaseContext, arm: StudyArm): GraphJob<ArmRunResult> {
  const dir = pathUnder(ctx.dir, 'pilot', arm.name);
  const p = plan(ctx, { id: `train/pilot/${arm.name}`, kind: 'pilot', arm: arm.name, reads: common(ctx), writes: [dir] });
  return { plan: p, run: () => (mkdirSync(dir, { recursive: true }), ctx.backend.trainArm(ctx.study, { arm, phase: 'pilot', steps: PILOT_STEPS, dir }, p)) };
}

/** An arm run's part of a job id: `<arm>`, `/seed-<s>` in a replicated run, `/lr-<i>` for one learning rate of a grid. */
function runPath(r: ArmRun): string {
  return `${r.arm.name}${r.replicated ? `/seed-${r.seed}` : ''}${r.request.lrIndex === undefined ? '' : `/lr-${r.request.lrIndex}`}`;
}

/**
 * A full arm x seed's training job: arms/<arm> (seeds/<s>/arms/<arm>).
 *
 * @example
 * ```ts
 * trainJob(ctx, run).plan.id; // 'train/full/grpo_g8/seed-2'
 * ```
 */
export function trainJob(ctx: PhaseContext, r: ArmRun): GraphJob<ArmRunResult> {
  const id = `train/full/${runPath(r)}`;
  const p = plan(ctx, { id, kind: 'train', arm: r.arm.name, ...(r.replicated ? { seed: r.seed } : {}), reads: common(ctx), writes: [r.request.dir] });
  return { plan: p, run: () => (mkdirSync(r.request.dir, { recursive: true }), ctx.backend.trainArm(ctx.study, r.request, p)) };
}

/**
 * An eval job: greedy eval of a policy (`init`, or an arm's final checkpoint, found when the job runs) into `out`.
 */
function evalJob(ctx: PhaseContext, id: string, items: readonly Gsm8kItem[], out: string, policy: { arm: string; seed?: number; dir: string; checkpoint: () => Promise<string> } | null): GraphJob<EvalRow[]> {
  const p = plan(ctx, {
    id,
    kind: 'eval',
    ...(policy === null ? {} : { arm: policy.arm, ...(policy.seed === undefined ? {} : { seed: policy.seed }) }),
    reads: [...common(ctx), ...(policy === null ? [] : [policy.dir])],
    writes: [out],
  });
  const run = async (): Promise<EvalRow[]> => {
    mkdirSync(path.dirname(out), { recursive: true });
    const checkpoint = policy === null ? 'init' : await policy.checkpoint();
    // A backend that keeps a finished job's file may hand back one cut short: checked, evaluated again once.
    return evaluateWhole(ctx, () => ctx.backend.evaluate(ctx.study, checkpoint, items, out, p), items, out);
  };
  return { plan: p, run };
}

/**
 * The pilot's eval of the starting policy: pilot/eval_init.jsonl.
 *
 * @example
 * ```ts
 * pilotInitEvalJob(ctx).plan.id; // 'eval/pilot/init'
 * ```
 */
export function pilotInitEvalJob(ctx: PhaseContext): GraphJob<EvalRow[]> {
  return evalJob(ctx, 'eval/pilot/init', pilotItems(ctx), path.join(ctx.dir, 'pilot', 'eval_init.jsonl'), null);
}

/**
 * The pilot's eval of an arm (`checkpoint`: its pilot's, else found by the pilot's train job): pilot/eval_<arm>.jsonl.
 *
 * @example
 * ```ts
 * const rows = await pilotEvalJob(ctx, arm, result.checkpoint).run();
 * ```
 */
export function pilotEvalJob(ctx: PhaseContext, arm: StudyArm, checkpoint?: string): GraphJob<EvalRow[]> {
  const train = pilotTrainJob(ctx, arm);
  const dir = pathUnder(ctx.dir, 'pilot', arm.name);
  const found = async (): Promise<string> => checkpoint ?? (await train.run()).checkpoint;
  return evalJob(ctx, `eval/pilot/${arm.name}`, pilotItems(ctx), pathUnder(ctx.dir, 'pilot', `eval_${arm.name}.jsonl`), { arm: arm.name, dir, checkpoint: found });
}

/**
 * The eval phase's eval of the starting policy: eval/init.jsonl.
 *
 * @example
 * ```ts
 * initEvalJob(ctx).plan.writes; // ['/runs/a/eval/init.jsonl']
 * ```
 */
export function initEvalJob(ctx: PhaseContext): GraphJob<EvalRow[]> {
  return evalJob(ctx, 'eval/full/init', evalItems(ctx), path.join(ctx.dir, 'eval', 'init.jsonl'), null);
}

/**
 * Where an arm x seed's eval goes: eval/<arm>.jsonl (seeds/<s>/eval/<arm>.jsonl).
 *
 * @example
 * ```ts
 * armEvalFile(run); // '/runs/a/seeds/2/eval/grpo_g8.jsonl'
 * ```
 */
export function armEvalFile(r: ArmRun): string {
  return pathUnder(r.root, 'eval', `${r.arm.name}.jsonl`);
}

/**
 * The eval of a full arm x seed's final policy: from the arms phase of this process, else found by its train job (a
 * finished arm's result is read back, never trained again).
 *
 * @example
 * ```ts
 * armEvalJob(ctx, run).plan.id; // 'eval/full/grpo_g8/seed-2'
 * ```
 */
export function armEvalJob(ctx: PhaseContext, r: ArmRun): GraphJob<EvalRow[]> {
  const id = `eval/full/${runPath(r)}`;
  const checkpoint = async (): Promise<string> => ctx.state.checkpoints[`${r.seed}/${r.arm.name}`] ?? (await trainJob(ctx, r).run()).checkpoint;
  return evalJob(ctx, id, evalItems(ctx), armEvalFile(r), { arm: r.arm.name, ...(r.replicated ? { seed: r.seed } : {}), dir: r.request.dir, checkpoint });
}

/**
 * The held-out eval of one learning rate's run of a grid arm (the lr_selection split): `<run folder>/heldout.jsonl`.
 *
 * @example
 * ```ts
 * heldOutEvalJob(ctx, run, checkpoint, items).plan.id; // 'eval/heldout/gs1_tfidf_g1/seed-0/lr-1'
 * ```
 */
export function heldOutEvalJob(ctx: PhaseContext, r: ArmRun, checkpoint: string, items: readonly Gsm8kItem[]): GraphJob<EvalRow[]> {
  const out = pathUnder(r.request.dir, 'heldout.jsonl');
  return evalJob(ctx, `eval/heldout/${runPath(r)}`, items, out, { arm: r.arm.name, ...(r.replicated ? { seed: r.seed } : {}), dir: r.request.dir, checkpoint: () => Promise.resolve(checkpoint) });
}

/**
 * Every job of the run in the order the phases run them (the tuning job only with --tune-kernel).
 *
 * @example
 * ```ts
 * studyJobGraph(ctx).map((job) => job.plan.id); // ['preflight', 'calibration', 'eval/pilot/init', 'train/pilot/grpo_g8', ...]
 * ```
 */
export function studyJobGraph(ctx: PhaseContext): GraphJob<unknown>[] {
  const runs = armRuns(ctx);
  return [
    preflightJob(ctx),
    calibrationJob(ctx),
    ...(ctx.options.tuneKernel === true ? [tuningJob(ctx)] : []),
    pilotInitEvalJob(ctx),
    ...ctx.spec.arms.flatMap((arm) => [pilotTrainJob(ctx, arm), pilotEvalJob(ctx, arm)]),
    ...runs.map((r) => trainJob(ctx, r)),
    initEvalJob(ctx),
    ...runs.map((r) => armEvalJob(ctx, r)),
  ];
}
