// The report's "Learning rates" section for a spec with lr_grid arms (docs/study.md, "Learning-rate grids"): per
// grid arm, which learning rate the held-out rule picked and why, every learning rate's held-out score per seed, and
// every learning rate's learning curves (one line per seed), where a divergence or a collapse at the higher learning
// rate shows.
import { formatFigure } from '../internal/figures.js';
import type { StudySummary } from '../study/summary.js';
import type { Block, ReportSection } from './blocks.js';
import { curvesChartSpec, type ArmCurve } from './charts/curves.js';
import { figureHtml } from './html.js';
import { renderChartSvg } from './charts/render.js';

const num = formatFigure;

/** `grpo_g8 @ lr 0.00015`: the label of one learning rate of one arm in the curves chart and tables. */
export function lrLabel(arm: string, lr: number): string {
  return `${arm} @ lr ${String(lr)}`;
}

/** Every learning rate's curves of every grid arm, as the curves chart takes them (one "arm" per arm x learning rate). */
export function lrCurves(s: StudySummary): ArmCurve[] {
  const arms = s.lr_selection?.arms ?? {};
  return Object.entries(arms).flatMap(([arm, a]) =>
    a.lrs.flatMap((l) =>
      l.seeds.map((x) => ({ arm: lrLabel(arm, l.lr), seed: x.seed, rewardPerStep: [...x.reward_per_step], curve: (x.curve ?? []).map((p) => ({ step: p.step, accuracy: p.accuracy })) })),
    ),
  );
}

/**
 * The section, or null when the run has no learning-rate selection (yet).
 *
 * @example
 * ```ts
 * lrSection(summary, false)?.heading; // "Learning rates: picked on held-out train"
 * ```
 */
export function lrSection(s: StudySummary, charts: boolean): ReportSection | null {
  const sel = s.lr_selection;
  if (sel === undefined) return null;
  const blocks: Block[] = [
    {
      kind: 'text',
      text:
        `Each grid arm trained at every learning rate of its grid on every seed; each run was decoded greedily on ${sel.split.items} held-out train tasks ` +
        `(the end of the data order's free range; shared tasks with the training tasks, the calibration set, the tuning tasks and test: ` +
        `${sel.split.overlap.training}, ${sel.split.overlap.calibration}, ${sel.split.overlap.tuning}, ${sel.split.overlap.test}; ` +
        `questions whose text also occurs in test: ${sel.split.same_text.test}). Rule \`${sel.rule}\`, ties \`${sel.ties}\`. ` +
        'Only the picked learning rate of each arm was evaluated on test and entered the decision.',
    },
    { kind: 'list', items: Object.entries(sel.arms).map(([arm, a]) => `${arm}: **lr ${String(a.picked_lr)}** picked: ${a.reason}`) },
  ];
  const rows = Object.entries(sel.arms).flatMap(([arm, a]) =>
    a.lrs.flatMap((l, i) =>
      l.seeds.map((x) => [
        arm,
        String(l.lr) + (i === a.picked_index ? ' (picked)' : ''),
        String(x.seed),
        `${x.correct}/${x.n} = ${num(x.accuracy, 3)}`,
        (x.curve ?? []).map((p) => `${p.step}: ${num(p.accuracy, 3)}`).join(', '),
        x.reward_per_step.length === 0 ? '' : num(x.reward_per_step.slice(-10).reduce((t, r) => t + r, 0) / Math.min(10, x.reward_per_step.length), 3),
      ]),
    ),
  );
  if (charts) {
    const curves = lrCurves(s);
    blocks.push({
      kind: 'chart',
      render: async () =>
        figureHtml(
          await renderChartSvg(curvesChartSpec(curves, s.curve?.items ?? null, s.curve?.decoding ?? 'greedy'), 'Learning curves per arm and learning rate'),
          'Every learning rate of every grid arm. Top: greedy accuracy on the curve slice of test items at step 0 and every few steps ' +
            '(a divergence or a collapse at a learning rate shows as a falling line). Bottom: the running mean of the training reward per step. ' +
            'Thin lines are seeds, thick lines their mean.',
        ),
    });
  }
  blocks.push({
    kind: 'table',
    header: ['arm', 'lr', 'seed', 'held-out accuracy', 'curve accuracy (step: accuracy)', 'reward, last 10 steps'],
    rows,
    align: ['l', 'l', 'r', 'r', 'l', 'r'],
  });
  return { id: 'learning-rates', heading: 'Learning rates: picked on held-out train', blocks };
}
