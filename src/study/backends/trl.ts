// The TRL backend of `rl-adv study --backend trl`: real training with TRL's GRPOTrainer through the Python package's
// adapter (rl_advantages.integrations.trl), run phase by phase by the drivers of `python -m rl_advantages.study`
// (python/rl_advantages/study/; docs/trl.md), whose artifacts it reads back, so the run has the same orchestrator,
// gate, decision and report as the other backends. The study hands the drivers everything by file: the items of each
// request (RUN/trl/requests/*.jsonl, `{task_id, question, reference}` in the study's order) and, for a spec whose world
// is generated in code, the world itself (RUN/trl/data/{train,test,sft}.jsonl in GSM8K's format).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync } from 'node:fs';
import path from 'node:path';
import type { CalibrationRow } from '../../calibration/beff.js';
import { arithItems, parseArithWorld } from '../../data/arith.js';
import type { Gsm8kItem } from '../../data/gsm8k.js';
import { RlAdvantagesError } from '../../errors.js';
import { specArithSection } from '../load-questions.js';
import { runDriver } from './driver-process.js';
import { readJson, readJsonl, writeJsonAtomic, writeJsonlAtomic } from './files.js';
import { completedFailedReport, preflightChecks, type PreflightReport } from './tinker.js';
import type { ArmRunRequest, ArmRunResult, BackendCheck, CurvePoint, EvalRow, StudyBackend, StudyContext, TuningRequest } from './types.js';

/** The drivers' module. */
export const TRL_DRIVER_MODULE = 'rl_advantages.study';

