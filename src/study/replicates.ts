// Seeds as a design dimension (docs/study.md, "Seeds"): a spec whose decision_rule names two or more seeds is
// replicated. The starting policy, preflight, calibration, pilot and gate are about the starting policy and run once;
// each seed s trains both arms with RL seed s on the data order of seed s (the calibration tasks left out, so no
// seed trains on the gate's set), in RUN/seeds/<s>/. One seed (or none named) keeps the single-run layout.
import type { Gsm8kItem } from '../data/gsm8k.js';
import type { StudyBackend, StudyContext } from './backends/types.js';
import type { StudySpec } from './spec.js';
import { studyOrder, tuningTaskRows } from './task-sets.js';
import { specTuning } from './kernel-arm-spec.js';
import { CALIBRATION_TASKS } from './summary.js';
import { pathUnder } from '../internal/path-parts.js';

/**
 * The replicated seeds of a spec (decision_rule.seeds with two or more), else null (a single run).
 *
 * @example
 * ```ts
 * replicateSeeds(loadStudySpec(readFileSync('specs/arith-gs1-vs-grpo.json', 'utf8'))); // [0, 1, 2, 3, 4]
 * ```
 */
export function replicateSeeds(spec: StudySpec): readonly number[] | null {
  const seeds = spec.decisionRule.seeds;
  return seeds !== undefined && seeds.length >= 2 ? seeds : null;
}

/** Where a seed's arms and evals go: RUN/seeds/<seed> (a replicated run), else RUN itself. */
export function seedRoot(dir: string, seed: number | null): string {
  return seed === null ? dir : pathUnder(dir, 'seeds', String(seed));
}

/**
 * The data order of seed `seed`: the backend's shuffle of the train tasks with that seed, without the study's
 * calibration set (the last CALIBRATION_TASKS of the study's own order), so no seed's arms train on the gate's tasks,
 * and, when the spec fixes a tuning phase (its `tuning` section), without the tuning tasks either, so no seed's arms
 * train on the tasks whose rewards the tuned kernel saw.
 * It is also without the `lr_selection` split when the spec has one (`ctx.heldOut`).
 *
 * @example
 * ```ts
 * seedOrder(ctx, 'trl', 3).length; // ctx.train.length - 64
 * ```
 */
export function seedOrder(ctx: StudyContext, backend: StudyBackend['name'], seed: number): Int32Array {
  const excluded = new Set(ctx.order.slice(-CALIBRATION_TASKS));
  const tuning = specTuning(ctx.spec.raw);
  if (tuning !== undefined) for (const q of tuningTaskRows(ctx.spec, ctx.train, ctx.order, tuning.tasks).rows) excluded.add(q);
  // A spec with lr_selection: its held-out split is no seed's training task either (lr-split.ts).
  for (const q of ctx.heldOut ?? []) excluded.add(q);
  return Int32Array.from(Array.from(studyOrder(backend, ctx.train.length, seed)).filter((q) => !excluded.has(q)));
}

/**
 * The learning curve of the spec's `eval` section: the first `curve_items` test items, every `curve_every` steps;
 * null when the spec asks for none.
 *
 * @example
 * ```ts
 * curveSettings(spec, test)?.every; // 20 for specs/arith-gs1-vs-grpo.json
 * ```
 */
export function curveSettings(spec: StudySpec, test: readonly Gsm8kItem[]): { items: readonly Gsm8kItem[]; every: number } | null {
  const e = spec.raw.eval as { curve_items?: number; curve_every?: number } | null | undefined;
  if (e?.curve_items === undefined || e.curve_every === undefined) return null;
  return { items: test.slice(0, e.curve_items), every: e.curve_every };
}
