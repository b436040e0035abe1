// The simulated backend's train job: one arm x seed trained step by step on the simulated world, checkpointed after
// every step (state.json) so an interrupted run continues with the numbers of an uninterrupted one. A SIMULATION.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { createEstimator } from '../../estimators/registry.js';
import type { Estimator } from '../../estimators/types.js';
import { RlAdvantagesError } from '../../errors.js';
import type { Gsm8kItem } from '../../data/gsm8k.js';
import type { AdvantageLogRow } from '../gate-metrics.js';
import type { ArmRunRequest, ArmRunResult, CurvePoint, StudyContext } from '../backends/types.js';
import { appendJsonLine, keepFirstLines, readJson, writeFileAtomic, writeJsonlAtomic } from '../backends/files.js';
import { stream } from './random.js';
import { adamStep, greedyCorrect, initialAdam, initialPolicy, policyGradient, sampleRollout, type SimConfig, type SimPolicy, type SimRollout, type SimWorld } from './world.js';

/** The checkpoint of a simulated arm, rewritten atomically after every step. */
export interface SimArmState {
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

/**
 * Rollouts of one step: groups_per_batch tasks from the data order, group_size rollouts each.
 *
 * @example
 * ```ts
 * stepTasks(ctx, { name: 'gs1', advantage: 'loo_batch_mean', groups_per_batch: 32 }, 0).length; // 32
 * ```
 */
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

/** The arm's checkpoint when it has one (refused when it belongs to another run), else its step-0 state. */
function startState(w: SimWorld, stateFile: string, request: ArmRunRequest): SimArmState {
  const { arm, phase, steps } = request;
  if (existsSync(stateFile)) {
    const state = readJson<SimArmState>(stateFile);
    if (state.arm !== arm.name || state.phase !== phase || state.steps !== steps) {
      throw new RlAdvantagesError(`${stateFile} belongs to another run (arm ${state.arm}, ${state.phase}, ${state.steps} steps)`, { code: 'resume_mismatch' });
    }
    return state;
  }
  const policy = initialPolicy(w);
  const adam = initialAdam(w);
  return {
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

/** What one step needs besides its number. */
interface StepInputs {
  readonly w: SimWorld;
  readonly ctx: StudyContext;
  readonly request: ArmRunRequest;
  readonly policy: SimPolicy;
  readonly adam: { m: Float64Array; v: Float64Array; t: number };
  readonly estimator: Estimator;
  readonly lr: number;
}

/** One training step: the step's rollouts, their advantages, an Adam step of the policy; returns the log row. */
function trainStep(s: StepInputs, step: number): AdvantageLogRow & { diagnostics: Record<string, number> } {
  const { w, ctx, request, policy } = s;
  const { arm, phase } = request;
  const groupSize = arm.group_size ?? 1;
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
  const result = s.estimator.compute({ rewards, prompts, groupIds });
  adamStep(policy, s.adam, policyGradient(w, w.train, rollouts, result.advantages), s.lr);
  return {
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
    mean_abs_baseline_minus_loo_mean: result.baselines.reduce((acc, b, i) => acc + Math.abs(b - (result.looMean[i] as number)), 0) / rollouts.length,
    // docs/method.md section 2.1, with the wire names rl-adv serve uses (an extra key: readers keep it).
    diagnostics: {
      groups: result.diagnostics.groups,
      groups_of_one: result.diagnostics.groupsOfOne,
      zero_variance_groups: result.diagnostics.zeroVarianceGroups,
      zero_advantage_fraction: result.diagnostics.zeroAdvantageFraction,
      masked: result.diagnostics.masked,
    },
  };
}

/**
 * The sim's train job: trains one arm (pilot or full, one seed) from its checkpoint in `request.dir` (or from the
 * start), appending a line to advantages.jsonl and rewriting state.json after every step, and the learning curve's
 * points at its steps (curve.jsonl at the end).
 *
 * @throws {RlAdvantagesError} `resume_mismatch` when state.json belongs to another arm run, `too_many_steps` when the
 *   arm needs more tasks than the data order has outside the calibration set, `invalid_spec` without a learning rate.
 * @example
 * ```ts
 * const result = trainSimArm(world, SIM_DEFAULTS, ctx, { arm, phase: 'full', steps: 10, dir: 'run/arms/gs1' });
 * ```
 */
export function trainSimArm(w: SimWorld, config: SimConfig, ctx: StudyContext, request: ArmRunRequest): ArmRunResult {
  const { arm, steps } = request;
  const stateFile = path.join(request.dir, 'state.json');
  const logFile = path.join(request.dir, 'advantages.jsonl');
  const state = startState(w, stateFile, request);
  // The log may hold a line written after the last checkpoint (killed in between): drop it.
  keepFirstLines(logFile, state.step);
  const policy: SimPolicy = { theta0: state.theta0, theta: Float64Array.from(state.theta) };
  const adam = { m: Float64Array.from(state.adam.m), v: Float64Array.from(state.adam.v), t: state.adam.t };
  const inputs: StepInputs = { w, ctx, request, policy, adam, estimator: armEstimator(ctx, arm), lr: armLr(ctx, arm) * config.lrScale };
  const needed = steps * (arm.groups_per_batch ?? 1);
  // A seed's order already leaves the calibration set out; the study's has it at its end.
  const available = request.order ? request.order.length : ctx.order.length - 64;
  if (needed > available) {
    throw new RlAdvantagesError(`arm ${arm.name} needs ${needed} training tasks but only ${available} are outside the calibration set`, { code: 'too_many_steps', field: 'steps' });
  }
  for (let step = state.step; step < steps; step++) {
    const row = trainStep(inputs, step);
    appendJsonLine(logFile, row);
    killPoint(arm.name, step);
    state.rewardPerStep.push(row.rewards.reduce((s, r) => s + r, 0) / row.rewards.length);
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
  return { rewardPerStep: state.rewardPerStep, checkpoint: stateFile, ...(state.curve ? { curve: state.curve } : {}) };
}
