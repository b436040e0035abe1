// One-chart HTML pages for the commands that produce a chart's data: calibrate, decide, plan and tune-kernel.
import type { KernelFamilyRow } from './charts/kernel.js';
import type { PowerRow } from './charts/power.js';
import { renderHtmlPage, type HtmlSection } from './html.js';
import { methodLabel } from '../stats/method-names.js';
import { calibrationSection, decisionSection, evalSection, kernelSection, powerSection, type CalibrationFigures, type DecisionFigures } from './sections.js';

function page(title: string, subtitle: string, sections: readonly (HtmlSection | null)[]): string {
  return renderHtmlPage({ title, subtitle, sections: sections.filter((s): s is HtmlSection => s !== null) });
}

/**
 * The page of `rl-adv calibrate --html`: the B_eff chart and table.
 *
 * @param c - the calibration (`calibrate --json`'s shape).
 * @param bar - the gate's bar to draw (1.03 in the study), or null.
 */
export async function calibrationPage(c: CalibrationFigures, bar: number | null): Promise<string> {
  return page('B_eff calibration', `reference ${c.reference}; ${c.tasks} tasks, ${c.rollouts} rollouts`, [await calibrationSection(c, bar)]);
}

/**
 * The page of `rl-adv decide --html`: the decision chart and, when given, each arm's accuracy.
 *
 * @param d - the decision (`decide --json`'s shape).
 * @param accuracies - correct counts and items per arm (treatment first), or none.
 */
export async function decisionPage(d: DecisionFigures, accuracies: readonly { arm: string; correct: number; n: number }[] = []): Promise<string> {
  return page('Paired decision', `${methodLabel(d.method)}, n = ${d.n}, alpha = ${d.alpha}`, [
    await decisionSection(d),
    accuracies.length > 0 ? await evalSection(accuracies) : null,
  ]);
}

/**
 * The page of `rl-adv plan --html`: P(validated) and P(failed) against the true difference.
 *
 * @param power - the power table.
 * @param margin - the criterion's margin.
 * @param subtitle - what was planned (n, alpha, discordance).
 */
export async function powerPage(power: readonly PowerRow[], margin: number | null, subtitle: string): Promise<string> {
  return page('What this design can conclude', subtitle, [await powerSection(power, margin)]);
}

/**
 * The page of `rl-adv tune-kernel --html`: tuning vs held-out ratio per family.
 *
 * @param rows - one row per family.
 * @param subtitle - what was tuned (tasks, candidates, seed).
 */
export async function kernelPage(rows: readonly KernelFamilyRow[], subtitle: string): Promise<string> {
  return page('Kernel tuning', subtitle, [await kernelSection(rows, 1.03)]);
}
