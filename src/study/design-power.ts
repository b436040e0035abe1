// "What this design can conclude" for a study run: the power of the spec's decision rule at the run's n and the
// discordance its eval observed, or an assumed one (docs/method.md section 5.6). Stored in summary.json so the
// report reads it and never computes it.
import { ASSUMED_CONTROL_ACCURACY, ASSUMED_DISCORDANCE, designPower, type DesignPowerJson } from '../stats/design-power.js';
import { seedDesignPower } from '../stats/seed-power.js';
import type { DecisionRule } from './spec.js';
import type { StudyDesignPower, StudySeedDesignPower } from './summary.js';

/** The run-to-run SD a replicated study's design power assumes (docs/study.md section 3.1 plans with 0.01 and 0.02). */
export const ASSUMED_RUN_TO_RUN_SD = 0.02;

/** The share of paired items two arms disagree on (0/1 correctness), or undefined when there is no pair. */
export function observedDiscordance(treatment: readonly { item_id: string; correct: boolean }[], baseline: readonly { item_id: string; correct: boolean }[]): number | undefined {
  const b = new Map(baseline.map((r) => [r.item_id, r.correct]));
  let pairs = 0;
  let discordant = 0;
  for (const t of treatment) {
    const other = b.get(t.item_id);
    if (other === undefined) continue;
    pairs++;
    if (other !== t.correct) discordant++;
  }
  return pairs === 0 ? undefined : discordant / pairs;
}

/** The mean correctness of two arms' paired items ((2 n11 + n10 + n01) / 2n), or undefined when there is no pair. */
export function meanPairedAccuracy(treatment: readonly { item_id: string; correct: boolean }[], baseline: readonly { item_id: string; correct: boolean }[]): number | undefined {
  const b = new Map(baseline.map((r) => [r.item_id, r.correct]));
  let pairs = 0;
  let correct = 0;
  for (const t of treatment) {
    const other = b.get(t.item_id);
    if (other === undefined) continue;
    pairs++;
    correct += (t.correct ? 1 : 0) + (other ? 1 : 0);
  }
  return pairs === 0 ? undefined : correct / (2 * pairs);
}

/**
 * The design's power for summary.json: every method at n paired items, with D observed when it is above 0, else the
 * assumed 0.2 (said so in `discordance.source`), and paired_newcombe's control accuracy the arms' mean accuracy
 * when D is observed, else 0.5. Null when no criterion compares 0/1 outcomes.
 */
export function studyDesignPower(rule: DecisionRule, n: number, observed: number | undefined, meanAccuracy?: number): StudyDesignPower | null {
  const discordance: DesignPowerJson['discordance'] =
    observed !== undefined && observed > 0 ? { value: observed, source: 'observed' } : { value: ASSUMED_DISCORDANCE, source: 'assumed' };
  // paired_newcombe's control accuracy: the arms' mean accuracy when D is observed (a 2x2 table always has it at a
  // true difference of 0), else the assumed 0.5.
  const controlAccuracy: DesignPowerJson['control_accuracy'] =
    discordance.source === 'observed' && meanAccuracy !== undefined ? { value: meanAccuracy, source: 'observed' } : { value: ASSUMED_CONTROL_ACCURACY, source: 'assumed' };
  const power = designPower({ rule, n, discordance, controlAccuracy });
  return power === null ? null : { spec_method: rule.method, ...power };
}

/**
 * The power of the design a replicated study ran (docs/method.md section 5.9): the seed-level method at its S seeds
 * and n items, at a true difference of 0, an assumed run-to-run SD of 0.02 and item SD 0, and the discordance its
 * eval observed over every seed (else the assumed 0.2). Null when no criterion compares 0/1 outcomes; `error` when
 * the assumptions leave no run-by-item noise (D <= 0.02^2).
 */
export function studySeedDesignPower(rule: DecisionRule, seeds: number, n: number, observed: number | undefined): StudySeedDesignPower | null {
  const discordance: DesignPowerJson['discordance'] =
    observed !== undefined && observed > 0 ? { value: observed, source: 'observed' } : { value: ASSUMED_DISCORDANCE, source: 'assumed' };
  const assumptions = `true difference 0, run-to-run SD ${ASSUMED_RUN_TO_RUN_SD} (assumed), item SD 0 (assumed), discordance ${discordance.value} (${discordance.source})`;
  try {
    const p = seedDesignPower({ rule, seeds, n: Math.max(2, n), effect: 0, seedSd: ASSUMED_RUN_TO_RUN_SD, itemSd: 0, discordance });
    return p === null ? null : { ...p, assumptions };
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error), assumptions };
  }
}
