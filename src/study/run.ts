// `rl-adv study`: the whole protocol of METHOD section 8 as one resumable run. Phases in order: preflight,
// calibration, pilot, gate, arms, eval, decision. Each writes its artifact atomically into the run folder and
// records itself in summary.json, so --resume skips finished phases and an arm continues from its checkpoint.
import { createHash } from 'node:crypto';
import { accessSync, constants, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { calibrateBeff, groupCalibrationRows, type BeffCalibration, type CalibrationRow } from '../calibration/beff.js';
import { RlAdvantagesError } from '../errors.js';
import { gsm8kReferenceAnswer } from '../grading/gsm8k.js';
import { loadGsm8k, resolveGsm8kDir, type Gsm8kItem } from '../data/gsm8k.js';
import { decide, decisionJson, planDecision, type DecisionJson, type DecisionPlan } from '../stats/hoeffding.js';
import { TfidfVectorizer } from '../text/tfidf.js';
import { VERSION } from '../version.js';
import { estimatorPreflight, type PreflightCheck } from './backends/preflight.js';
import { readJson, readJsonl, writeFileAtomic, writeJsonAtomic } from './backends/files.js';
import type { EvalRow, StudyBackend, StudyContext } from './backends/types.js';
import { evaluateGate, gateJson, type GateJson } from './gate.js';
import { gateMetrics, parseAdvantageLog, type AdvantageLogRow, type GateMetrics } from './gate-metrics.js';
import { renderReport } from './report.js';
import { clusteredQuestions, questionsJsonl, SIM_QUESTION_SETS, type QuestionRow, type SimQuestionSet } from './sim/questions.js';
import { shuffledOrder } from './sim/random.js';
import { loadStudySpec, type StudyArm, type StudySpec } from './spec.js';

/** The phases, in order of work. */
export const STUDY_PHASES = ['preflight', 'calibration', 'pilot', 'gate', 'arms', 'eval', 'decision'] as const;
export type StudyPhase = (typeof STUDY_PHASES)[number];

/** Tasks in the calibration set (the last of the data order) and rollouts per task (METHOD section 8 step 3). */
export const CALIBRATION_TASKS = 64;
export const CALIBRATION_ROLLOUTS = 8;
/** Pilot: steps per arm and eval items (METHOD section 8 step 4). */
export const PILOT_STEPS = 3;
export const PILOT_EVAL_ITEMS = 100;
/** The study's calibration settings: the recipe's 20000 batches, but 100 bootstrap replicates (not 1000) to keep the study fast. */
export const STUDY_CALIBRATION = Object.freeze({ batches: 20000, bootstrap: 100 });

/** What {@link runStudy} needs. */
export interface StudyOptions {
  /** The spec file. */
  readonly specPath: string;
  /** The run folder. */
  readonly dir: string;
  readonly backend: StudyBackend;
  /** The study seed (default 0). */
  readonly seed?: number;
  /** Continue a run in `dir` instead of refusing a non-empty folder. */
  readonly resume?: boolean;
  /** GSM8K folder (default: GSM8K_DIR); refused with `questions: 'clustered'`. */
  readonly dataDir?: string;
  /**
   * The questions: `gsm8k` (default, read from `dataDir`) or `clustered`, the built-in templated set of
   * `clusteredQuestions()` (a simulated backend only; docs/sim.md).
   */
  readonly questions?: SimQuestionSet;
  /** Override every arm's steps (for quick runs; recorded in the summary). */
  readonly steps?: number;
  /** Evaluate only the first N test items in the eval phase (for quick runs; recorded). */
  readonly evalLimit?: number;
  /** Calibration batches and bootstrap replicates (defaults {@link STUDY_CALIBRATION}). */
  readonly calibrationBatches?: number;
  readonly calibrationBootstrap?: number;
  /** Progress: a phase starts, advances, ends. */
  readonly onPhase?: (event: PhaseEvent) => void;
}

/** Progress events for a terminal or a log. */
export type PhaseEvent =
  | { readonly kind: 'start'; readonly phase: string; readonly label: string }
  | { readonly kind: 'progress'; readonly phase: string; readonly label: string; readonly done: number; readonly total: number }
  | { readonly kind: 'end'; readonly phase: string; readonly line: string; readonly seconds: number };

/** One phase in summary.json. */
export interface PhaseRecord {
  status: 'done' | 'failed' | 'stopped';
  wall_seconds: number;
  result: string;
}

/** summary.json. */
export interface StudySummary {
  spec: { title: string | null; path: string; sha256: string };
  /**
   * The question set (`gsm8k` or the built-in `clustered`), its folder (null for the built-in set), its row counts,
   * and the sha256 of train.jsonl followed by test.jsonl (for the built-in set, of the JSON lines it would write).
   */
  data: { questions: SimQuestionSet; dir: string | null; train: number; test: number; sha256: string };
  seed: number;
  /** `sim` or `tinker`. */
  backend: string;
  /** True for the sim backend: its figures come from a simulation. */
  simulation: boolean;
  backend_settings: Record<string, unknown>;
  version: string;
  options: { steps: number | null; eval_limit: number | null; calibration_batches: number; calibration_bootstrap: number };
  phases: Partial<Record<StudyPhase, PhaseRecord>>;
  preflight?: { passed: boolean; checks: readonly (PreflightCheck | { id: string; passed: boolean; detail: string })[] };
  calibration: CalibrationSummary | null;
  pilot?: { arms: Record<string, { reward_per_step: number[] }>; eval: Record<string, { accuracy: number; n: number }> };
  gate: GateJson | null;
  gate_metrics?: GateMetrics;
  fallback?: { estimator: string; ratio: number; ratio_ci95: readonly [number, number] | null; note: string };
  arms?: Record<string, { advantage: string; steps: number; reward_per_step: number[] }>;
  eval?: Record<string, { accuracy: number; n: number; file: string }>;
  decision?: DecisionJson;
  /** Which arm is the treatment (the kernel arm) and which the baseline (the group_mean arm) of the decision. */
  comparison?: { treatment: string; baseline: string };
  plan?: { n: number; alpha: number; criteria: { id: string; half_width: number; validates_above: number; fails_below: number }[] };
  exit_code?: number;
}

/** The calibration figures summary.json keeps. */
export interface CalibrationSummary {
  tasks: number;
  rollouts: number;
  mean_reward: number;
  sigma_eps2: number | null;
  batch_size: number;
  batches: number;
  bootstrap: number;
  seed: string | number;
  reference: string;
  estimators: Record<string, { mse_corrected: number; ratio: number; ratio_se: number; ratio_ci95: readonly [number, number] | null }>;
}

/** The outcome of {@link runStudy}: the exit code (0 done, 1 gate failed) and the summary. */
export interface StudyOutcome {
  readonly exitCode: 0 | 1;
  readonly summary: StudySummary;
}

function usage(message: string, code = 'bad_option'): RlAdvantagesError {
  return new RlAdvantagesError(message, { code });
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** The kernel (treatment) arm and the group_mean (baseline) arm of a two-arm spec. */
export function studyArms(spec: StudySpec): { treatment: StudyArm; baseline: StudyArm } {
  if (spec.arms.length !== 2) {
    throw new RlAdvantagesError(`arms must hold exactly 2 arms (a baseline and a treatment) for rl-adv study, got ${spec.arms.length}`, {
      code: 'invalid_spec',
      field: 'arms',
    });
  }
  const baseline = spec.arms.find((arm) => arm.advantage === 'group_mean') ?? (spec.arms[0] as StudyArm);
  const treatment = spec.arms.find((arm) => arm !== baseline) as StudyArm;
  return { treatment, baseline };
}

/** Refuses a folder it cannot write, before any artifact exists. */
function prepareDir(dir: string, resume: boolean): void {
  if (existsSync(dir)) {
    if (!statSync(dir).isDirectory()) throw usage(`--out ${dir} exists and is not a folder`, 'bad_out_dir');
    const entries = readdirSync(dir);
    if (entries.length > 0 && !resume) {
      throw usage(`--out ${dir} is not empty: pass --resume to continue the run in it, or choose an empty folder`, 'out_dir_not_empty');
    }
  } else {
    try {
      mkdirSync(dir, { recursive: true });
    } catch (error) {
      throw usage(`--out ${dir} cannot be created: ${(error as Error).message}`, 'bad_out_dir');
    }
  }
  try {
    accessSync(dir, constants.W_OK);
    const probe = path.join(dir, `.write-probe-${process.pid}`);
    writeFileAtomic(probe, '');
    rmSync(probe);
  } catch (error) {
    throw usage(`--out ${dir} is not writable: ${(error as Error).message}`, 'bad_out_dir');
  }
}

/** Removes the temporary files of writes cut short by a kill (`<artifact>.tmp-<pid>`), before a resume. */
function removeStaleTemporaries(dir: string): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) removeStaleTemporaries(full);
    else if (/\.tmp-\d+$/.test(entry.name)) rmSync(full);
  }
}

