// The protocol's phases by name; the runner takes them in the order of STUDY_PHASES. A new phase is one module
// here and its name in STUDY_PHASES (src/study/summary.ts), where its place in the order is set; the Record type
// makes the compiler ask for its entry below.
import type { StudyPhase } from '../summary.js';
import { armsPhase } from './arms.js';
import { calibrationPhase } from './calibration.js';
import type { StudyPhaseStep } from './context.js';
import { decisionPhase } from './decision.js';
import { evalPhase } from './eval.js';
import { gatePhase } from './gate.js';
import { kernelArmsPhase } from './kernel-arms.js';
import { pilotPhase } from './pilot.js';
import { preflightPhase } from './preflight.js';
import { tuningPhase } from './tuning.js';

/** Every phase's module, by name. */
export const PHASE_STEPS: Readonly<Record<StudyPhase, StudyPhaseStep>> = {
  preflight: preflightPhase,
  calibration: calibrationPhase,
  tuning: tuningPhase,
  kernel_arms: kernelArmsPhase,
  pilot: pilotPhase,
  gate: gatePhase,
  arms: armsPhase,
  eval: evalPhase,
  decision: decisionPhase,
};
