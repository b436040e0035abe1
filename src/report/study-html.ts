// report.html of a study run: the charts a researcher would draw, built from the run's artifacts alone.
import type { StudySummary } from '../study/summary.js';
import { accuracyChartSpec, pairedTable, wilsonInterval } from './charts/accuracy.js';
import { beffChartSpec } from './charts/beff.js';
import { decisionChartSpec } from './charts/decision.js';
import { formatNumber, gateChartSpec } from './charts/gate.js';
import { kernelChartSpec, type KernelFamilyRow } from './charts/kernel.js';
import { powerChartSpec, type PowerRow } from './charts/power.js';
import { renderChartSvg } from './charts/render.js';
import { rewardChartSpec, type ArmRewards } from './charts/reward.js';
import { escapeHtml, figureHtml, renderHtmlPage, tableHtml, type HtmlSection } from './html.js';

/** What report.html is built from: summary.json and the files it names, as read from the run folder. */
export interface StudyArtifacts {
  readonly summary: StudySummary;
  /** Per-item correctness of each evaluated arm (eval/<arm>.jsonl), keyed by arm name. */
  readonly evalItems: ReadonlyMap<string, ReadonlyMap<string, boolean>>;
  /** The power table of the design (`plan` power rows), if the run recorded one. */
  readonly power?: readonly PowerRow[];
  /** Per-family tuning results of a tuned kernel, if the run tuned one. */
  readonly kernelFamilies?: readonly KernelFamilyRow[];
  /** The run-relative paths of every file read, listed in the page's footer. */
  readonly files: readonly string[];
}

const SIM_BANNER =
  'SIMULATION: these figures come from the simulated backend (a success model, not a language model); they ' +
  'exercise the protocol and say nothing about any real model. See docs/sim.md.';

const f4 = (x: number | null | undefined): string => (typeof x === 'number' && Number.isFinite(x) ? formatNumber(x) : 'n/a');

async function rewardSection(s: StudySummary): Promise<HtmlSection | null> {
  const arms: ArmRewards[] = [
    ...Object.entries(s.pilot?.arms ?? {}).map(([arm, a]) => ({ arm, phase: 'pilot' as const, rewardPerStep: a.reward_per_step })),
    ...Object.entries(s.arms ?? {}).map(([arm, a]) => ({ arm, phase: 'full' as const, rewardPerStep: a.reward_per_step })),
  ].filter((a) => a.rewardPerStep.length > 0);
  if (arms.length === 0) return null;
  const svg = await renderChartSvg(rewardChartSpec(arms), 'Mean reward per training step for each arm');
  return {
    id: 'rewards',
    heading: 'Reward per step',
    body: figureHtml(svg, 'Each point is one step’s mean reward over its rollouts; the line is the running mean of steps 1..s.'),
  };
}

async function calibrationSection(s: StudySummary, bar: number | null): Promise<HtmlSection | null> {
  const c = s.calibration;
  if (!c) return null;
  const rows = Object.entries(c.estimators).map(([estimator, e]) => ({ estimator, ratio: e.ratio, ci95: e.ratio_ci95 }));
  if (s.fallback && !(s.fallback.estimator in c.estimators)) {
    rows.push({ estimator: `${s.fallback.estimator} (fallback)`, ratio: s.fallback.ratio, ci95: s.fallback.ratio_ci95 });
  }
  const svg = await renderChartSvg(beffChartSpec(rows, { bar, reference: c.reference }), 'B_eff ratio of every estimator scored');
  const table = tableHtml(
    ['estimator', 'MSE corrected', 'B_eff ratio', 'MC s.e.', '95% interval'],
    Object.entries(c.estimators).map(([name, e]) => [
      name,
      f4(e.mse_corrected),
      f4(e.ratio),
      f4(e.ratio_se),
      e.ratio_ci95 ? `[${f4(e.ratio_ci95[0])}, ${f4(e.ratio_ci95[1])}]` : 'n/a',
    ]),
    [1, 2, 3],
  );
  const text =
    `<p>${c.tasks} calibration tasks, ${c.rollouts} rollouts of the starting policy; mean reward ${f4(c.mean_reward)}, ` +
    `sigma_eps^2 ${f4(c.sigma_eps2)}; B = ${c.batch_size}, ${c.batches} batches (docs/method.md section 4).</p>`;
  return {
    id: 'calibration',
    heading: 'B_eff calibration',
    body: text + figureHtml(svg, `Ratio above 1: the estimator predicts per-task difficulty better than ${c.reference}. The gate needs the kernel at or above the dashed bar.`) + table,
  };
}

async function gateSection(s: StudySummary): Promise<HtmlSection | null> {
  if (!s.gate) return null;
  const svg = await renderChartSvg(gateChartSpec(s.gate.checks), 'The activation gate, one strip per check');
  const verdict = s.gate.passed ? '<p class="pass">The gate PASSED: every check is within its bounds.</p>' : '<p class="fail">The gate FAILED: the run stopped before full training; the gate is never relaxed.</p>';
  return { id: 'gate', heading: 'Activation gate', body: verdict + figureHtml(svg, 'Green band: the allowed range (bounds inclusive). Green dot: within it; red cross: outside; no mark: missing (fails).') };
}

