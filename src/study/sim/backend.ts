// The simulated backend of `rl-adv study --backend sim`. A SIMULATION: a logistic success model on the real GSM8K
// questions (src/study/sim/world.ts, docs/sim.md), so the protocol, its artifacts and its report run anywhere in
// seconds. Its numbers say nothing about a language model.
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { CalibrationRow } from '../../calibration/beff.js';
import { createEstimator } from '../../estimators/registry.js';
import type { Estimator } from '../../estimators/types.js';
import { RlAdvantagesError } from '../../errors.js';
import type { Gsm8kItem } from '../../data/gsm8k.js';
import type { AdvantageLogRow } from '../gate-metrics.js';
import type { ArmRunRequest, ArmRunResult, BackendCheck, CurvePoint, EvalRow, StudyBackend, StudyContext, TuningRequest } from '../backends/types.js';
import { appendJsonLine, keepFirstLines, readJson, writeFileAtomic, writeJsonlAtomic } from '../backends/files.js';
import { stream } from './random.js';
import {
  adamStep,
  buildSimWorld,
  greedyCorrect,
  initialAdam,
  initialPolicy,
  policyGradient,
  sampleRollout,
  SIM_DEFAULTS,
  type SimConfig,
  type SimPolicy,
  type SimRollout,
  type SimWorld,
} from './world.js';

/** The checkpoint of a simulated arm, rewritten atomically after every step. */
interface SimArmState {
  readonly format: 'rl-adv/sim-arm-state';
  readonly arm: string;
  readonly phase: 'pilot' | 'full';
  /** Steps completed; advantages.jsonl holds exactly this many lines. */
  step: number;
  readonly steps: number;
  done: boolean;
  theta0: number;
  theta: number[];
  adam: { m: number[]; v: number[]; t: number };
  rewardPerStep: number[];
  /** The learning curve's points so far (absent: no curve asked for). */
  curve?: CurvePoint[];
}

/**
 * RL_ADV_SIM_STEP_DELAY_MS=<ms> makes every simulated training step wait that long after its checkpoint. It exists
 * so a test (or a user trying --resume) can interrupt a run in the middle of an arm; it changes no number.
 */
