// The TRL backend of `rl-adv study --backend trl`: real training with TRL's GRPOTrainer through the Python package's
// adapter (rl_advantages.integrations.trl), run phase by phase by the drivers of `python -m rl_advantages.study`
// (python/rl_advantages/study/; docs/trl.md), whose artifacts it reads back, so the run has the same orchestrator,
// gate, decision and report as the other backends. The backend is its job functions (the preflight, sample the
// calibration or tuning set, train one arm x seed, evaluate one checkpoint), each a driver call over request files
// (trl-drivers.ts); a finished job's artifact is read back instead of run again (--resume).
import { existsSync, renameSync } from 'node:fs';
import path from 'node:path';
import type { CalibrationRow } from '../../calibration/beff.js';
import type { Gsm8kItem } from '../../data/gsm8k.js';
import { RlAdvantagesError } from '../../errors.js';
import { readJson, readJsonl, writeJsonAtomic } from './files.js';
import { completedFailedReport, preflightChecks, type PreflightReport } from './tinker.js';
import { TRL_DRIVER_MODULE, trlDrivers, type TrlBackendOptions, type TrlDrivers } from './trl-drivers.js';
import type { JobPlan } from '../executor/types.js';
import type { ArmRunRequest, ArmRunResult, BackendCheck, CurvePoint, EvalRow, StudyBackend, StudyContext, TuningRequest } from './types.js';
import { pathUnder } from '../../internal/path-parts.js';

export { TRL_DRIVER_MODULE, type TrlBackendOptions } from './trl-drivers.js';

const partial = (file: string): string => `${file}.partial`;
const calibrationTasks = (ctx: StudyContext): Gsm8kItem[] => Array.from(ctx.order.slice(-64), (q) => ctx.train[q] as Gsm8kItem);

/** The preflight job: the drivers' checks (preflight_trl.json, kept once written) and the pre-training's accuracy. */
async function preflightJob(d: TrlDrivers, ctx: StudyContext, plan?: JobPlan): Promise<readonly BackendCheck[]> {
  const out = path.join(ctx.dir, 'preflight_trl.json');
  if (!existsSync(out)) {
    const tasks = d.request(ctx, 'preflight', calibrationTasks(ctx));
    try {
      await d.drive(ctx, 'preflight', ['--tasks', tasks, '--out', partial(out)], 'preflight', plan, { id: 'preflight', kind: 'preflight' });
    } catch (error) {
      if (!completedFailedReport(partial(out))) throw error;
    }
    renameSync(partial(out), out);
  }
  const report = readJson<PreflightReport & { pretrain?: { heldout_accuracy?: number; target_accuracy?: number[]; heldout_items?: number } }>(out);
  const checks = preflightChecks(report, 'trl', `python -m ${TRL_DRIVER_MODULE} preflight`);
  const pre = report.pretrain;
  if (pre !== undefined) {
    const [low, high] = pre.target_accuracy ?? [0, 1];
    const acc = pre.heldout_accuracy ?? Number.NaN;
    checks.push({
      id: 'trl:pretrain_accuracy_in_target',
      passed: acc >= (low ?? 0) && acc <= (high ?? 1),
      detail: `the starting policy's greedy accuracy after pre-training: ${acc.toFixed(4)} on ${String(pre.heldout_items)} held-out items (target [${String(low)}, ${String(high)}])`,
    });
  }
  return checks;
}

/** The sample job: the starting policy's rollouts on `tasks` (`rollouts` each, RL seed `seed`), kept once written. */
async function sampleJob(d: TrlDrivers, ctx: StudyContext, name: 'calibration' | 'tuning', tasks: readonly Gsm8kItem[], rollouts: number, seed: number, out: string, plan?: JobPlan): Promise<CalibrationRow[]> {
  if (!existsSync(out)) {
    const file = d.request(ctx, name, tasks);
    await d.drive(ctx, 'sample', ['--tasks', file, '--rollouts', String(rollouts), '--seed', String(seed), '--out', partial(out)], name, plan, { id: name, kind: name });
    renameSync(partial(out), out);
  }
  return readJsonl<CalibrationRow>(out);
}