function calibrationSummary(c: BeffCalibration): CalibrationSummary {
  const estimators: CalibrationSummary['estimators'] = {};
  for (const [name, e] of Object.entries(c.estimators)) {
    estimators[name] = { mse_corrected: e.mseCorrected, ratio: e.ratio, ratio_se: e.ratioSe, ratio_ci95: e.ratioCi95 };
  }
  return {
    tasks: c.tasks,
    rollouts: c.rollouts,
    mean_reward: c.meanReward,
    sigma_eps2: c.sigmaEps2,
    batch_size: c.batchSize,
    batches: c.batches,
    bootstrap: c.bootstrapReplicates,
    seed: c.seed,
    reference: c.reference,
    estimators,
  };
}



function planJson(p: DecisionPlan): NonNullable<StudySummary['plan']> {
  return {
    n: p.n,
    alpha: p.alpha,
    criteria: p.criteria.map((c) => ({ id: c.id, half_width: c.halfWidth, validates_above: c.validatesAbove, fails_below: c.failsBelow })),
  };
}

function accuracy(rows: readonly EvalRow[]): number {
  return rows.filter((r) => r.correct).length / rows.length;
}

const fmt = (x: number | null | undefined, digits = 4): string => (typeof x === 'number' ? x.toFixed(digits) : 'n/a');

