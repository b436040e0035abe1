// The report's sections (a chart, its caption and the table beside it), from plain data: shared by a study's
// report.html and the one-chart pages of calibrate, decide, plan and tune-kernel.
import { accuracyChartSpec, pairedTable, wilsonInterval, type ArmAccuracy } from './charts/accuracy.js';
import { beffChartSpec, type BeffRatioRow } from './charts/beff.js';
import { decisionChartSpec, type DecisionCriterionRow } from './charts/decision.js';
import { gateChartSpec, type GateCheckRow } from './charts/gate.js';
import { kernelChartSpec, type KernelFamilyRow } from './charts/kernel.js';
import { powerChartSpec, type PowerRow } from './charts/power.js';
import { renderChartSvg } from './charts/render.js';
import { rewardChartSpec, type ArmRewards } from './charts/reward.js';
import { escapeHtml, figureHtml, tableHtml, type HtmlSection } from './html.js';
import { formatFigure } from '../internal/figures.js';
import { methodLabel } from '../stats/method-names.js';


/** The preflight's checks as a table, its verdict in the heading (no chart: each check is pass or fail). */
export function preflightSection(preflight: { readonly passed: boolean; readonly checks: readonly { id: string; passed: boolean; detail: string }[] }): HtmlSection {
  const verdict = preflight.passed ? 'PASSED' : 'FAILED';
  const note = preflight.passed ? '' : '<p class="fail">The preflight FAILED: the run stopped before calibration.</p>';
  const rows = preflight.checks.map((c) => [c.id, { html: c.passed ? '<span class="pass">yes</span>' : '<span class="fail">NO</span>' }, c.detail]);
  return { id: 'preflight', heading: `Preflight: ${verdict}`, body: note + tableHtml(['check', 'passed', 'detail'], rows) };
}

/** Chart 1 with its caption. */
export async function rewardSection(arms: readonly ArmRewards[]): Promise<HtmlSection | null> {
  const figure = await rewardFigure(arms);
  return figure === null ? null : { id: 'rewards', heading: 'Reward per step', body: figure };
}

/** Chart 1 and its caption, or null when no arm logged a step. */
export async function rewardFigure(arms: readonly ArmRewards[]): Promise<string | null> {
  const logged = arms.filter((a) => a.rewardPerStep.length > 0);
  if (logged.length === 0) return null;
  const svg = await renderChartSvg(rewardChartSpec(logged), 'Mean reward per training step for each arm');
  return figureHtml(
      svg,
      'Each point is one step’s mean reward over its rollouts; the line is the running mean of steps 1..s. A rollout’s reward is ' +
        'correct + 0.1 × (format ok − 1): 1, 0.9, 0, or −0.1 for a wrong answer out of format (the format penalty), so a step ' +
        'whose rollouts are mostly wrong and badly formatted has a mean below 0 (the dotted line).',
  );
}

/** One scored estimator of a calibration, as summary.json and `calibrate --json` both hold it. */
export interface CalibrationEstimatorFigures {
  readonly mse_corrected: number;
  readonly ratio: number;
  readonly ratio_se: number;
  readonly ratio_ci95: readonly [number, number] | null;
}

/** What the B_eff section reads of a calibration (summary.json's `calibration`, or `calibrate --json`). */
export interface CalibrationFigures {
  readonly tasks: number;
  readonly rollouts: number;
  readonly mean_reward: number;
  readonly sigma_eps2: number | null;
  readonly batch_size: number;
  readonly batches: number;
  readonly reference: string;
  readonly interval_method?: string;
  readonly estimators: Readonly<Record<string, CalibrationEstimatorFigures>>;
}

/**
 * Chart 2 with the calibration's table.
 *
 * @param c - the calibration figures.
 * @param bar - the gate's bar, or null.
 * @param extra - further rows to plot (e.g. the fallback scored after a failed gate).
 */
