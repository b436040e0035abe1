// The report's sections of a replicated study: the decision across seeds (each seed's exact paired decision beside
// the seed-level interval) and the learning curves with each arm's change from the starting policy.
import { formatFigure } from '../internal/figures.js';
import type { SeedDecisionJson } from '../stats/seeds.js';
import type { Block, ReportSection } from './blocks.js';
import { curvesChartSpec, type ArmCurve } from './charts/curves.js';
import { renderChartSvg } from './charts/render.js';
import { seedsChartSpec, type SeedIntervalRow } from './charts/seeds.js';
import { figureHtml } from './html.js';
import { collapseWords } from '../stats/seed-collapse.js';

const num = formatFigure;
const interval = (x: readonly [number, number]): string => `[${num(x[0])}, ${num(x[1])}]`;

/** The interval's level, 1 - alpha/k, in percent (e.g. "95%", "97.5%"). */
export function levelLabel(d: { alpha: number; level?: number; criteria: readonly unknown[] }): string {
  const level = d.level ?? 1 - d.alpha / Math.max(1, d.criteria.length);
  return `${Number((level * 100).toPrecision(6))}%`;
}

/** The two SDs, named apart; a summary.json written before they were (between_seed_sd) still reads. */
function sdWords(d: SeedDecisionJson): string {
  const old = d as unknown as { between_seed_sd?: number; seed_component_sd?: number };
  const perSeed = d.per_seed_difference_sd ?? old.between_seed_sd;
  const runToRun = d.run_to_run_sd ?? old.seed_component_sd;
  return (
    (perSeed === undefined ? '' : `SD of the per-seed differences ${num(perSeed)} (what the data show)`) +
    (runToRun === undefined ? '' : `; run-to-run SD ${num(runToRun)} (item noise taken out: what \`rl-adv plan --between-seed-sd\` takes)`)
  );
}

/** The forest rows: each seed's exact paired interval (first criterion), then the across-seeds interval. */
export function seedIntervalRows(d: SeedDecisionJson): SeedIntervalRow[] {
  const rows: SeedIntervalRow[] = d.per_seed.map((p) => {
    const c = p.decision.criteria[0];
    return { label: `seed ${p.seed}`, estimate: p.estimate, lower: c?.lower ?? p.estimate, upper: c?.upper ?? p.estimate, verdict: p.decision.verdict, pooled: false };
  });
  rows.push({ label: `across ${d.seeds} seeds`, estimate: d.estimate, lower: d.interval[0], upper: d.interval[1], verdict: d.verdict, pooled: true });
  return rows;
}

/** The fallback and the outlying seeds in words (absent from a summary.json written before they were). */
export function seedWarnings(d: SeedDecisionJson): string[] {
  const out: string[] = [];
  const fallback = (d as { fallback?: SeedDecisionJson['fallback'] }).fallback ?? null;
  if (fallback !== null) {
    out.push(fallback.rule === 'whole_range' ? `**No interval: ${fallback.text}.** The verdict cannot rest on these seeds.` : `Variance floor: ${fallback.text}.`);
  }
  for (const o of (d as { outliers?: SeedDecisionJson['outliers'] }).outliers ?? []) {
    out.push(
      `**Warning: seed ${o.seed} is an outlier** (difference ${num(o.estimate)}, score ${num(o.score, 3)} against the others, cutoff ${num(o.cutoff, 3)}; ` +
        'check that run). The t interval assumes normal run effects; docs/method.md section 5.8 gives its coverage when runs collapse. ' +
        'The flag sees gross outliers only: its absence is no sign that no run collapsed.',
    );
  }
  return out;
}

/**
 * The decision across seeds: the seed-level interval and verdict, then a table with each seed's arms, difference and
 * exact paired decision (about that pair of checkpoints only), and the forest chart (report.html).
 *
 * @param d - summary.json's `decision` when the run has several seeds.
 * @param names - the compared arms (summary.json `comparison`).
 * @param charts - draw the chart (report.html) or not (report.md).
 */
