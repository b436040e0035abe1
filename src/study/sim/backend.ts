// The simulated backend of `rl-adv study --backend sim`. A SIMULATION: a logistic success model on the real GSM8K
// questions (src/study/sim/world.ts, docs/sim.md), so the protocol, its artifacts and its report run anywhere in
// seconds. Its numbers say nothing about a language model. The backend is its job functions over one lazily built
// world: sample the calibration (and tuning) set, train one arm x seed (train-arm.ts), evaluate one checkpoint.
import type { CalibrationRow } from '../../calibration/beff.js';
import type { Gsm8kItem } from '../../data/gsm8k.js';
import type { ArmRunRequest, ArmRunResult, BackendCheck, EvalRow, StudyBackend, StudyContext, TuningRequest } from '../backends/types.js';
import { readJson, writeJsonlAtomic } from '../backends/files.js';
import { stream } from './random.js';
import { trainSimArm, type SimArmState } from './train-arm.js';
import { buildSimWorld, greedyCorrect, initialPolicy, sampleRollout, SIM_DEFAULTS, type SimConfig, type SimPolicy, type SimWorld } from './world.js';

export { stepTasks } from './train-arm.js';

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

    preflight: (): Promise<readonly BackendCheck[]> => Promise.resolve([]),

    sampleCalibration(ctx: StudyContext, tasks: readonly Gsm8kItem[], rollouts: number, out: string): Promise<CalibrationRow[]> {
      const rows = sampleRows(getWorld(ctx), ctx, tasks, rollouts, 'calibration', 1);
      writeJsonlAtomic(out, rows);
      return Promise.resolve(rows);
    },

    sampleTuning(ctx: StudyContext, request: TuningRequest): Promise<CalibrationRow[]> {
      const rows = sampleRows(getWorld(ctx), ctx, request.tasks, 1, 'tuning', 100);
      writeJsonlAtomic(request.out, rows);
      return Promise.resolve(rows);
    },

    trainArm: (ctx: StudyContext, request: ArmRunRequest): Promise<ArmRunResult> => Promise.resolve(trainSimArm(getWorld(ctx), config, ctx, request)),

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
