// The Tinker backend of `rl-adv study --backend tinker`: runs the Python drivers of examples/tinker-cookbook
// (preflight.py, sample_calibration.py, run_arm.py, eval_gsm8k.py; docs/reproduce.md) phase by phase as
// subprocesses and reads their artifacts back, so the real study has the same orchestrator, gate and report as
// the simulation. A paid backend is never chosen implicitly: only `--backend tinker` selects it.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync, renameSync } from 'node:fs';
import path from 'node:path';
import type { CalibrationRow } from '../../calibration/beff.js';
import { RlAdvantagesError } from '../../errors.js';
import type { Gsm8kItem } from '../../data/gsm8k.js';
import { runDriver as runPythonDriver } from './driver-process.js';
import { readJson, readJsonl, writeJsonAtomic } from './files.js';
import type { ArmRunRequest, ArmRunResult, BackendCheck, CurvePoint, EvalRow, StudyBackend, StudyContext, TuningRequest } from './types.js';

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

/** What the study reads of `preflight_tinker.json` (examples/tinker-cookbook/preflight.py) or `preflight_trl.json`. */
export interface PreflightReport {
  readonly passed?: unknown;
  readonly checks?: Record<string, { readonly passed?: unknown; readonly max_abs_error?: unknown; readonly max_self_weight?: unknown }>;
}

/** True when `file` holds a whole preflight report that says it failed (the driver's exit 1 after writing it). */
export function completedFailedReport(file: string): boolean {
  if (!existsSync(file)) return false;
  try {
    const report = JSON.parse(readFileSync(file, 'utf8')) as PreflightReport;
    return report.passed === false && typeof report.checks === 'object' && report.checks !== null;
  } catch {
    return false;
  }
}

/**
 * The study's checks from the driver's report: one per driver check (its max abs error or self-weight in the detail),
 * ids prefixed `<backend>:`, and a failing `<backend>:preflight` check whenever the report as a whole did not pass but no single check says so.
 */
export function preflightChecks(
  report: PreflightReport,
  backend = 'tinker',
  driver = 'examples/tinker-cookbook/preflight.py',
): { id: string; passed: boolean; detail: string }[] {
  const checks = Object.entries(report.checks ?? {}).map(([id, check]) => {
    const figure =
      typeof check.max_abs_error === 'number'
        ? `max abs error ${check.max_abs_error.toExponential(3)}`
        : typeof check.max_self_weight === 'number'
          ? `max self-weight ${check.max_self_weight}`
          : 'no figure';
    return { id: `${backend}:${id}`, passed: check.passed === true, detail: `${driver}: ${figure}` };
  });
  if (report.passed !== true && checks.every((c) => c.passed)) {
    checks.push({ id: `${backend}:preflight`, passed: false, detail: `${driver.split('/').at(-1) ?? driver} reported passed = ${JSON.stringify(report.passed ?? null)}` });
  }
  return checks;
}

/**
 * run_arm.py's flags for a replicate and a learning curve: `--seed S` (the recipe's data-order seed and the LoRA
 * seed; the driver takes the cookbook's own order of that seed, not `request.order`) and `--curve-items K
 * --curve-every N` (the recipe's test-set evaluator on the first K GSM8K test items, which must be the curve's items).
 *
 * @throws {RlAdvantagesError} `bad_option` (field `eval.curve_items`) when the curve's items are not the first K of the
 *   GSM8K test split, the only slice the recipe's evaluator can take.
 * @example
 * ```ts
 * replicateArgs({ ...request, seed: 3 }); // ['--seed', '3']
 * ```
 */
export function replicateArgs(request: ArmRunRequest): string[] {
  const args = request.seed === undefined ? [] : ['--seed', String(request.seed)];
  if (request.curve === undefined) return args;
  const stray = request.curve.items.findIndex((item, i) => item.id !== `gsm8k_test_${i}`);
  if (stray >= 0) {
    throw new RlAdvantagesError(
      `eval.curve_items: the tinker backend's curve is the recipe's evaluator on the first items of the GSM8K test split; item ${stray} is ${request.curve.items[stray]?.id ?? '?'}`,
      { code: 'bad_option', field: 'eval.curve_items' },
    );
  }
  return [...args, '--curve-items', String(request.curve.items.length), '--curve-every', String(request.curve.every)];
}