export function seedDecisionSection(d: SeedDecisionJson, names: { treatment: string; baseline: string }, charts: boolean): ReportSection {
  const rows = d.per_seed.map((p) => {
    const c = p.decision.criteria[0];
    return [String(p.seed), num(p.treatment_accuracy), num(p.baseline_accuracy), num(p.estimate), c ? interval([c.lower, c.upper]) : 'n/a', p.decision.verdict];
  });
  const blocks: Block[] = [
    {
      kind: 'text',
      text:
        `**${d.verdict}** across ${d.seeds} training seeds x ${d.n} paired items: ${names.treatment} − ${names.baseline} = ${num(d.estimate)}, ` +
        `${levelLabel(d)} interval ${interval(d.interval)} (\`${d.method}\`, ${num(d.df, 3)} df), margin ${d.margin}; ` +
        sdWords(d) +
        ' (docs/method.md section 5.8).',
    },
  ];
  // A summary.json written before the field has no collapse rate; the seeds and alpha give it.
  blocks.push({ kind: 'text', text: `Collapse: ${collapseWords(d.seeds, d.alpha)}.` });
  for (const w of seedWarnings(d)) blocks.push({ kind: 'text', text: w });
  if (charts) {
    blocks.push({
      kind: 'chart',
      render: async () =>
        figureHtml(
          await renderChartSvg(seedsChartSpec(seedIntervalRows(d), d.margin, d.method), 'Treatment minus baseline per seed and across seeds'),
          `Each seed's interval is the rule's exact paired method (${d.paired_method}) on that seed's two checkpoints; the thick row is the ` +
            'interval for the expected difference over training runs and items, the one the verdict rests on.',
        ),
    });
  }
  blocks.push({
    kind: 'table',
    header: ['seed', names.treatment, names.baseline, 'difference', `paired ${levelLabel(d)} interval (${d.paired_method})`, 'that seed alone'],
    rows,
    align: ['r', 'r', 'r', 'r', 'l', 'l'],
  });
  return { id: 'seeds', heading: `Decision across seeds: ${d.verdict}`, blocks };
}

/** The learning section's inputs: every arm x seed's curves, and each arm's change from the starting policy. */
export interface LearningInputs {
  readonly curves: readonly ArmCurve[];
  /** Items of the curve slice (null: not known). */
  readonly sliceItems: number | null;
  /** How the curve's answers were decoded: greedy (sim, TRL) or sampled (Tinker: the recipe's evaluator). */
  readonly curveDecoding?: 'greedy' | 'sampled';
  /** The starting policy's accuracy on the test items. */
  readonly startAccuracy: number | null;
  /** Per arm: its change from the start, with its interval and whether it improved (lower bound above 0). */
  readonly changes: readonly { arm: string; estimate: number; interval: readonly [number, number]; improved: boolean; method: string }[];
  /** True when a verdict was reached while no arm improved on the start. */
  readonly noArmImproved: boolean;
  readonly verdict: string | null;
}

/**
 * Learning: each arm's change from the starting policy with its interval, the flag when the verdict rests on arms
 * of which none improved, and the learning curves (report.html).
 */
export function learningSection(l: LearningInputs, charts: boolean): ReportSection {
  const blocks: Block[] = [];
  if (l.noArmImproved) {
    blocks.push({
      kind: 'text',
      text:
        `**No arm improved on the starting policy** (no change interval lies above 0)${l.verdict === null ? '' : `: the verdict (${l.verdict}) stands, but it compares arms that did not learn measurably`}.`,
    });
  }
  blocks.push({
    kind: 'table',
    header: ['arm', 'change from the start', 'interval', 'method', 'improved'],
    rows: l.changes.map((c) => [c.arm, num(c.estimate), interval(c.interval), c.method, c.improved ? 'yes' : 'no']),
    align: ['l', 'r', 'l', 'l', 'l'],
  });
  if (l.startAccuracy !== null) blocks.push({ kind: 'text', text: `Starting policy: accuracy ${num(l.startAccuracy)} on the test items.` });
  // A single run without a learning curve has only its reward per step, which the arms section draws already.
  const drawn = l.curves.some((c) => c.curve.length > 0) || new Set(l.curves.map((c) => c.seed)).size > 1;
  if (charts && drawn) {
    blocks.push({
      kind: 'chart',
      render: async () =>
        figureHtml(
          await renderChartSvg(curvesChartSpec(l.curves, l.sliceItems, l.curveDecoding), 'Learning curves per arm and seed'),
          `Top: ${l.curveDecoding === 'sampled' ? "sampled (the Tinker recipe's evaluator, temperature 1)" : 'greedy'} accuracy on a fixed slice` +
            ' of test items at step 0 (the starting policy) and every few steps. Bottom: the ' +
            'running mean of the training reward per step (32 rollouts a step). Thin lines are seeds, thick lines their mean.',
        ),
    });
  }
  const rows = l.curves.map((c) => [c.arm, String(c.seed), c.curve.map((p) => `${p.step}: ${num(p.accuracy, 3)}`).join(', ')]);
  if (rows.length > 0) blocks.push({ kind: 'table', header: ['arm', 'seed', 'curve accuracy (step: accuracy)'], rows, align: ['l', 'r', 'l'] });
  return { id: 'learning', heading: l.noArmImproved ? 'Learning: NO ARM IMPROVED' : 'Learning', blocks };
}
