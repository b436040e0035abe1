// The report's section on a study's kernel arms (docs/report.md, "Kernel arms"): each kernel arm's B_eff ratio
// against the batch mean, measured on the calibration set before training, beside its gain in accuracy over the
// batch-mean arm (the comparison of the two: estimate, interval at its level, each seed), as a table and a chart.
import { formatFigure } from '../internal/figures.js';
import type { KernelArmsSummary } from '../study/summary.js';
import type { Block, ReportSection } from './blocks.js';
import { kernelArmsChartSpec, type KernelArmPoint } from './charts/kernel-arms.js';
import { renderChartSvg } from './charts/render.js';
import { figureHtml } from './html.js';

const num = formatFigure;
const pair = (x: readonly [number, number] | null): string => (x === null ? 'n/a' : `[${num(x[0])}, ${num(x[1])}]`);

function points(k: KernelArmsSummary): KernelArmPoint[] {
  return k.arms.flatMap((a) =>
    a.gain === null || !Number.isFinite(a.beff_ratio)
      ? []
      : [
          {
            arm: a.arm,
            ratio: a.beff_ratio,
            ratioLower: a.beff_ratio_ci95?.[0] ?? null,
            ratioUpper: a.beff_ratio_ci95?.[1] ?? null,
            gain: a.gain.estimate,
            gainLower: a.gain.interval[0],
            gainUpper: a.gain.interval[1],
            level: a.gain.level,
            seeds: a.gain.per_seed,
          },
        ],
  );
}

/**
 * The kernel arms: a table of each arm's B_eff ratio (95% interval) and gain over the batch-mean arm (interval at
 * its comparison's level, verdict, each seed), and in report.html the chart of one against the other; null when the
 * run has no `kernel_arms`.
 *
 * @example
 * ```ts
 * kernelArmsSection(summary.kernel_arms, true)?.heading; // "Kernel arms: B_eff ratio beside the gain over the batch mean"
 * ```
 */
export function kernelArmsSection(k: KernelArmsSummary | undefined, charts: boolean): ReportSection | null {
  if (k === undefined) return null;
  const ref = k.reference_arm ?? '(no batch-mean arm)';
  const blocks: Block[] = [
    {
      kind: 'text',
      text:
        `Each kernel arm's B_eff ratio against \`${k.reference}\` on the calibration set (${k.batches} batches of B = ${k.batch_size}, ${k.interval_method} 95% interval; ` +
        `\`${k.file}\`), measured before any training, beside its gain in accuracy over the batch-mean arm \`${ref}\` ` +
        '(its comparison with that arm: the estimate across seeds, the interval at the level the verdict was decided at, and each seed). ' +
        'Does a kernel that predicts difficulty better train better?',
    },
    {
      kind: 'table',
      header: ['arm', 'advantage', 'B_eff ratio', '95% interval', `gain over ${ref}`, 'interval (level)', 'verdict', 'each seed'],
      rows: k.arms.map((a) => [
        a.arm,
        a.advantage,
        num(a.beff_ratio),
        pair(a.beff_ratio_ci95),
        a.gain === null ? 'n/a' : num(a.gain.estimate),
        a.gain === null ? 'n/a' : `${pair(a.gain.interval)} (${num(a.gain.level * 100, 1)}%)`,
        a.gain?.verdict ?? 'n/a',
        a.gain === null ? 'n/a' : a.gain.per_seed.map((p) => num(p.gain)).join(' / '),
      ]),
      align: ['l', 'l', 'r', 'l', 'r', 'l', 'l', 'l'],
    },
  ];
  const shown = points(k);
  if (charts && shown.length > 0) {
    blocks.push({
      kind: 'chart',
      render: async () =>
        figureHtml(
          await renderChartSvg(kernelArmsChartSpec(shown), 'B_eff ratio against the gain over the batch-mean arm, per kernel arm'),
          "Per kernel arm: the filled point is its B_eff ratio against the batch mean (x, horizontal bar: its 95% interval) and its mean gain in accuracy over the batch-mean arm (y, vertical bar: the comparison's interval at its level); hollow points: each seed's gain. A better predictor that trains better would put the points on a rising line.",
        ),
    });
  }
  return { id: 'kernel-arms', heading: 'Kernel arms: B_eff ratio beside the gain over the batch mean', blocks };
}