/** Rows of the built-in set as the study's items (`clustered_<split>_<index>` ids; reference answers parsed as GSM8K's). */
function builtInItems(rows: readonly QuestionRow[], split: 'train' | 'test'): Gsm8kItem[] {
  return rows.map((row, index) => ({
    index,
    id: `clustered_${split}_${index}`,
    question: row.question,
    answer: row.answer,
    referenceAnswer: gsm8kReferenceAnswer(row.answer),
  }));
}

/** The study's questions: GSM8K from its folder, or the built-in clustered set (sim backend only, no folder). */
function loadQuestions(options: StudyOptions): {
  questions: SimQuestionSet;
  dataDir: string | null;
  train: Gsm8kItem[];
  test: Gsm8kItem[];
  dataSha256: string;
} {
  const questions = options.questions ?? 'gsm8k';
  if (!(SIM_QUESTION_SETS as readonly string[]).includes(questions)) {
    throw usage(`--sim-questions must be ${SIM_QUESTION_SETS.map((q) => `"${q}"`).join(' or ')}, got ${JSON.stringify(questions)}`);
  }
  const hash = createHash('sha256');
  if (questions === 'clustered') {
    if (!options.backend.simulation) {
      throw usage(`--sim-questions clustered applies to the simulated backend only, not --backend ${options.backend.name}`);
    }
    if (options.dataDir !== undefined) {
      throw usage('--data-dir does not apply to --sim-questions clustered: the clustered question set is built in; drop one of them');
    }
    const set = clusteredQuestions();
    hash.update(questionsJsonl(set.train)).update(questionsJsonl(set.test));
    return { questions, dataDir: null, train: builtInItems(set.train, 'train'), test: builtInItems(set.test, 'test'), dataSha256: hash.digest('hex') };
  }
  const dataDir = resolveGsm8kDir(options.dataDir);
  const train = loadGsm8k(dataDir, 'train');
  const test = loadGsm8k(dataDir, 'test');
  for (const split of ['train', 'test']) hash.update(readFileSync(path.join(dataDir, `${split}.jsonl`)));
  return { questions, dataDir, train, test, dataSha256: hash.digest('hex') };
}