async function decisionSection(s: StudySummary): Promise<HtmlSection | null> {
  const d = s.decision;
  if (!d) return null;
  const svg = await renderChartSvg(decisionChartSpec(d.criteria, d.method), 'The paired decision: interval for the difference against the margin');
  const who = s.comparison ? `treatment ${s.comparison.treatment} vs baseline ${s.comparison.baseline}, ` : '';
  return {
    id: 'decision',
    heading: `Decision: ${d.verdict}`,
    body:
      `<p>${escapeHtml(`${d.method}, ${who}n = ${d.n}, alpha = ${d.alpha} (docs/method.md section 5).`)}</p>` +
      figureHtml(svg, 'Validated only if the whole interval lies right of the margin; failed only if it lies wholly left of it; otherwise inconclusive.'),
  };
}

async function powerSection(power: readonly PowerRow[] | undefined, s: StudySummary): Promise<HtmlSection | null> {
  if (!power || power.length === 0) return null;
  const margin = s.decision?.criteria[0]?.margin ?? null;
  const svg = await renderChartSvg(powerChartSpec(power, margin), 'What this design can conclude');
  return { id: 'power', heading: 'What this design can conclude', body: figureHtml(svg, 'Probability that the study validates (solid) or fails (dashed) at each true difference, for this n and alpha.') };
}

async function evalSection(a: StudyArtifacts): Promise<HtmlSection | null> {
  const s = a.summary;
  if (!s.eval) return null;
  const arms = Object.entries(s.eval).map(([arm, e]) => ({ arm, correct: Math.round(e.accuracy * e.n), n: e.n }));
  const svg = await renderChartSvg(accuracyChartSpec(arms), 'Eval accuracy per arm');
  const rows = arms.map((x) => {
    const [lo, hi] = wilsonInterval(x.correct, x.n);
    return [x.arm, String(x.correct), String(x.n), f4(x.correct / x.n), `[${f4(lo)}, ${f4(hi)}]`];
  });
  let body = figureHtml(svg, 'Greedy accuracy on the test items; bars are 95% Wilson intervals of each arm alone (the decision uses the paired interval).');
  body += tableHtml(['arm', 'correct', 'items', 'accuracy', '95% Wilson interval'], rows, [1, 2, 3]);
  const t = s.comparison && a.evalItems.get(s.comparison.treatment);
  const b = s.comparison && a.evalItems.get(s.comparison.baseline);
  if (s.comparison && t && b) {
    const p = pairedTable(t, b);
    body +=
      `<p>Paired outcomes on the same items (the discordant cells drive the decision):</p>` +
      tableHtml(
        ['', `${s.comparison.baseline} correct`, `${s.comparison.baseline} wrong`],
        [
          [`${s.comparison.treatment} correct`, String(p.bothCorrect), String(p.treatmentOnly)],
          [`${s.comparison.treatment} wrong`, String(p.baselineOnly), String(p.bothWrong)],
        ],
        [1, 2],
      );
  }
  return { id: 'eval', heading: 'Eval', body };
}

async function kernelSection(rows: readonly KernelFamilyRow[] | undefined, bar: number | null): Promise<HtmlSection | null> {
  if (!rows || rows.length === 0) return null;
  const svg = await renderChartSvg(kernelChartSpec(rows, bar), 'Kernel tuning: tuning vs held-out ratio per family');
  return { id: 'kernel', heading: 'Kernel tuning', body: figureHtml(svg, 'Hollow: the ratio on the tuning tasks that chose the kernel; filled: on held-out tasks (the honest figure). The gap is the selection bias.') };
}

/** The gate's bar for the kernel's B_eff ratio (the min of `offline_beff_ratio_tfidf_vs_loo_mean`), or null. */
export function gateBar(s: StudySummary): number | null {
  return s.gate?.checks.find((c) => c.metric === 'offline_beff_ratio_tfidf_vs_loo_mean')?.min ?? null;
}

/**
 * Renders report.html of a study run from its artifacts: the reward, B_eff, gate, decision, power, eval and kernel
 * charts (each only when the run produced its data), the tables beside them, and a footer naming every file read.
 * A simulated run carries the simulation banner at the top and a note in every section.
 *
 * @param artifacts - from `readStudyArtifacts(runDir)`.
 * @returns the whole HTML document.
 */
export async function renderStudyHtml(artifacts: StudyArtifacts): Promise<string> {
  const s = artifacts.summary;
  const bar = gateBar(s);
  const sections = (
    await Promise.all([
      rewardSection(s),
      calibrationSection(s, bar),
      kernelSection(artifacts.kernelFamilies, bar),
      gateSection(s),
      evalSection(artifacts),
      decisionSection(s),
      powerSection(artifacts.power, s),
    ])
  ).filter((x): x is HtmlSection => x !== null);
  return renderHtmlPage({
    title: `Study report: ${s.spec.title ?? '(untitled spec)'}`,
    subtitle: `backend ${s.backend}, seed ${s.seed}, rl-advantages ${s.version}`,
    ...(s.simulation ? { simulationBanner: SIM_BANNER } : {}),
    sections,
    footer: [`spec ${s.spec.path} (sha256 ${s.spec.sha256})`, `built from: ${artifacts.files.join(', ')}`],
  });
}