export async function calibrationSection(c: CalibrationFigures, bar: number | null, extra: readonly BeffRatioRow[] = []): Promise<HtmlSection> {
  const figure = await calibrationFigure(c, bar, extra);
  const interval = c.interval_method ? `95% interval (${c.interval_method})` : '95% interval';
  const table = tableHtml(
    ['estimator', 'MSE corrected', 'B_eff ratio', 'MC s.e.', interval],
    Object.entries(c.estimators).map(([name, e]) => [
      name,
      formatFigure(e.mse_corrected),
      formatFigure(e.ratio),
      formatFigure(e.ratio_se),
      e.ratio_ci95 ? `[${formatFigure(e.ratio_ci95[0])}, ${formatFigure(e.ratio_ci95[1])}]` : 'n/a',
    ]),
    [1, 2, 3],
  );
  const text =
    `<p>${c.tasks} calibration tasks, ${c.rollouts} rollouts; mean reward ${formatFigure(c.mean_reward)}, ` +
    `sigma_eps^2 ${formatFigure(c.sigma_eps2)}; B = ${c.batch_size}, ${c.batches} batches (docs/method.md section 4).</p>`;
  return { id: 'calibration', heading: 'B_eff calibration', body: text + figure + table };
}

/** Chart 2 and its caption: every estimator's ratio (and `extra` rows, e.g. the fallback) against 1 and the bar. */
export async function calibrationFigure(c: CalibrationFigures, bar: number | null, extra: readonly BeffRatioRow[] = []): Promise<string> {
  const rows: BeffRatioRow[] = Object.entries(c.estimators).map(([estimator, e]) => ({ estimator, ratio: e.ratio, ci95: e.ratio_ci95 }));
  rows.push(...extra.filter((x) => !(x.estimator in c.estimators)));
  const spec = beffChartSpec(rows, { bar, reference: c.reference, ...(c.interval_method ? { intervalMethod: c.interval_method } : {}) });
  const svg = await renderChartSvg(spec, 'B_eff ratio of every estimator scored');
  const caption = `Ratio above 1: the estimator predicts per-task difficulty better than ${c.reference}.` + (bar === null ? '' : ' The gate needs the kernel at or above the dashed bar.');
  return figureHtml(svg, caption);
}

/** Chart 3 with the verdict. */
export async function gateSection(gate: { readonly passed: boolean; readonly checks: readonly GateCheckRow[] }): Promise<HtmlSection> {
  const verdict = gate.passed
    ? '<p class="pass">The gate PASSED: every check is within its bounds.</p>'
    : '<p class="fail">The gate FAILED: the run stopped before full training; the gate is never relaxed.</p>';
  return { id: 'gate', heading: 'Activation gate', body: verdict + (await gateFigure(gate.checks)) };
}

/** Chart 3 and its caption. */
export async function gateFigure(checks: readonly GateCheckRow[]): Promise<string> {
  const svg = await renderChartSvg(gateChartSpec(checks), 'The activation gate, one strip per check');
  return figureHtml(svg, 'Green band: the allowed range (bounds inclusive). Green dot: within it; red cross: outside; no mark: missing (fails).');
}

/** What the decision section reads (summary.json's `decision`, `decide --json`). */
export interface DecisionFigures {
  readonly method: string;
  readonly alpha: number;
  readonly n: number;
  readonly verdict: string;
  readonly criteria: readonly DecisionCriterionRow[];
}

/**
 * Chart 4 with a line naming the method and the arms.
 *
 * @param d - the decision.
 * @param comparison - which arm is the treatment and which the baseline, when known.
 */
export async function decisionSection(d: DecisionFigures, comparison?: { readonly treatment: string; readonly baseline: string }): Promise<HtmlSection> {
  const who = comparison ? `treatment ${comparison.treatment} vs baseline ${comparison.baseline}, ` : '';
  const table = tableHtml(
    ['criterion', 'estimate', 'interval', 'margin', 'verdict'],
    d.criteria.map((c) => [c.id, formatFigure(c.estimate), `[${formatFigure(c.lower)}, ${formatFigure(c.upper)}]`, String(c.margin), c.verdict]),
    [1, 3],
  );
  return {
    id: 'decision',
    heading: `Decision: ${d.verdict}`,
    body:
      `<p>${escapeHtml(`${methodLabel(d.method)}, ${who}n = ${d.n}, alpha = ${d.alpha} (docs/method.md section 5).`)}</p>` +
      (await decisionFigure(d)) +
      table,
  };
}

/** Chart 4 and its caption. */
export async function decisionFigure(d: DecisionFigures): Promise<string> {
  const svg = await renderChartSvg(decisionChartSpec(d.criteria, d.method), 'The paired decision: interval for the difference against the margin');
  return figureHtml(svg, 'Validated only if the whole interval lies right of the margin; failed only if it lies wholly left of it; otherwise inconclusive.');
}

