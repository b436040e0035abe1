// `rl-adv study`: the whole protocol of docs/method.md section 8 as one resumable run. Phases in order: preflight,
// calibration, pilot, gate, arms, eval, decision (one module each in phases/). Each writes its artifact atomically
// into the run folder and records itself and its artifacts (bytes, sha256, rows) in summary.json, so --resume skips
// finished phases whose artifacts are whole (a torn one is rebuilt: src/study/verify-resume.ts) and an arm continues
// from its checkpoint. This module only checks the inputs, claims the folder and runs the phases in order.
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Gsm8kItem } from '../data/gsm8k.js';
import { describeResumePoint } from './resume-point.js';
import { recordPhaseArtifacts } from './artifact-manifest.js';
import { prepareResume } from './verify-resume.js';
import { TfidfVectorizer } from '../text/tfidf.js';
import { readJson, writeJsonAtomic } from './backends/files.js';
import { studyDesignPower } from './design-power.js';
import { phaseEvents } from './events.js';
import { loadStudyQuestions, type StudyQuestions } from './load-questions.js';
import type { StudyOptions, StudyOutcome } from './options.js';
import type { PhaseContext, StudyPhaseStep } from './phases/context.js';
import { PHASE_STEPS } from './phases/index.js';
import { studyJobGraph } from './phases/job-graph.js';
import { studyScheduler, type StudyScheduler } from './study-scheduler.js';
import type { StudyJobRunner } from './backends/types.js';
import { claimRunDir, RESUME_REMEDY } from './run-dir.js';
import { RlAdvantagesIoError } from '../errors.js';
import { withRemedy } from '../internal/durable-write.js';
import { replicateSeeds } from './replicates.js';
import { armKernels } from './arm-kernels.js';
import type { LoadedKernel } from '../kernels/kernel-file.js';
import { checkOptions, initialSummary, loadSpecModules, readSpec, runIdentity, runTuning, sharedArmSeed, studyArms, type RunIdentity } from './setup.js';
import { refuseChangedKernels, startKernels, writeOracleKernel, type StartKernels } from './run-kernels.js';
import { ORACLE_CELL_KERNEL, refuseStudyKernelsOn } from './kernel-arm-spec.js';
import { studyOrder } from './task-sets.js';
import type { StudyArm, StudySpec } from './spec.js';
import { CALIBRATION_TASKS, STUDY_PHASES, type StudySummary } from './summary.js';
import { lrGridIdentity, runHeldOut } from './lr-split.js';
import { usage } from './usage.js';

export type { StudyOptions, StudyOutcome } from './options.js';

export interface RunInputs {
  readonly options: StudyOptions;
  readonly dir: string;
  readonly specPath: string;
  readonly spec: StudySpec;
  readonly arms: { treatment: StudyArm; baseline: StudyArm };
  readonly dataSeed: number;
  readonly data: StudyQuestions;
  readonly identity: RunIdentity;
  readonly summary: StudySummary;
  /**
   * The arms' kernel files (`kernel:PATH`), loaded before the folder is touched. Mutable: the oracle kernel joins once written into the folder, the tuned kernel once
   * the tuning phase froze it.
   */
  readonly kernels: Record<string, LoadedKernel>;
  /** The kernel arms' files and hashes known before the folder is touched (run-kernels.ts). */
  readonly start: StartKernels;
  /** The `lr_selection` split's train rows (lr-split.ts), when the spec has one. */
  readonly heldOut?: readonly number[];
}