/** Where the TRL backend finds its tools and its starting policy. */
export interface TrlBackendOptions {
  /** The spec the run will use: what it needs is probed before anything else. */
  readonly specPath: string;
  /** The Python interpreter (default: $RL_ADV_PYTHON, else `python3`). */
  readonly python?: string;
  /** A local starting policy (a transformers model folder) instead of the spec's `base_model`. */
  readonly model?: string;
  /** The environment (default: process.env). */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

function unavailable(message: string): RlAdvantagesError {
  return new RlAdvantagesError(`--backend trl: ${message}`, { code: 'trl_unavailable', field: 'backend' });
}

/** Rows of an items file for the drivers. */
function itemRows(items: readonly Gsm8kItem[]): { task_id: string; question: string; reference: string }[] {
  return items.map((item) => ({ task_id: item.id, question: item.question, reference: item.referenceAnswer }));
}

/**
 * Creates the TRL backend after probing, all at once, what the spec needs: a Python that runs and imports the
 * drivers, their packages (torch, transformers, trl, peft, datasets), and for a hub model a GPU and its weights or
 * the network. A run is refused before its folder is touched, with one message naming everything missing.
 *
 * @throws {RlAdvantagesError} `trl_unavailable`, naming what is missing and how to provide it.
 * @example
 * ```ts
 * const backend = createTrlBackend({ specPath: 'specs/arith-gs1-vs-grpo.json', python: '.venv/bin/python' });
 * ```
 */
export function createTrlBackend(options: TrlBackendOptions): StudyBackend {
  const env = { ...(options.env ?? process.env) };
  const python = options.python ?? env.RL_ADV_PYTHON ?? 'python3';
  const model = options.model === undefined ? undefined : path.resolve(options.model);
  const specPath = path.resolve(options.specPath);
  const probeArgs = ['-m', TRL_DRIVER_MODULE, 'probe', '--spec', specPath, '--run-dir', '.', '--data-dir', '.', ...(model ? ['--model', model] : [])];
  const probe = spawnSync(python, probeArgs, { encoding: 'utf8', env });
  if (probe.error !== undefined) {
    throw unavailable(`cannot run Python (${JSON.stringify(python)}): ${probe.error.message}; pass --python or set RL_ADV_PYTHON (docs/trl.md)`);
  }
  if (probe.status !== 0) {
    let missing: string[] | undefined;
    try {
      missing = (JSON.parse(probe.stdout.trim().split('\n').at(-1) ?? '') as { missing?: string[] }).missing;
    } catch {
      missing = undefined;
    }
    if (missing === undefined) {
      throw unavailable(`${python} -m ${TRL_DRIVER_MODULE} does not run (${probe.stderr.trim().split('\n').at(-1) ?? `exit ${String(probe.status)}`}); install the package (pip install ./python) with python/requirements-trl.txt (docs/trl.md)`);
    }
    throw unavailable(`this machine cannot run ${path.basename(specPath)}: missing ${missing.join('; ')}`);
  }

  const partial = (file: string): string => `${file}.partial`;
  const trlDir = (ctx: StudyContext): string => path.join(ctx.dir, 'trl');
  /** The drivers' data folder: the arith world written once into RUN/trl/data, else the GSM8K folder. */
  const dataDir = (ctx: StudyContext): string => {
    const section = specArithSection(ctx.spec);
    if (section === undefined) return ctx.dataDir;
    const dir = path.join(trlDir(ctx), 'data');
    if (!existsSync(path.join(dir, 'sft.jsonl'))) {
      mkdirSync(dir, { recursive: true });
      const world = parseArithWorld(section);
      const lines = (items: readonly Gsm8kItem[]): { question: string; answer: string }[] => items.map((i) => ({ question: i.question, answer: i.answer }));
      writeJsonlAtomic(path.join(dir, 'train.jsonl'), lines(ctx.train));
      writeJsonlAtomic(path.join(dir, 'test.jsonl'), lines(ctx.test));
      writeJsonlAtomic(path.join(dir, 'sft.jsonl'), itemRows(arithItems(world, 'sft')));
    }
    return dir;
  };
  const request = (ctx: StudyContext, name: string, items: readonly Gsm8kItem[]): string => {
    const file = path.join(trlDir(ctx), 'requests', `${name}.jsonl`);
    mkdirSync(path.dirname(file), { recursive: true });
    writeJsonlAtomic(file, itemRows(items));
    return file;
  };
  const drive = (ctx: StudyContext, command: string, args: readonly string[], logName: string): Promise<string> =>
    runDriver({
      python,
      args: ['-m', TRL_DRIVER_MODULE, command, '--spec', specPath, '--run-dir', ctx.dir, '--data-dir', dataDir(ctx), ...(model ? ['--model', model] : []), ...args],
      env,
      runDir: ctx.dir,
      logName,
      label: `${TRL_DRIVER_MODULE} ${command}`,
      unavailable,
    });
  const calibrationTasks = (ctx: StudyContext): Gsm8kItem[] => Array.from(ctx.order.slice(-64), (q) => ctx.train[q] as Gsm8kItem);

  return {
    name: 'trl',
    simulation: false,
    identity: () => ({ drivers: `python -m ${TRL_DRIVER_MODULE}`, model: model ?? null }),

    async preflight(ctx: StudyContext): Promise<readonly BackendCheck[]> {
      const out = path.join(ctx.dir, 'preflight_trl.json');
      if (!existsSync(out)) {
        const tasks = request(ctx, 'preflight', calibrationTasks(ctx));
        try {
          await drive(ctx, 'preflight', ['--tasks', tasks, '--out', partial(out)], 'preflight');
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
    },

    async sampleCalibration(ctx: StudyContext, tasks: readonly Gsm8kItem[], rollouts: number, out: string): Promise<CalibrationRow[]> {
      if (!existsSync(out)) {
        const file = request(ctx, 'calibration', tasks);
        const seed = String(ctx.spec.arms[0]?.seed ?? 0);
        await drive(ctx, 'sample', ['--tasks', file, '--rollouts', String(rollouts), '--seed', seed, '--out', partial(out)], 'calibration');
        renameSync(partial(out), out);
      }
      return readJsonl<CalibrationRow>(out);
    },

    async sampleTuning(ctx: StudyContext, req: TuningRequest): Promise<CalibrationRow[]> {
      if (!existsSync(req.out)) {
        const file = request(ctx, 'tuning', req.tasks);
        // Its own seed stream (seed + 1): the tuning rollouts are not the calibration's.
        const seed = String((ctx.spec.arms[0]?.seed ?? 0) + 1);
        await drive(ctx, 'sample', ['--tasks', file, '--rollouts', '1', '--seed', seed, '--out', partial(req.out)], 'tuning');
        renameSync(partial(req.out), req.out);
      }
      return readJsonl<CalibrationRow>(req.out);
    },

    async trainArm(ctx: StudyContext, req: ArmRunRequest): Promise<ArmRunResult> {
      const resultFile = path.join(req.dir, 'result.json');
      if (existsSync(resultFile)) return readJson<ArmRunResult>(resultFile);
      const needed = req.steps * (req.arm.groups_per_batch ?? 1);
      const order = req.order ?? ctx.order;
      const name = req.seed === undefined ? `${req.phase}_${req.arm.name}` : `${req.phase}_${req.arm.name}_seed${req.seed}`;
      const tasks = request(ctx, name, Array.from(order.slice(0, needed), (q) => ctx.train[q] as Gsm8kItem));
      // A replicated run's RL seed, and the learning curve's greedy evals (python/rl_advantages/study/arms.py).
      const extra = [
        ...(req.seed === undefined ? [] : ['--seed', String(req.seed)]),
        ...(req.curve ? ['--curve-items', request(ctx, 'curve', req.curve.items), '--curve-every', String(req.curve.every)] : []),
      ];
      // Mid-arm checkpoints outside the arm's folder (every trl.save_every steps, python/rl_advantages/study/checkpoints.py):
      // an interrupted driver continues from its latest complete one (--resume; a fresh start when there is none), and
      // the driver removes them once the arm is done.
      const checkpoints = path.join(trlDir(ctx), 'checkpoints', req.phase, ...(req.seed === undefined ? [] : [`seed${req.seed}`]), req.arm.name);
      const args = ['--arm', req.arm.name, '--steps', String(req.steps), '--tasks', tasks, '--out-dir', req.dir, '--checkpoint-dir', checkpoints, '--resume', ...extra];
      const stdout = await drive(ctx, 'train', args, name);
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
    },

    async evaluate(ctx: StudyContext, checkpoint: string, items: readonly Gsm8kItem[], out: string): Promise<EvalRow[]> {
      if (!existsSync(out)) {
        // Named by the file's place in the run (eval_eval_grpo_g8, eval_seeds_3_eval_grpo_g8): concurrent evals never share a log.
        const name = `eval_${path.relative(ctx.dir, out).replace(/\.jsonl$/, '').split(path.sep).join('_')}`;
        const file = request(ctx, name, items);
        await drive(ctx, 'eval', ['--checkpoint', checkpoint, '--items', file, '--out', partial(out)], name);
        renameSync(partial(out), out);
      }
      return readJsonl<{ item_id: string; correct: boolean }>(out).map((row) => ({ item_id: row.item_id, correct: row.correct === true }));
    },
  };
}