/** The train job: one arm x seed (result.json once done; an interrupted driver continues from its mid-arm checkpoint). */
async function trainJob(d: TrlDrivers, ctx: StudyContext, req: ArmRunRequest, plan?: JobPlan): Promise<ArmRunResult> {
  const resultFile = path.join(req.dir, 'result.json');
  if (existsSync(resultFile)) return readJson<ArmRunResult>(resultFile);
  const needed = req.steps * (req.arm.groups_per_batch ?? 1);
  const order = req.order ?? ctx.order;
  const lrPart = req.lrIndex === undefined ? '' : `_lr${req.lrIndex}`;
  const name = req.seed === undefined ? `${req.phase}_${req.arm.name}${lrPart}` : `${req.phase}_${req.arm.name}${lrPart}_seed${req.seed}`;
  const tasks = d.request(ctx, name, Array.from(order.slice(0, needed), (q) => ctx.train[q] as Gsm8kItem));
  // A replicated run's RL seed, and the learning curve's greedy evals (python/rl_advantages/study/arms.py).
  const extra = [
    ...(req.seed === undefined ? [] : ['--seed', String(req.seed)]),
    // One learning rate of the arm's lr_grid (the spec's arm holds the grid; the driver trains at this one).
    ...(req.lrIndex === undefined || req.arm.lr === undefined ? [] : ['--lr', String(req.arm.lr)]),
    ...(req.curve ? ['--curve-items', d.request(ctx, 'curve', req.curve.items), '--curve-every', String(req.curve.every)] : []),
  ];
  // Mid-arm checkpoints outside the arm's folder (every trl.save_every steps, python/rl_advantages/study/checkpoints.py):
  // an interrupted driver continues from its latest complete one (--resume; a fresh start when there is none), and
  // the driver removes them once the arm is done.
  const checkpoints = pathUnder(d.checkpointsDir(ctx), req.phase, ...(req.seed === undefined ? [] : [`seed${req.seed}`]), req.arm.name, ...(req.lrIndex === undefined ? [] : [`lr-${req.lrIndex}`]));
  const args = ['--arm', req.arm.name, '--steps', String(req.steps), '--tasks', tasks, '--out-dir', req.dir, '--checkpoint-dir', checkpoints, '--resume', ...extra];
  const fallback = { id: `train/${req.phase}/${req.arm.name}${req.seed === undefined ? '' : `/seed-${req.seed}`}${req.lrIndex === undefined ? '' : `/lr-${req.lrIndex}`}`, kind: req.phase === 'pilot' ? ('pilot' as const) : ('train' as const) };
  const stdout = await d.drive(ctx, 'train', args, name, plan, fallback);
  let info: { checkpoint?: unknown; advantages_log?: unknown };
  try {
    info = JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as typeof info;
  } catch {
    throw new RlAdvantagesError(`${TRL_DRIVER_MODULE} train did not end with its JSON result line`, { code: 'driver_failed' });
  }
  const log = path.join(req.dir, 'advantages.jsonl');
  if (typeof info.checkpoint !== 'string' || !existsSync(log)) {
    throw new RlAdvantagesError(`${TRL_DRIVER_MODULE} train reported no checkpoint or wrote no ${log}`, { code: 'driver_failed' });
  }
  const rows = readJsonl<{ rewards: number[] }>(log);
  const result: ArmRunResult = {
    rewardPerStep: rows.map((row) => row.rewards.reduce((s, r) => s + r, 0) / row.rewards.length),
    checkpoint: info.checkpoint,
    ...(req.curve ? { curve: readJsonl<CurvePoint>(path.join(req.dir, 'curve.jsonl')) } : {}),
  };
  writeJsonAtomic(resultFile, result);
  return result;
}

/** The eval job: greedy eval of one checkpoint on `items`, kept once written. */
async function evalJob(d: TrlDrivers, ctx: StudyContext, checkpoint: string, items: readonly Gsm8kItem[], out: string, plan?: JobPlan): Promise<EvalRow[]> {
  if (!existsSync(out)) {
    // Named by the file's place in the run (eval_eval_grpo_g8, eval_seeds_3_eval_grpo_g8): concurrent evals never share a log.
    const name = `eval_${path.relative(ctx.dir, out).replace(/\.jsonl$/, '').split(path.sep).join('_')}`;
    const file = d.request(ctx, name, items);
    await d.drive(ctx, 'eval', ['--checkpoint', checkpoint, '--items', file, '--out', partial(out)], name, plan, { id: name, kind: 'eval' });
    renameSync(partial(out), out);
  }
  return readJsonl<{ item_id: string; correct: boolean }>(out).map((row) => ({ item_id: row.item_id, correct: row.correct === true }));
}

/**
 * Creates the TRL backend after probing, all at once, what the spec needs: a Python that runs and imports the
 * drivers, their packages (torch, transformers, trl, peft, datasets), for a Hugging Face model (`base_model` a hub
 * name or a `save_pretrained` folder) its files in the folder or the hub cache or the network (none under
 * `HF_HUB_OFFLINE=1`), and a GPU for a `dtype` of bfloat16 or float16. A run is refused before its folder is touched, with one message naming everything missing.
 *
 * @throws {RlAdvantagesError} `trl_unavailable`, naming what is missing and how to provide it.
 * @example
 * ```ts
 * const backend = createTrlBackend({ specPath: 'specs/arith-gs1-vs-grpo.json', python: '.venv/bin/python' });
 * ```
 */
export function createTrlBackend(options: TrlBackendOptions): StudyBackend {
  const d = trlDrivers(options);
  // The calibration and tuning rollouts use the arms' seed; the tuning its own stream (seed + 1).
  const armSeed = (ctx: StudyContext): number => ctx.spec.arms[0]?.seed ?? 0;
  return {
    name: 'trl',
    simulation: false,
    identity: () => ({ drivers: `python -m ${TRL_DRIVER_MODULE}`, model: d.model ?? null }),
    preflight: (ctx, plan) => preflightJob(d, ctx, plan),
    sampleCalibration: (ctx, tasks, rollouts, out, plan) => sampleJob(d, ctx, 'calibration', tasks, rollouts, armSeed(ctx), out, plan),
    sampleTuning: (ctx, req: TuningRequest, plan) => sampleJob(d, ctx, 'tuning', req.tasks, 1, armSeed(ctx) + 1, req.out, plan),
    trainArm: (ctx, req, plan) => trainJob(d, ctx, req, plan),
    evaluate: (ctx, checkpoint, items, out, plan) => evalJob(d, ctx, checkpoint, items, out, plan),
  };
}