/** The driver's curve.jsonl, copied beside the arm's advantages.jsonl and returned. */
function readCurve(source: string, copy: string): CurvePoint[] {
  if (!existsSync(source)) {
    throw new RlAdvantagesError(`run_arm.py was asked for a learning curve but wrote no ${source}`, { code: 'driver_failed' });
  }
  copyFileSync(source, copy);
  return readJsonl<CurvePoint>(copy);
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

  /** Runs one driver; stdout is returned, stdout and stderr are also kept in DIR/logs/<name>.log. */
  const runDriver = (ctx: StudyContext, script: string, args: readonly string[], logName: string): Promise<string> =>
    runPythonDriver({
      python,
      args: [path.join(driversDir, script), ...args],
      env: { ...env, GSM8K_DIR: ctx.dataDir },
      runDir: ctx.dir,
      logName,
      label: script,
      unavailable,
    });

  // A driver writes to <artifact>.partial, renamed once it exits 0: a killed driver never leaves a trusted artifact.
  const partial = (file: string): string => `${file}.partial`;
  const common = (ctx: StudyContext): string[] => ['--spec', ctx.specPath, '--data-dir', ctx.dataDir];

  return {
    name: 'tinker',
    simulation: false,
    identity: () => ({ drivers: TINKER_DRIVERS.slice() }),

    async preflight(ctx: StudyContext): Promise<readonly BackendCheck[]> {
      const out = path.join(ctx.dir, 'preflight_tinker.json');
      if (!existsSync(out)) {
        try {
          await runDriver(ctx, 'preflight.py', ['--out', partial(out), ...common(ctx)], 'preflight');
        } catch (error) {
          // Exit 1 with a whole report is a preflight whose checks failed: keep the report so the study records
          // the failure check by check (and stops), instead of losing it with the driver's error.
          if (!completedFailedReport(partial(out))) throw error;
        }
        renameSync(partial(out), out);
      }
      return preflightChecks(readJson<PreflightReport>(out));
    },

    async sampleCalibration(ctx: StudyContext, tasks: readonly Gsm8kItem[], rollouts: number, out: string): Promise<CalibrationRow[]> {
      if (!existsSync(out)) {
        const seed = String(ctx.spec.arms[0]?.seed ?? 0);
        await runDriver(
          ctx,
          'sample_calibration.py',
          ['--out', partial(out), '--tasks', String(tasks.length), '--rollouts', String(rollouts), '--seed', seed, ...common(ctx)],
          'calibration',
        );
        renameSync(partial(out), out);
      }
      return readJsonl<CalibrationRow>(out);
    },

    async sampleTuning(ctx: StudyContext, request: TuningRequest): Promise<CalibrationRow[]> {
      const out = request.out;
      if (!existsSync(out)) {
        const seed = String(ctx.spec.arms[0]?.seed ?? 0);
        const args = ['--out', partial(out), '--first', String(request.first), '--tasks', String(request.tasks.length), '--rollouts', '1', '--seed', seed];
        if (request.exclude.length > 0) args.push('--exclude-rows', request.exclude.join(','));
        await runDriver(ctx, 'sample_calibration.py', [...args, ...common(ctx)], 'tuning');
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
    },

    async trainArm(ctx: StudyContext, request: ArmRunRequest): Promise<ArmRunResult> {
      const resultFile = path.join(request.dir, 'result.json');
      if (existsSync(resultFile)) return readJson<ArmRunResult>(resultFile);
      const logPath = path.join(request.dir, 'tinker');
      // An interrupted driver run continues from the cookbook's last checkpoint in logPath (--resume; a fresh
      // start when logPath does not exist), so a sampling error late in an arm does not cost the whole arm.
      const name = request.seed === undefined ? `${request.phase}_${request.arm.name}` : `${request.phase}_${request.arm.name}_seed${request.seed}`;
      const stdout = await runDriver(
        ctx,
        'run_arm.py',
        ['--arm', request.arm.name, '--log-path', logPath, '--steps', String(request.steps), '--resume', ...replicateArgs(request), ...common(ctx)],
        name,
      );
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
      copyFileSync(log, path.join(request.dir, 'advantages.jsonl'));
      const rows = readJsonl<{ rewards: number[] }>(path.join(request.dir, 'advantages.jsonl'));
      const result: ArmRunResult = {
        rewardPerStep: rows.map((row) => row.rewards.reduce((s, r) => s + r, 0) / row.rewards.length),
        checkpoint: info.final_sampler_path,
        ...(request.curve ? { curve: readCurve(path.join(logPath, 'curve.jsonl'), path.join(request.dir, 'curve.jsonl')) } : {}),
      };
      writeJsonAtomic(resultFile, result);
      return result;
    },

    async evaluate(ctx: StudyContext, checkpoint: string, items: readonly Gsm8kItem[], out: string): Promise<EvalRow[]> {
      if (!existsSync(out)) {
        await runDriver(
          ctx,
          'eval_gsm8k.py',
          ['--checkpoint', checkpoint === 'init' ? 'base' : checkpoint, '--out', partial(out), '--limit', String(items.length), ...common(ctx)],
          `eval_${path.basename(out, '.jsonl')}`,
        );
        renameSync(partial(out), out);
      }
      const rows = readJsonl<{ item_id: string; correct: boolean }>(out);
      return rows.map((row) => ({ item_id: row.item_id, correct: row.correct === true }));
    },
  };
}
