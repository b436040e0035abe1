// "What this design can conclude" for a study run: the power of the spec's decision rule at the run's n and the
// discordance its eval observed, or an assumed one (docs/method.md section 5.6). Stored in summary.json so the
// report reads it and never computes it.
import { ASSUMED_DISCORDANCE, designPower, type DesignPowerJson } from '../stats/design-power.js';
import type { DecisionRule } from './spec.js';
import type { StudyDesignPower } from './summary.js';

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

/**
 * The design's power for summary.json: every method at n paired items, with D observed when it is above 0, else the
 * assumed 0.2 (said so in `discordance.source`). Null when no criterion compares 0/1 outcomes.
 */
export function studyDesignPower(rule: DecisionRule, n: number, observed: number | undefined): StudyDesignPower | null {
  const discordance: DesignPowerJson['discordance'] =
    observed !== undefined && observed > 0 ? { value: observed, source: 'observed' } : { value: ASSUMED_DISCORDANCE, source: 'assumed' };
  const power = designPower({ rule, n, discordance });
  return power === null ? null : { spec_method: rule.method, ...power };
}