function pause(): void {
  const ms = Number(process.env.RL_ADV_SIM_STEP_DELAY_MS ?? 0);
  if (Number.isFinite(ms) && ms > 0) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * RL_ADV_SIM_KILL_AT=<arm>:<step> kills the process (SIGKILL) in arm <arm>'s step <step> (0-based), after the step's
 * line is appended to advantages.jsonl and before its checkpoint: the worst moment to be interrupted, reached
 * deterministically, so a test of --resume does not race a timer. It changes no number of a run it does not stop.
 * RL_ADV_SIM_STOP_AT=<arm>:<step> stops the process (SIGSTOP) at the same point.
 */
function killPoint(arm: string, step: number): void {
  if (process.env.RL_ADV_SIM_KILL_AT === `${arm}:${step}`) process.kill(process.pid, 'SIGKILL');
  // The same point, but stopped (SIGSTOP) rather than killed: a test holds a live run there while a second process
  // tries the folder, then continues it (SIGCONT) or kills it.
  if (process.env.RL_ADV_SIM_STOP_AT === `${arm}:${step}`) process.kill(process.pid, 'SIGSTOP');
}

/** The learning rate the spec gives an arm (arm.lr, else optimizer.lr), which the sim multiplies by lrScale. */
function armLr(ctx: StudyContext, arm: ArmRunRequest['arm']): number {
  if (typeof arm.lr === 'number') return arm.lr;
  const optimizer = ctx.spec.raw.optimizer as { lr?: unknown } | undefined;
  if (typeof optimizer?.lr === 'number' && optimizer.lr > 0) return optimizer.lr;
  throw new RlAdvantagesError(`arms: ${arm.name} has no lr and the spec has no optimizer.lr`, { code: 'invalid_spec', field: 'lr' });
}

/** The estimator of an arm: its kernel file for `kernel:PATH` (loaded when the run started), else its name. */
function armEstimator(ctx: StudyContext, arm: ArmRunRequest['arm']): Estimator {
  const kernel = ctx.kernels[arm.advantage];
  if (kernel !== undefined) return createEstimator('kernel_file', { kernel });
  return createEstimator(arm.advantageSpec ?? arm.advantage, { vectorizer: ctx.vectorizer });
}

/** Rollouts of one step: groups_per_batch tasks from the data order, group_size rollouts each. */
export function stepTasks(ctx: StudyContext, arm: ArmRunRequest['arm'], step: number, order: Int32Array = ctx.order): number[] {
  const groups = arm.groups_per_batch ?? 1;
  const tasks: number[] = [];
  for (let g = 0; g < groups; g++) tasks.push(order[step * groups + g] as number);
  return tasks;
}

/** The simulated policy's greedy accuracy on the curve items at a step: the same rule as the eval (greedyCorrect). */
function curvePoint(w: SimWorld, policy: SimPolicy, items: readonly Gsm8kItem[], step: number): CurvePoint {
  const correct = items.filter((item) => greedyCorrect(policy, w.test, item.index)).length;
  return { step, accuracy: correct / items.length, correct, n: items.length };
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

    preflight: (): Promise<readonly BackendCheck[]> => Promise.resolve([]),

    sampleCalibration(ctx: StudyContext, tasks: readonly Gsm8kItem[], rollouts: number, out: string): Promise<CalibrationRow[]> {
      const w = getWorld(ctx);
      const policy = initialPolicy(w);
      const rng = stream(ctx.seed, 'calibration');
      const rows: CalibrationRow[] = [];
      tasks.forEach((task, k) => {
        for (let g = 0; g < rollouts; g++) {
          const r = sampleRollout(w, policy, w.train, task.index, rng);
          rows.push({ task_id: task.id, prompt: task.question, reward: r.reward });
        }
        ctx.progress(k + 1, tasks.length);
      });
      writeJsonlAtomic(out, rows);
      return Promise.resolve(rows);
    },

    sampleTuning(ctx: StudyContext, request: TuningRequest): Promise<CalibrationRow[]> {
      const w = getWorld(ctx);
      const policy = initialPolicy(w);
      const rng = stream(ctx.seed, 'tuning');
      const rows = request.tasks.map((task, k) => {
        const r = sampleRollout(w, policy, w.train, task.index, rng);
        if ((k + 1) % 100 === 0 || k + 1 === request.tasks.length) ctx.progress(k + 1, request.tasks.length);
        return { task_id: task.id, prompt: task.question, reward: r.reward };
      });
      writeJsonlAtomic(request.out, rows);
      return Promise.resolve(rows);
    },

    trainArm(ctx: StudyContext, request: ArmRunRequest): Promise<ArmRunResult> {
      const w = getWorld(ctx);
      const { arm, phase, steps } = request;
      const stateFile = path.join(request.dir, 'state.json');
      const logFile = path.join(request.dir, 'advantages.jsonl');
      let state: SimArmState;
      if (existsSync(stateFile)) {
        state = readJson<SimArmState>(stateFile);
        if (state.arm !== arm.name || state.phase !== phase || state.steps !== steps) {
          throw new RlAdvantagesError(`${stateFile} belongs to another run (arm ${state.arm}, ${state.phase}, ${state.steps} steps)`, {
            code: 'resume_mismatch',
          });
        }
      } else {
        const policy = initialPolicy(w);
        const adam = initialAdam(w);
        state = {
          format: 'rl-adv/sim-arm-state',
          arm: arm.name,
          phase,
          step: 0,
          steps,
          done: false,
          theta0: policy.theta0,
          theta: Array.from(policy.theta),
          adam: { m: Array.from(adam.m), v: Array.from(adam.v), t: adam.t },
          rewardPerStep: [],
          ...(request.curve ? { curve: [curvePoint(w, policy, request.curve.items, 0)] } : {}),
        };
      }
      // The log may hold a line written after the last checkpoint (killed in between): drop it.
      keepFirstLines(logFile, state.step);
      const policy: SimPolicy = { theta0: state.theta0, theta: Float64Array.from(state.theta) };
      const adam = { m: Float64Array.from(state.adam.m), v: Float64Array.from(state.adam.v), t: state.adam.t };
      const estimator = armEstimator(ctx, arm);
      const groupSize = arm.group_size ?? 1;
      const lr = armLr(ctx, arm) * config.lrScale;
      const needed = steps * (arm.groups_per_batch ?? 1);
      // A seed's order already leaves the calibration set out; the study's has it at its end.
      const available = request.order ? request.order.length : ctx.order.length - 64;
      if (needed > available) {
        throw new RlAdvantagesError(
          `arm ${arm.name} needs ${needed} training tasks but only ${available} are outside the calibration set`,
          { code: 'too_many_steps', field: 'steps' },
        );
      }
      for (let step = state.step; step < steps; step++) {
        // One stream per step: a resumed run draws exactly what an uninterrupted one would.
        const key = request.seed === undefined ? `rollouts/${phase}/${arm.name}/${step}` : `rollouts/${phase}/${arm.name}/seed-${request.seed}/${step}`;
        const rng = stream(ctx.seed, key);
        const tasks = stepTasks(ctx, arm, step, request.order);
        const rollouts: SimRollout[] = [];
        const prompts: string[] = [];
        const groupIds: number[] = [];
        for (const q of tasks) {
          for (let g = 0; g < groupSize; g++) {
            rollouts.push(sampleRollout(w, policy, w.train, q, rng));
            prompts.push((ctx.train[q] as Gsm8kItem).question);
            groupIds.push(q);
          }
        }
        const rewards = rollouts.map((r) => r.reward);
        const result = estimator.compute({ rewards, prompts, groupIds });
        const gradient = policyGradient(w, w.train, rollouts, result.advantages);
        adamStep(policy, adam, gradient, lr);
        const row: AdvantageLogRow & { diagnostics: Record<string, number> } = {
          arm: arm.name,
          step,
          estimator: arm.advantage,
          rollouts: rollouts.length,
          group_size: groupSize,
          groups: tasks.length,
          rewards,
          baselines: Array.from(result.baselines),
          loo_mean: Array.from(result.looMean),
          advantages: Array.from(result.advantages),
          max_self_weight: result.maxSelfWeight,
          nonzero_advantage_fraction: result.advantages.filter((a) => Math.abs(a) > 1e-6).length / rollouts.length,
          mean_abs_baseline_minus_loo_mean:
            result.baselines.reduce((s, b, i) => s + Math.abs(b - (result.looMean[i] as number)), 0) / rollouts.length,
          // docs/method.md section 2.1, with the wire names rl-adv serve uses (an extra key: readers keep it).
          diagnostics: {
            groups: result.diagnostics.groups,
            groups_of_one: result.diagnostics.groupsOfOne,
            zero_variance_groups: result.diagnostics.zeroVarianceGroups,
            zero_advantage_fraction: result.diagnostics.zeroAdvantageFraction,
            masked: result.diagnostics.masked,
          },
        };
        appendJsonLine(logFile, row);
        killPoint(arm.name, step);
        state.rewardPerStep.push(rewards.reduce((s, r) => s + r, 0) / rewards.length);
        state.step = step + 1;
        state.done = state.step === steps;
        state.theta0 = policy.theta0;
        state.theta = Array.from(policy.theta);
        state.adam = { m: Array.from(adam.m), v: Array.from(adam.v), t: adam.t };
        if (request.curve && state.curve && (state.step % request.curve.every === 0 || state.step === steps)) {
          state.curve.push(curvePoint(w, policy, request.curve.items, state.step));
        }
        writeFileAtomic(stateFile, JSON.stringify(state));
        ctx.progress(state.step, steps);
        pause();
      }
      if (!state.done) {
        state.done = true;
        writeFileAtomic(stateFile, JSON.stringify(state));
      }
      if (state.curve) writeJsonlAtomic(path.join(request.dir, 'curve.jsonl'), state.curve);
      return Promise.resolve({ rewardPerStep: state.rewardPerStep, checkpoint: stateFile, ...(state.curve ? { curve: state.curve } : {}) });
    },

    evaluate(ctx: StudyContext, checkpoint: string, items: readonly Gsm8kItem[], out: string): Promise<EvalRow[]> {
      const w = getWorld(ctx);
      const policy = loadPolicy(ctx, checkpoint);
      const rows = items.map((item) => ({ item_id: item.id, correct: greedyCorrect(policy, w.test, item.index) }));
      ctx.progress(items.length, items.length);
      writeJsonlAtomic(out, rows);
      return Promise.resolve(rows);
    },
  };
}
