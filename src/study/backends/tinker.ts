// The Tinker backend of `rl-adv study --backend tinker`: runs the Python drivers of examples/tinker-cookbook
// (preflight.py, sample_calibration.py, run_arm.py, eval_gsm8k.py; docs/reproduce.md) phase by phase as
// subprocesses and reads their artifacts back, so the real study has the same orchestrator, gate and report as
// the simulation. A paid backend is never chosen implicitly: only `--backend tinker` selects it. The factory checks
// the prerequisites and binds the job functions of tinker-jobs.ts to the drivers.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { RlAdvantagesError } from '../../errors.js';
import { commandEnv, describeJob, runDescribedJob } from '../executor/describe.js';
import { tinkerEvaluate, tinkerPreflight, tinkerSampleCalibration, tinkerSampleTuning, tinkerTrainArm, type TinkerDrivers } from './tinker-jobs.js';
import type { StudyBackend } from './types.js';

export { completedFailedReport, preflightChecks, replicateArgs, type PreflightReport } from './tinker-checks.js';

/** The driver scripts the backend runs, in examples/tinker-cookbook. */
export const TINKER_DRIVERS = ['preflight.py', 'sample_calibration.py', 'run_arm.py', 'eval_gsm8k.py'] as const;

/** Where the Tinker backend finds its tools. */
export interface TinkerBackendOptions {
  /** The drivers' folder (default: $RL_ADV_TINKER_DRIVERS, else examples/tinker-cookbook beside this package's dist/). */
  readonly driversDir?: string;
  /** The Python interpreter (default: $RL_ADV_PYTHON, else `python3`). */
  readonly python?: string;
  /** The environment (default: process.env); must hold TINKER_API_KEY. */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

function unavailable(message: string): RlAdvantagesError {
  return new RlAdvantagesError(`--backend tinker: ${message}`, { code: 'tinker_unavailable', field: 'backend' });
}

function defaultDriversDir(): string {
  const entry = process.argv[1] ?? '.';
  return path.resolve(path.dirname(entry), '..', 'examples', 'tinker-cookbook');
}

/**
 * Creates the Tinker backend after checking its prerequisites, so a run is refused before its folder is touched:
 * TINKER_API_KEY set, a Python interpreter that runs, and the four driver scripts present.
 *
 * @throws {RlAdvantagesError} `tinker_unavailable`, naming what is missing and how to provide it.
 * @example
 * ```ts
 * const backend = createTinkerBackend({ driversDir: 'examples/tinker-cookbook' });
 * ```
 */
export function createTinkerBackend(options: TinkerBackendOptions = {}): StudyBackend {
  const env = options.env ?? process.env;
  if (!env.TINKER_API_KEY) {
    throw unavailable('TINKER_API_KEY is not set: export your Tinker API key first (docs/reproduce.md); the sim backend needs none');
  }
  const python = options.python ?? env.RL_ADV_PYTHON ?? 'python3';
  const probe = spawnSync(python, ['--version'], { encoding: 'utf8', env });
  if (probe.error !== undefined || probe.status !== 0) {
    throw unavailable(`cannot run Python (${JSON.stringify(python)}): ${probe.error?.message ?? probe.stderr.trim()}; set RL_ADV_PYTHON to a Python with the pinned tinker-cookbook (docs/reproduce.md)`);
  }
  const driversDir = path.resolve(options.driversDir ?? env.RL_ADV_TINKER_DRIVERS ?? defaultDriversDir());
  const missing = TINKER_DRIVERS.filter((name) => !existsSync(path.join(driversDir, name)));
  if (missing.length > 0) {
    throw unavailable(`driver script(s) ${missing.join(', ')} not found in ${driversDir}; set RL_ADV_TINKER_DRIVERS to the examples/tinker-cookbook folder of an rl-advantages checkout`);
  }

  // Runs one driver as a job of the study's graph; stdout is returned, stdout and stderr also kept in DIR/logs/<name>.log.
  // The job's environment names the data; TINKER_API_KEY comes from the node's own environment (a secret never
  // travels in a job's description), unless the caller handed the backend an environment of its own.
  const own = Object.keys(env).filter((key) => env[key] !== process.env[key]);
  const drivers: TinkerDrivers = {
    run: (ctx, script, args, logName, plan, fallback) => {
      const argv = [python, path.join(driversDir, script), ...args];
      const command = { argv, env: { ...commandEnv(env, ['PYTHONPATH', ...own]), GSM8K_DIR: ctx.dataDir }, cwd: process.cwd() };
      return runDescribedJob(ctx, describeJob(ctx, plan, fallback, command, logName));
    },
  };

  return {
    name: 'tinker',
    simulation: false,
    identity: () => ({ drivers: TINKER_DRIVERS.slice() }),
    preflight: (ctx, plan) => tinkerPreflight(drivers, ctx, plan),
    sampleCalibration: (ctx, tasks, rollouts, out, plan) => tinkerSampleCalibration(drivers, ctx, tasks, rollouts, out, plan),
    sampleTuning: (ctx, request, plan) => tinkerSampleTuning(drivers, ctx, request, plan),
    trainArm: (ctx, request, plan) => tinkerTrainArm(drivers, ctx, request, plan),
    evaluate: (ctx, checkpoint, items, out, plan) => tinkerEvaluate(drivers, ctx, checkpoint, items, out, plan),
  };
}
