// report.html of a study run: the charts a researcher would draw, built from the run's artifacts alone.
import type { StudySummary } from '../study/summary.js';
import type { KernelFamilyRow } from './charts/kernel.js';
import type { PowerRow } from './charts/power.js';
import { designPowerNote } from './design-power.js';
import { renderHtmlPage, type HtmlSection } from './html.js';
import { calibrationSection, decisionSection, evalSection, gateSection, kernelSection, powerSection, preflightSection, rewardSection } from './sections.js';

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

/** The banner (and per-section note) of every page that shows simulated figures. */
export const SIM_BANNER =
  'SIMULATION: these figures come from the simulated backend (a success model, not a language model); they ' +
  'exercise the protocol and say nothing about any real model. See docs/sim.md.';

/** The gate's bar for the kernel's B_eff ratio (the min of `offline_beff_ratio_tfidf_vs_loo_mean`), or null. */
export function gateBar(s: StudySummary): number | null {
  return s.gate?.checks.find((c) => c.metric === 'offline_beff_ratio_tfidf_vs_loo_mean')?.min ?? null;
}

function evalOf(a: StudyArtifacts): Promise<HtmlSection> | null {
  const s = a.summary;
  if (!s.eval) return null;
  const arms = Object.entries(s.eval).map(([arm, e]) => ({ arm, correct: Math.round(e.accuracy * e.n), n: e.n }));
  const t = s.comparison && a.evalItems.get(s.comparison.treatment);
  const b = s.comparison && a.evalItems.get(s.comparison.baseline);
  return evalSection(arms, s.comparison && t && b ? { ...s.comparison, t, b } : undefined);
}

/**
 * Renders report.html of a study run from its artifacts: the preflight's checks, the reward, B_eff, kernel, gate, eval, decision and power
 * charts (each only when the run produced its data), the tables beside them, and a footer naming every file read.
 * A simulated run carries the simulation banner at the top and a note in every section.
 *
 * @param artifacts - from `readStudyArtifacts(runDir)`.
 * @returns the whole HTML document.
 */
export async function renderStudyHtml(artifacts: StudyArtifacts): Promise<string> {
  const s = artifacts.summary;
  const bar = gateBar(s);
  const fallback = s.fallback ? [{ estimator: `${s.fallback.estimator} (fallback)`, ratio: s.fallback.ratio, ci95: s.fallback.ratio_ci95 }] : [];
  const sections = (
    await Promise.all([
      s.preflight ? preflightSection(s.preflight) : null,
      rewardSection([
        ...Object.entries(s.pilot?.arms ?? {}).map(([arm, a]) => ({ arm, phase: 'pilot' as const, rewardPerStep: a.reward_per_step })),
        ...Object.entries(s.arms ?? {}).map(([arm, a]) => ({ arm, phase: 'full' as const, rewardPerStep: a.reward_per_step })),
      ]),
      s.calibration ? calibrationSection(s.calibration, bar, fallback) : null,
      kernelSection(artifacts.kernelFamilies ?? [], bar),
      s.gate ? gateSection(s.gate) : null,
      evalOf(artifacts),
      s.decision ? decisionSection(s.decision, s.comparison) : null,
      powerSection(artifacts.power ?? [], s.design_power?.margin ?? null, s.design_power ? designPowerNote(s.design_power, s.eval !== undefined) : undefined),
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
