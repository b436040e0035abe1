// Progress events of a study run: which phase runs, what it is doing now (its label), how far it is.
import type { PhaseEvent } from './options.js';

/** Emits {@link PhaseEvent}s, remembering the current phase and label for progress events. */
export interface PhaseEvents {
  /** A phase starts (its label is its name). */
  start(phase: string): void;
  /** The current phase moves to a new step, shown as `text`. */
  label(text: string): void;
  /** The current step has done `done` of `total`. */
  progress(done: number, total: number): void;
  /** A phase ends with its result line. */
  end(phase: string, line: string, seconds: number): void;
}

/** The events of one run, sent to `onPhase` (none when it is absent). */
export function phaseEvents(onPhase: ((event: PhaseEvent) => void) | undefined): PhaseEvents {
  let currentPhase = '';
  let currentLabel = '';
  return {
    start(phase) {
      currentPhase = phase;
      currentLabel = phase;
      onPhase?.({ kind: 'start', phase, label: phase });
    },
    label(text) {
      currentLabel = text;
      onPhase?.({ kind: 'start', phase: currentPhase, label: text });
    },
    progress(done, total) {
      onPhase?.({ kind: 'progress', phase: currentPhase, label: currentLabel, done, total });
    },
    end(phase, line, seconds) {
      onPhase?.({ kind: 'end', phase, line, seconds });
    },
  };
}