/** The context the phases share: the fitted TF-IDF, the data order, the backend's context and the run's settings. */
export function phaseContext(inputs: RunInputs, jobs?: StudyJobRunner): PhaseContext {
  const { options, dir, spec, data, identity, summary } = inputs;
  const { train, test } = data;
  const events = phaseEvents(options.onPhase);
  const vectorizer = TfidfVectorizer.fit(train.map((item) => item.question));
  const order = studyOrder(options.backend.name, train.length, inputs.dataSeed);
  const study = {
    spec,
    specPath: inputs.specPath,
    dir,
    seed: identity.seed,
    // The built-in set has no folder; only the tinker backend reads this, and it never runs on that set.
    dataDir: data.dataDir ?? '',
    train,
    test,
    vectorizer,
    order,
    kernels: inputs.kernels,
    ...(inputs.heldOut === undefined ? {} : { heldOut: inputs.heldOut }),
    progress: (done: number, total: number) => events.progress(done, total),
    ...(jobs === undefined ? {} : { jobs }),
  };
  const { treatment, baseline } = inputs.arms;
  const settings = {
    calibrationTasks: Array.from(order.slice(-CALIBRATION_TASKS), (q) => train[q] as Gsm8kItem),
    batches: identity.calibration_batches,
    bootstrap: identity.calibration_bootstrap,
    batchSize: (treatment.group_size ?? 1) * (treatment.groups_per_batch ?? 32),
    calibrationSeed: `rl-adv-study/${identity.seed}/calibration`,
    stepsOf: (arm: StudyArm): number => options.steps ?? arm.steps ?? (typeof spec.raw.steps === 'number' ? spec.raw.steps : 60),
  };
  const save = (): void => {
    writeJsonAtomic(path.join(dir, 'summary.json'), summary);
    options.onSummary?.(dir, summary);
  };
  const state = { checkpoints: {} };
  return { dir, spec, treatment, baseline, options, backend: options.backend, study, settings, summary, save, events, state };
}

/** Runs one phase unless summary.json records it done; false when it ends with a status other than done. */
async function runPhase(ctx: PhaseContext, step: StudyPhaseStep): Promise<boolean> {
  const done = ctx.summary.phases[step.name];
  if (done !== undefined && done.status === 'done') {
    step.restore?.(ctx);
    return true;
  }
  ctx.events.start(step.name);
  const started = performance.now();
  const { line, status = 'done' } = await step.run(ctx);
  const seconds = (performance.now() - started) / 1000;
  ctx.summary.phases[step.name] = { status, wall_seconds: Math.round(seconds * 1000) / 1000, result: line };
  // The phase's artifacts, recorded in the same write of summary.json that records the phase.
  recordPhaseArtifacts(ctx.dir, ctx.summary, step.name);
  ctx.save();
  ctx.events.end(step.name, line, seconds);
  return status === 'done';
}

/**
 * Runs (or resumes) the study of a spec in a folder, phase by phase (docs/method.md section 8), with the given backend.
 *
 * Artifacts in `dir`: run.json (the run's identity), preflight.json, calibration/calibration.jsonl and
 * calibration/beff.json, pilot/<arm>/advantages.jsonl, pilot/eval_<policy>.jsonl, gate.json, arms/<arm>/advantages.jsonl,
 * eval/<arm>.jsonl, decision.json and summary.json, each written atomically. The study writes no report: the CLI
 * runs it through `runStudyWithReports` (src/report/write.ts), which adds report.md after every phase and
 * report.html at the end. When the activation gate
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
  const inputs = await studyInputs(options);
  const scheduler = studyScheduler(options, inputs.dir);
  // The executor's check of the whole job graph (resources some node has, a shared run folder, the drivers), before
  // the folder is touched; the default local executor has nothing to check.
  if (options.executor !== undefined) {
    const summary = initialSummary(options, inputs.spec, inputs.specPath, inputs.identity, inputs.data);
    await scheduler.prepare(studyJobGraph(phaseContext({ ...inputs, summary })).map((job) => job.plan));
  }
  if (options.resume === true) refuseChangedKernels(inputs.dir, options.dir, inputs.spec, inputs.start);
  const lock = claimRunDir(inputs.dir, inputs.identity, options.resume === true, options.dir);
  try {
    if (inputs.start.oracleText !== undefined) inputs.kernels[ORACLE_CELL_KERNEL] = writeOracleKernel(inputs.dir, inputs.start.oracleText);
    return await runPhases(inputs, scheduler);
  } catch (error) {
    // A full or failing disk: the run resumes where it stopped once space is back.
    throw error instanceof RlAdvantagesIoError ? withRemedy(error, RESUME_REMEDY) : error;
  } finally {
    lock.release();
  }
}

/**
 * Everything a run needs, checked before its folder is touched (the spec, its arms and kernels, the questions, the
 * run's identity).
 *
 * @throws {RlAdvantagesError} as {@link runStudy}.
 */
