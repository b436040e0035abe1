// The simulated backend of `rl-adv study --backend sim`. A SIMULATION: a logistic success model on the real GSM8K
// questions (src/study/sim/world.ts, docs/sim.md), so the protocol, its artifacts and its report run anywhere in
// seconds. Its numbers say nothing about a language model. The backend is its job functions over one lazily built
// world: sample the calibration (and tuning) set, train one arm x seed (train-arm.ts), evaluate one checkpoint.
import type { CalibrationRow } from '../../calibration/beff.js';
import type { Gsm8kItem } from '../../data/gsm8k.js';
import type { ArmRunRequest, ArmRunResult, BackendCheck, EvalRow, StudyBackend, StudyContext, TuningRequest } from '../backends/types.js';
import { readJson, writeJsonlAtomic } from '../backends/files.js';
import { commandEnv, describeJob, runDescribedJob } from '../executor/describe.js';
import type { JobPlan } from '../executor/types.js';
import { RlAdvantagesError } from '../../errors.js';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { stream } from './random.js';
import { trainSimArm, type SimArmState } from './train-arm.js';
import { buildSimWorld, greedyCorrect, initialPolicy, sampleRollout, SIM_DEFAULTS, type SimConfig, type SimPolicy, type SimWorld } from './world.js';

export { stepTasks } from './train-arm.js';

/**
 * A sim job as its own process (`rl-adv study job`, any node), when the study's executor asks for one; undefined
 * when the job is computed in this process (the local executor's default, or the backend used on its own).
 */
async function asProcess<T>(ctx: StudyContext, job: JobPlan | undefined): Promise<T | undefined> {
  const jobs = ctx.jobs;
  if (jobs === undefined || jobs.inProcess || job === undefined) return undefined;
  const argv = [...jobs.cli, 'study', 'job', '--run-dir', ctx.dir, '--job', job.id];
  const description = describeJob(ctx, job, job, { argv, env: simJobEnv(), cwd: ctx.dir }, job.id.split('/').join('_'));
  const stdout = await runDescribedJob(ctx, description);
  const last = stdout.trim().split('\n').at(-1) ?? '';
  try {
    return JSON.parse(last) as T;
  } catch {
    throw new RlAdvantagesError(`rl-adv study job ${job.id} did not end with its JSON result line (log ${description.logFile})`, { code: 'driver_failed' });
  }
}

/** The sim's test hooks (docs/sim.md), handed to a job's process so an interrupted job behaves as in-process. */
function simJobEnv(): Record<string, string> {
  return commandEnv(process.env, ['RL_ADV_SIM_STEP_DELAY_MS', 'RL_ADV_SIM_KILL_AT', 'RL_ADV_SIM_STOP_AT']);
}

/** A finished arm's state (its job is never run again), else undefined. */
function finishedArm(request: ArmRunRequest): SimArmState | undefined {
  const file = path.join(request.dir, 'state.json');
  if (!existsSync(file)) return undefined;
  const state = readJson<SimArmState>(file);
  return state.done && state.steps === request.steps && state.arm === request.arm.name ? state : undefined;
}

/** The starting policy's rollouts on `tasks`, `rollouts` each, from the stream `key` (calibration and tuning sets). */
function sampleRows(w: SimWorld, ctx: StudyContext, tasks: readonly Gsm8kItem[], rollouts: number, key: string, every: number): CalibrationRow[] {
  const policy = initialPolicy(w);
  const rng = stream(ctx.seed, key);
  const rows: CalibrationRow[] = [];
  tasks.forEach((task, k) => {
    for (let g = 0; g < rollouts; g++) rows.push({ task_id: task.id, prompt: task.question, reward: sampleRollout(w, policy, w.train, task.index, rng).reward });
    if ((k + 1) % every === 0 || k + 1 === tasks.length) ctx.progress(k + 1, tasks.length);
  });
  return rows;
}

/**
 * Creates the simulated backend.
 *
 * @param config - the sim's knobs (defaults {@link SIM_DEFAULTS}; `--sim-coupling` sets `coupling`).
 * @example
 * ```ts
 * const backend = createSimBackend({ ...SIM_DEFAULTS, coupling: 0.9 });
 * ```
 */
export function createSimBackend(config: SimConfig = SIM_DEFAULTS): StudyBackend {
  let world: SimWorld | undefined;
  const getWorld = (ctx: StudyContext): SimWorld => {
    world ??= buildSimWorld(
      ctx.vectorizer,
      ctx.train.map((item) => item.question),
      ctx.test.map((item) => item.question),
      ctx.seed,
      config,
    );
    return world;
  };

  const loadPolicy = (ctx: StudyContext, checkpoint: string): SimPolicy => {
    const w = getWorld(ctx);
    if (checkpoint === 'init') return initialPolicy(w);
    const state = readJson<SimArmState>(checkpoint);
    return { theta0: state.theta0, theta: Float64Array.from(state.theta) };
  };

  return {
    name: 'sim',
    simulation: true,
    identity: () => ({ ...config }),

    preflight: async (ctx: StudyContext, job?: JobPlan): Promise<readonly BackendCheck[]> => (await asProcess<BackendCheck[]>(ctx, job)) ?? [],

    async sampleCalibration(ctx: StudyContext, tasks: readonly Gsm8kItem[], rollouts: number, out: string, job?: JobPlan): Promise<CalibrationRow[]> {
      const done = await asProcess<CalibrationRow[]>(ctx, job);
      if (done !== undefined) return done;
      const rows = sampleRows(getWorld(ctx), ctx, tasks, rollouts, 'calibration', 1);
      writeJsonlAtomic(out, rows);
      return rows;
    },

    async sampleTuning(ctx: StudyContext, request: TuningRequest, job?: JobPlan): Promise<CalibrationRow[]> {
      const done = await asProcess<CalibrationRow[]>(ctx, job);
      if (done !== undefined) return done;
      const rows = sampleRows(getWorld(ctx), ctx, request.tasks, 1, 'tuning', 100);
      writeJsonlAtomic(request.out, rows);
      return rows;
    },

    async trainArm(ctx: StudyContext, request: ArmRunRequest, job?: JobPlan): Promise<ArmRunResult> {
      const done = finishedArm(request) === undefined ? await asProcess<ArmRunResult>(ctx, job) : undefined;
      return done ?? trainSimArm(getWorld(ctx), config, ctx, request);
    },

    async evaluate(ctx: StudyContext, checkpoint: string, items: readonly Gsm8kItem[], out: string, job?: JobPlan): Promise<EvalRow[]> {
      const done = await asProcess<EvalRow[]>(ctx, job);
      if (done !== undefined) return done;
      const w = getWorld(ctx);
      const policy = loadPolicy(ctx, checkpoint);
      const rows = items.map((item) => ({ item_id: item.id, correct: greedyCorrect(policy, w.test, item.index) }));
      ctx.progress(items.length, items.length);
      writeJsonlAtomic(out, rows);
      return rows;
    },
  };
}