/** Why the failed curves lie on the x axis, when they do: every P(failed) shown is below 0.01. */
function flatFailed(power: readonly PowerRow[], margin: number | null): string {
  const most = Math.max(...power.map((r) => r.p_failed));
  if (most >= 0.01) return '';
  return (
    ` The dashed "failed" curves lie on the x axis: P(failed) is below 0.01 at every difference shown (at most ${most.toFixed(4)}), ` +
    `since failing needs the whole interval below the margin${margin === null ? '' : ` (${margin})`}, which at this n needs a true difference well below it.`
  );
}

/**
 * Chart 5 with the words that say what the design can conclude.
 *
 * @param power - the power rows (`plan --json` `power`, summary.json `design_power.power`).
 * @param margin - the criterion's margin, or null.
 * @param note - a sentence on the design (n, D and its source, the spec's method), or none.
 */
export async function powerSection(power: readonly PowerRow[], margin: number | null, note?: string): Promise<HtmlSection | null> {
  if (power.length === 0) return null;
  return { id: 'power', heading: 'What this design can conclude', body: (note === undefined ? '' : `<p>${escapeHtml(note)}</p>`) + (await powerFigure(power, margin)) };
}

/** Chart 5 and its caption (with why the failed curves lie flat, when they do). */
export async function powerFigure(power: readonly PowerRow[], margin: number | null): Promise<string> {
  const svg = await renderChartSvg(powerChartSpec(power, margin), 'What this design can conclude');
  return figureHtml(svg, `Probability that the study validates (solid line, filled circles) or fails (dashed line, hollow triangles) at each true difference, for this n and alpha, exact over the paired counts (docs/method.md section 5.6).${flatFailed(power, margin)}`);
}

/**
 * Chart 6, the accuracy table and, when both arms' items are given, the paired 2x2 table.
 *
 * @param arms - each arm's correct count and items.
 * @param paired - the treatment's and the baseline's per-item correctness, with their names.
 */
export async function evalSection(
  arms: readonly ArmAccuracy[],
  paired?: { readonly treatment: string; readonly baseline: string; readonly t: ReadonlyMap<string, boolean>; readonly b: ReadonlyMap<string, boolean> },
): Promise<HtmlSection> {
  const rows = arms.map((x) => {
    const [lo, hi] = wilsonInterval(x.correct, x.n);
    return [x.arm, String(x.correct), String(x.n), formatFigure(x.correct / x.n), `[${formatFigure(lo)}, ${formatFigure(hi)}]`];
  });
  let body = await evalFigure(arms);
  body += tableHtml(['arm', 'correct', 'items', 'accuracy', '95% Wilson interval'], rows, [1, 2, 3]);
  if (paired) {
    const p = pairedTable(paired.t, paired.b);
    body +=
      '<p>Paired outcomes on the same items (the discordant cells drive the decision):</p>' +
      tableHtml(
        ['', `${paired.baseline} correct`, `${paired.baseline} wrong`],
        [
          [`${paired.treatment} correct`, String(p.bothCorrect), String(p.treatmentOnly)],
          [`${paired.treatment} wrong`, String(p.baselineOnly), String(p.bothWrong)],
        ],
        [1, 2],
      );
  }
  return { id: 'eval', heading: 'Eval', body };
}

/** Chart 6 and its caption. */
export async function evalFigure(arms: readonly ArmAccuracy[]): Promise<string> {
  const svg = await renderChartSvg(accuracyChartSpec(arms), 'Eval accuracy per arm');
  return figureHtml(svg, 'Greedy accuracy on the test items; bars are 95% Wilson intervals of each arm alone (docs/method.md section 10; the decision uses the paired interval).');
}

/** Chart 7. */
export async function kernelSection(rows: readonly KernelFamilyRow[], bar: number | null): Promise<HtmlSection | null> {
  if (rows.length === 0) return null;
  return { id: 'kernel', heading: 'Kernel tuning', body: await kernelFigure(rows, bar) };
}

/** Chart 7 and its caption. */
export async function kernelFigure(rows: readonly KernelFamilyRow[], bar: number | null): Promise<string> {
  const svg = await renderChartSvg(kernelChartSpec(rows, bar), 'Kernel tuning: tuning vs held-out ratio per family');
  return figureHtml(
      svg,
      'Hollow: the ratio on the tuning tasks that chose the kernel; filled: on held-out tasks (the honest figure), with its 95% ' +
        'interval, the jackknife on the log of the ratio (docs/method.md section 4.3), on a log axis. The gap is the selection bias.',
  );
}
