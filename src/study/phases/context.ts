// What every phase of a study run shares: the run's inputs, the backend and the context it is handed, the summary
// being built (and how to save it), the progress events, and what one phase leaves in memory for a later one.
import type { BeffCalibration, CalibrationRow } from '../../calibration/beff.js';
import type { Gsm8kItem } from '../../data/gsm8k.js';
import type { StudyBackend, StudyContext } from '../backends/types.js';
import type { PhaseEvents } from '../events.js';
import type { StudyOptions } from '../options.js';
import type { StudyArm, StudySpec } from '../spec.js';
import type { PhaseRecord, StudyPhase, StudySummary } from '../summary.js';

/** Settings fixed for the whole run, derived once from the spec and the options. */
export interface StudySettings {
  /** The calibration set: the last CALIBRATION_TASKS train items of the data order. */
  readonly calibrationTasks: readonly Gsm8kItem[];
  /** B_eff calibration batches, and `bootstrap` (run.json's calibration_bootstrap): 0 no interval, else the jackknife. */
  readonly batches: number;
  readonly bootstrap: number;
  /** B of the calibration: the treatment arm's group_size x groups_per_batch. */
  readonly batchSize: number;
  readonly calibrationSeed: string;
  /** An arm's steps: --steps, else the arm's, else the spec's, else 60. */
  readonly stepsOf: (arm: StudyArm) => number;
}

/**
 * What a phase computed that a later phase uses, kept in memory within one process. On a resume a skipped phase's
 * `restore` (or the later phase itself) reads it back from the artifacts.
 */
export interface PhaseState {
  calibration?: BeffCalibration;
  calibrationRows?: CalibrationRow[];
  /** The arms' final checkpoints, by arm name. */
  readonly checkpoints: Record<string, string>;
}

/** The context every phase receives. */
export interface PhaseContext {
  /** The run folder (absolute). */
  readonly dir: string;
  readonly spec: StudySpec;
  readonly treatment: StudyArm;
  readonly baseline: StudyArm;
  readonly options: StudyOptions;
  readonly backend: StudyBackend;
  /** What the backend is handed. */
  readonly study: StudyContext;
  readonly settings: StudySettings;
  /** summary.json as it is built; {@link PhaseContext.save} writes it and report.md. */
  readonly summary: StudySummary;
  readonly save: () => void;
  readonly events: PhaseEvents;
  readonly state: PhaseState;
}

/** What a phase reports: its result line for summary.json and the terminal, and its status (default `done`). */
export interface PhaseResult {
  readonly line: string;
  readonly status?: PhaseRecord['status'];
}

/**
 * One phase of the protocol. The runner skips a phase recorded `done` (calling `restore` to reload what later phases
 * need), and stops the run with exit code 1 after a phase that ends with any other status.
 */
export interface StudyPhaseStep {
  readonly name: StudyPhase;
  run(ctx: PhaseContext): Promise<PhaseResult>;
  restore?(ctx: PhaseContext): void;
  /** An optional phase: runs only when this says so (absent: always). */
  enabled?(ctx: PhaseContext): boolean;
}