export async function studyInputs(options: StudyOptions): Promise<Omit<RunInputs, 'summary'>> {
  const seed = checkOptions(options);
  // Everything that can be refused is checked before the folder is touched.
  await loadSpecModules(options.specPath);
  const { specText, spec } = readSpec(options.specPath);
  const arms = studyArms(spec);
  refuseStudyKernelsOn(options.backend.name, spec.arms);
  const dataSeed = sharedArmSeed(spec);
  const data = loadStudyQuestions(options, spec);
  // Mutable: the oracle kernel joins once written into the folder, the tuned kernel once the tuning phase froze it.
  const kernels: Record<string, LoadedKernel> = { ...armKernels(spec, path.dirname(path.resolve(options.specPath))) };
  const start = startKernels(spec, path.dirname(path.resolve(options.specPath)), data.train);
  if (data.train.length < CALIBRATION_TASKS + 2) {
    throw usage(`the GSM8K train split has ${data.train.length} rows; the study needs more than ${CALIBRATION_TASKS + 2}`);
  }
  const dir = path.resolve(options.dir);
  const specPath = path.resolve(options.specPath);
  const tuning = runTuning(options, spec);
  // An lr_selection split that does not fit the data order's free range is refused here (exit 2).
  const split = runHeldOut(spec, data.train, studyOrder(options.backend.name, data.train.length, dataSeed), {
    backend: options.backend.name,
    ...(options.steps === undefined ? {} : { steps: options.steps }),
    tuningTasks: tuning?.tasks ?? null,
  });
  const identity: RunIdentity = {
    ...runIdentity(options, seed, specText, data, tuning),
    ...(start.identity === undefined ? {} : { kernels: start.identity }),
    ...lrGridIdentity(spec),
  };
  return { options, dir, specPath, spec, arms, dataSeed, data, identity, kernels, start, ...(split === null ? {} : { heldOut: split.rows }) };
}

/** The phases in order on a claimed folder, then the caller's `finish` (still under the folder's lock). */
async function runPhases(inputs: Omit<RunInputs, 'summary'>, scheduler: StudyScheduler): Promise<StudyOutcome> {
  const { options, dir, specPath, spec, data, identity } = inputs;
  const summaryFile = path.join(dir, 'summary.json');
  const summary = existsSync(summaryFile) ? readJson<StudySummary>(summaryFile) : initialSummary(options, spec, specPath, identity, data);
  const ctx = phaseContext({ ...inputs, summary }, scheduler.runner);
  if (options.resume === true && existsSync(summaryFile)) {
    // Nothing is kept unchecked: a torn artifact is rebuilt by redoing its phase and those after it.
    prepareResume(dir, summary, (line) => options.onPhase?.({ kind: 'note', line }), options.dir);
    const skipped = STUDY_PHASES.filter((name) => PHASE_STEPS[name].enabled?.(ctx) === false);
    options.onPhase?.({ kind: 'note', line: describeResumePoint(dir, summary, spec.arms, ctx.settings.stepsOf, skipped, replicateSeeds(spec)) });
  }
  ctx.save();
  let exitCode: 0 | 1 = 0;
  for (const name of STUDY_PHASES) {
    if (PHASE_STEPS[name].enabled?.(ctx) === false) continue;
    if (!(await runPhase(ctx, PHASE_STEPS[name]))) {
      exitCode = 1;
      break;
    }
  }
  // A run that stopped before the decision still says what its design could conclude, at an assumed discordance.
  if (summary.design_power === undefined) {
    const n = Math.min(data.test.length, options.evalLimit ?? Infinity);
    summary.design_power = studyDesignPower(spec.decisionRule, n, undefined);
  }
  summary.exit_code = exitCode;
  ctx.save();
  await options.finish?.(dir, summary);
  return { exitCode, summary };
}
