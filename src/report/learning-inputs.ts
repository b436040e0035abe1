// The learning section's inputs from summary.json: every arm x seed's reward and curve, and each arm's change.
import type { StudySummary } from '../study/summary.js';
import type { LearningInputs } from './seed-sections.js';

/** The learning section's inputs, or null when the run has no replicates (it stopped before the arms). */
export function learningInputs(s: StudySummary): LearningInputs | null {
  const reps = s.replicates;
  if (reps === undefined || reps.length === 0) return null;
  const curves = reps.flatMap((r) =>
    Object.entries(r.arms).map(([arm, a]) => ({ arm, seed: r.seed, rewardPerStep: a.reward_per_step, curve: (a.curve ?? []).map((p) => ({ step: p.step, accuracy: p.accuracy })) })),
  );
  const l = s.learning;
  return {
    curves,
    sliceItems: s.curve?.items ?? null,
    curveDecoding: s.curve?.decoding ?? 'greedy',
    startAccuracy: s.start?.accuracy ?? null,
    changes: l ? Object.entries(l.arms).map(([arm, c]) => ({ arm, estimate: c.estimate, interval: c.interval, improved: c.improved, method: l.method })) : [],
    noArmImproved: l?.no_arm_improved ?? false,
    verdict: s.decision?.verdict ?? null,
  };
}