/**
 * Runs (or resumes) the study of a spec in a folder, phase by phase (METHOD section 8), with the given backend.
 *
 * Artifacts in `dir`: run.json (the run's identity), preflight.json, calibration/calibration.jsonl and
 * calibration/beff.json, pilot/<arm>/advantages.jsonl, pilot/eval_<policy>.jsonl, gate.json, arms/<arm>/advantages.jsonl,
 * eval/<arm>.jsonl, decision.json, summary.json and report.md. Each is written atomically. When the activation gate
 * fails, `length_bucket_loo` is scored on the same calibration set, both are recorded, and the run stops with exit
 * code 1: the gate is never relaxed.
 *
 * @returns `{ exitCode: 0 | 1, summary }`.
 * @throws {RlAdvantagesError} (exit 2 in the CLI) for a malformed spec, an unwritable or non-empty folder without
 *   `resume`, a folder holding another run (spec, questions, data, seed, backend or options differ), missing GSM8K
 *   data, or `questions: 'clustered'` with a non-simulated backend or with a `dataDir`.
 * @example
 * ```ts
 * const { exitCode, summary } = await runStudy({ specPath: 'gs1-vs-grpo.spec.json', dir: 'out', backend: createSimBackend() });
 * console.log(exitCode, summary.gate?.passed); // 1 false: the default sim reproduces the record's failed gate
 * ```
 */
export async function runStudy(options: StudyOptions): Promise<StudyOutcome> {
  const seed = options.seed ?? 0;
  if (!Number.isInteger(seed) || seed < 0) throw usage(`--seed must be an integer >= 0, got ${String(options.seed)}`);
  if (options.steps !== undefined && !(Number.isInteger(options.steps) && options.steps >= 1)) {
    throw usage(`--steps must be an integer >= 1, got ${String(options.steps)}`);
  }
  if (options.evalLimit !== undefined && !(Number.isInteger(options.evalLimit) && options.evalLimit >= 1)) {
    throw usage(`--eval-limit must be an integer >= 1, got ${String(options.evalLimit)}`);
  }
  // Everything that can be refused is checked before the folder is touched.
  let specText: string;
  try {
    specText = readFileSync(options.specPath, 'utf8');
  } catch (error) {
    throw usage(`--spec ${options.specPath} cannot be read: ${(error as Error).message}`, 'spec_not_found');
  }
  const spec = loadStudySpec(specText);
  const { treatment, baseline } = studyArms(spec);
  const armSeeds = new Set(spec.arms.map((arm) => arm.seed ?? 0));
  if (armSeeds.size !== 1) {
    throw new RlAdvantagesError('arms must share one seed (the same data order for every arm)', { code: 'invalid_spec', field: 'arms' });
  }
  const dataSeed = [...armSeeds][0] as number;
  const { questions, dataDir, train, test, dataSha256 } = loadQuestions(options);
  if (train.length < CALIBRATION_TASKS + 2) throw usage(`the GSM8K train split has ${train.length} rows; the study needs more than ${CALIBRATION_TASKS + 2}`);

  const dir = path.resolve(options.dir);
  const specPath = path.resolve(options.specPath);
  const identity = {
    format: 'rl-adv/study-run',
    spec_sha256: sha256(specText),
    questions,
    data_sha256: dataSha256,
    seed,
    backend: options.backend.name,
    backend_settings: options.backend.identity(),
    steps: options.steps ?? null,
    eval_limit: options.evalLimit ?? null,
    calibration_batches: options.calibrationBatches ?? STUDY_CALIBRATION.batches,
    calibration_bootstrap: options.calibrationBootstrap ?? STUDY_CALIBRATION.bootstrap,
    version: VERSION,
  };
  prepareDir(dir, options.resume === true);
  const runFile = path.join(dir, 'run.json');
  const summaryFile = path.join(dir, 'summary.json');
  if (existsSync(runFile)) {
    const previous = readJson<Record<string, unknown>>(runFile);
    const differs = Object.keys(identity).filter(
      (k) => JSON.stringify(previous[k]) !== JSON.stringify((identity as Record<string, unknown>)[k]),
    );
    if (differs.length > 0) {
      throw usage(
        `--out ${dir} holds another run (different ${differs.join(', ')}); refusing to mix runs: use another folder`,
        'resume_mismatch',
      );
    }
    removeStaleTemporaries(dir);
  } else if (options.resume === true && readdirSync(dir).length > 0) {
    throw usage(`--out ${dir} holds no rl-adv study run (no run.json); refusing to resume into it`, 'resume_mismatch');
  } else {
    writeJsonAtomic(runFile, identity);
  }

  const title = typeof spec.raw.title === 'string' ? spec.raw.title : null;
  const summary: StudySummary = existsSync(summaryFile)
    ? readJson<StudySummary>(summaryFile)
    : {
        spec: { title, path: specPath, sha256: identity.spec_sha256 },
        data: { questions, dir: dataDir, train: train.length, test: test.length, sha256: identity.data_sha256 },
        seed,
        backend: options.backend.name,
        simulation: options.backend.simulation,
        backend_settings: options.backend.identity(),
        version: VERSION,
        options: {
          steps: identity.steps,
          eval_limit: identity.eval_limit,
          calibration_batches: identity.calibration_batches,
          calibration_bootstrap: identity.calibration_bootstrap,
        },
        phases: {},
        calibration: null,
        gate: null,
      };
  const save = (): void => {
    writeJsonAtomic(summaryFile, summary);
    writeFileAtomic(path.join(dir, 'report.md'), renderReport(summary));
  };

  const vectorizer = TfidfVectorizer.fit(train.map((item) => item.question));
  const order = shuffledOrder(train.length, dataSeed);
  let currentPhase = '';
  let currentLabel = '';
  const ctx: StudyContext = {
    spec,
    specPath,
    dir,
    seed,
    // The built-in set has no folder; only the tinker backend reads this, and it never runs on that set.
    dataDir: dataDir ?? '',
    train,
    test,
    vectorizer,
    order,
    progress: (done, total) => options.onPhase?.({ kind: 'progress', phase: currentPhase, label: currentLabel, done, total }),
  };
  const backend = options.backend;
  const calibrationTasks = Array.from(order.slice(-CALIBRATION_TASKS), (q) => train[q] as Gsm8kItem);
  const batches = identity.calibration_batches;
  const bootstrap = identity.calibration_bootstrap;
  const stepsOf = (arm: StudyArm): number => options.steps ?? arm.steps ?? (typeof spec.raw.steps === 'number' ? spec.raw.steps : 60);
  const calibrationSeed = `rl-adv-study/${seed}/calibration`;
  const batchSize = (treatment.group_size ?? 1) * (treatment.groups_per_batch ?? 32);

  const phase = async (name: StudyPhase, body: () => Promise<{ line: string; status?: PhaseRecord['status'] }>): Promise<boolean> => {
    const done = summary.phases[name];
    if (done !== undefined && done.status === 'done') return true;
    currentPhase = name;
    currentLabel = name;
    options.onPhase?.({ kind: 'start', phase: name, label: name });
    const started = performance.now();
    const { line, status } = await body();
    const seconds = (performance.now() - started) / 1000;
    summary.phases[name] = { status: status ?? 'done', wall_seconds: Math.round(seconds * 1000) / 1000, result: line };
    save();
    options.onPhase?.({ kind: 'end', phase: name, line, seconds });
    return (status ?? 'done') === 'done';
  };
  const label = (text: string): void => {
    currentLabel = text;
    options.onPhase?.({ kind: 'start', phase: currentPhase, label: text });
  };

  save();

  // 1-2. Correctness preflight and the offline estimator tests.
  const preflightOk = await phase('preflight', async () => {
    const library = estimatorPreflight(spec, vectorizer, calibrationTasks.map((t) => t.question));
    const own = await backend.preflight(ctx);
    const checks = [...library, ...own];
    const passed = checks.every((c) => c.passed);
    summary.preflight = { passed, checks };
    writeJsonAtomic(path.join(dir, 'preflight.json'), summary.preflight);
    const failed = checks.filter((c) => !c.passed).map((c) => c.id);
    return {
      line: passed ? `${checks.length} checks passed` : `FAILED: ${failed.join(', ')}`,
      status: passed ? 'done' : 'failed',
    };
  });
  if (!preflightOk) {
    summary.exit_code = 1;
    save();
    return { exitCode: 1, summary };
  }

  // 3. B_eff calibration on the held-out tasks.
  const calibrationDir = path.join(dir, 'calibration');
  let calibration: BeffCalibration | undefined;
  let calibrationRows: CalibrationRow[] | undefined;
  const loadCalibrationRows = (): CalibrationRow[] => readJsonl<CalibrationRow>(path.join(calibrationDir, 'calibration.jsonl'));
  await phase('calibration', async () => {
    mkdirSync(calibrationDir, { recursive: true });
    label(`calibration: sampling ${CALIBRATION_TASKS} tasks x ${CALIBRATION_ROLLOUTS}`);
    calibrationRows = await backend.sampleCalibration(ctx, calibrationTasks, CALIBRATION_ROLLOUTS, path.join(calibrationDir, 'calibration.jsonl'));
    label(`calibration: B_eff (${batches} batches, ${bootstrap} bootstrap)`);
    calibration = calibrateBeff(groupCalibrationRows(calibrationRows), {
      batchSize,
      batches,
      bootstrap,
      estimators: [treatment.advantage],
      reference: 'loo_batch_mean',
      seed: calibrationSeed,
      vectorizer,
      onProgress: ctx.progress,
    });
    writeJsonAtomic(path.join(calibrationDir, 'beff.json'), calibration);
    summary.calibration = calibrationSummary(calibration);
    const ratio = calibration.estimators[treatment.advantage]?.ratio;
    return { line: `mean reward ${fmt(calibration.meanReward, 3)}, sigma_eps^2 ${fmt(calibration.sigmaEps2)}, B_eff ratio ${fmt(ratio)}` };
  });
  calibration ??= readJson<BeffCalibration>(path.join(calibrationDir, 'beff.json'));

  // 4. Timing pilot: 3 steps per arm and a 100-item eval.
  const pilotDir = path.join(dir, 'pilot');
  const pilotItems = test.slice(0, Math.min(PILOT_EVAL_ITEMS, test.length));
  await phase('pilot', async () => {
    const arms: Record<string, { reward_per_step: number[] }> = {};
    const evals: Record<string, { accuracy: number; n: number }> = {};
    mkdirSync(pilotDir, { recursive: true });
    label(`pilot: eval of the starting policy on ${pilotItems.length} items`);
    evals.init = { accuracy: accuracy(await backend.evaluate(ctx, 'init', pilotItems, path.join(pilotDir, 'eval_init.jsonl'))), n: pilotItems.length };
    for (const arm of spec.arms) {
      const armDir = path.join(pilotDir, arm.name);
      mkdirSync(armDir, { recursive: true });
      label(`pilot: ${arm.name} (${PILOT_STEPS} steps)`);
      const result = await backend.trainArm(ctx, { arm, phase: 'pilot', steps: PILOT_STEPS, dir: armDir });
      arms[arm.name] = { reward_per_step: [...result.rewardPerStep] };
      label(`pilot: eval of ${arm.name}`);
      const rows = await backend.evaluate(ctx, result.checkpoint, pilotItems, path.join(pilotDir, `eval_${arm.name}.jsonl`));
      evals[arm.name] = { accuracy: accuracy(rows), n: rows.length };
    }
    summary.pilot = { arms, eval: evals };
    return { line: Object.entries(evals).map(([k, v]) => `${k} ${fmt(v.accuracy, 2)}`).join(', ') + ` (accuracy on ${pilotItems.length} items)` };
  });

  // 5. The activation gate; on failure the length_bucket_loo fallback is scored and the run stops.
  const pilotLogs = (): Record<string, AdvantageLogRow[]> => {
    const logs: Record<string, AdvantageLogRow[]> = {};
    for (const arm of spec.arms) {
      const file = path.join(pilotDir, arm.name, 'advantages.jsonl');
      logs[arm.name] = parseAdvantageLog(readFileSync(file, 'utf8'), file);
    }
    return logs;
  };
  const gatePassed = await phase('gate', async () => {
    const metrics = gateMetrics({ calibration, pilotLogs: pilotLogs(), arms: spec.arms });
    const result = evaluateGate(spec.activationGate, metrics);
    summary.gate_metrics = metrics;
    summary.gate = gateJson(result);
    let line: string;
    if (result.passed) {
      line = `PASSED (all ${result.checks.length} checks)`;
    } else {
      label('gate: scoring the length_bucket_loo fallback on the same calibration set');
      const rows = calibrationRows ?? loadCalibrationRows();
      const fallback = calibrateBeff(groupCalibrationRows(rows), {
        batchSize,
        batches,
        bootstrap,
        estimators: ['length_bucket_loo'],
        reference: 'loo_batch_mean',
        seed: calibrationSeed,
        vectorizer,
      });
      const f = fallback.estimators.length_bucket_loo;
      summary.fallback = {
        estimator: 'length_bucket_loo',
        ratio: f?.ratio ?? Number.NaN,
        ratio_ci95: f?.ratioCi95 ?? null,
        note: 'scored on the same calibration set and batches; adopting it needs a recorded revised spec before any training',
      };
      const failed = result.checks
        .filter((c) => c.status !== 'pass')
        .map((c) => `${c.metric} = ${fmt(c.value)} (${c.status}; min ${c.min ?? '-'}, max ${c.max ?? '-'})`);
      line = `FAILED: ${failed.join('; ')}; fallback length_bucket_loo B_eff ratio ${fmt(f?.ratio)}`;
    }
    writeJsonAtomic(path.join(dir, 'gate.json'), { metrics, result, fallback: summary.fallback ?? null });
    return { line, status: result.passed ? 'done' : 'stopped' };
  });
  if (!gatePassed) {
    summary.exit_code = 1;
    save();
    return { exitCode: 1, summary };
  }

  // 6. Both arms, same seed, lr and data order.
  const armsDir = path.join(dir, 'arms');
  const checkpoints: Record<string, string> = {};
  await phase('arms', async () => {
    summary.arms ??= {};
    for (const arm of spec.arms) {
      const armDir = path.join(armsDir, arm.name);
      mkdirSync(armDir, { recursive: true });
      label(`arms: ${arm.name} (${stepsOf(arm)} steps)`);
      const result = await backend.trainArm(ctx, { arm, phase: 'full', steps: stepsOf(arm), dir: armDir });
      summary.arms[arm.name] = { advantage: arm.advantage, steps: stepsOf(arm), reward_per_step: [...result.rewardPerStep] };
      checkpoints[arm.name] = result.checkpoint;
      save();
    }
    const finals = Object.entries(summary.arms).map(([k, v]) => `${k} final reward ${fmt(v.reward_per_step.at(-1), 3)}`);
    return { line: finals.join(', ') };
  });

  // 7. Greedy eval of each final policy on the test items, then the paired decision.
  const evalDir = path.join(dir, 'eval');
  const evalItems = options.evalLimit === undefined ? test : test.slice(0, options.evalLimit);
  await phase('eval', async () => {
    mkdirSync(evalDir, { recursive: true });
    summary.eval = {};
    for (const arm of spec.arms) {
      label(`eval: ${arm.name} on ${evalItems.length} items`);
      const checkpoint = checkpoints[arm.name] ?? (await backend.trainArm(ctx, { arm, phase: 'full', steps: stepsOf(arm), dir: path.join(armsDir, arm.name) })).checkpoint;
      const file = path.join(evalDir, `${arm.name}.jsonl`);
      const rows = await backend.evaluate(ctx, checkpoint, evalItems, file);
      summary.eval[arm.name] = { accuracy: accuracy(rows), n: rows.length, file: path.relative(dir, file) };
    }
    return { line: Object.entries(summary.eval).map(([k, v]) => `${k} ${fmt(v.accuracy)}`).join(', ') + ` (accuracy on ${evalItems.length} items)` };
  });

  await phase('decision', async () => {
    const rows = (arm: StudyArm): EvalRow[] => readJsonl<EvalRow>(path.join(evalDir, `${arm.name}.jsonl`));
    const decision = decide(spec.decisionRule, rows(treatment), rows(baseline));
    const plan = planDecision({ n: decision.n, alpha: spec.decisionRule.alpha, criteria: spec.decisionRule.criteria });
    summary.comparison = { treatment: treatment.name, baseline: baseline.name };
    summary.decision = decisionJson(decision);
    summary.plan = planJson(plan);
    writeJsonAtomic(path.join(dir, 'decision.json'), { comparison: summary.comparison, decision: summary.decision, plan: summary.plan });
    const c = decision.criteria[0];
    return {
      line: `${decision.verdict}${c ? ` (${c.id}: ${fmt(c.estimate)} in [${fmt(c.lower)}, ${fmt(c.upper)}], margin ${c.margin}, half-width ${fmt(c.halfWidth)})` : ''}`,
    };
  });
  summary.exit_code = 0;
  save();
  return { exitCode: 0, summary };
}
