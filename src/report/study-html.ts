// report.html of a study run: the sections of report.md (study-sections.ts, one source for both) with the charts a
// researcher would draw, built from the run's artifacts alone.
import type { StudySummary } from '../study/summary.js';
import type { LedgerLine } from '../study/executor/ledger.js';
import { blockHtml } from './blocks.js';
import type { KernelFamilyRow } from './charts/kernel.js';
import type { PowerRow } from './charts/power.js';
import { renderHtmlPage, type HtmlSection } from './html.js';
import { studySections } from './study-sections.js';

export { gateBar } from './study-sections.js';

/** What report.html is built from: summary.json and the files it names, as read from the run folder. */
export interface StudyArtifacts {
  readonly summary: StudySummary;
  /** Per-item correctness of each evaluated arm (eval/<arm>.jsonl), keyed by arm name. */
  readonly evalItems: ReadonlyMap<string, ReadonlyMap<string, boolean>>;
  /** The power table of the design (`plan` power rows), if the run recorded one. */
  readonly power?: readonly PowerRow[];
  /** Per-family tuning results of a tuned kernel, if the run tuned one. */
  readonly kernelFamilies?: readonly KernelFamilyRow[];
  /** The ledger RUN/jobs.jsonl's lines, when the run has one (the Jobs section and its timeline). */
  readonly jobs?: readonly LedgerLine[];
  /** The run-relative paths of every file read, listed in the page's footer. */
  readonly files: readonly string[];
}

/** The banner of every page that shows simulated figures (each section's heading also carries a short mark). */
export const SIM_BANNER =
  'SIMULATION: these figures come from the simulated backend (a success model, not a language model); they ' +
  'exercise the protocol and say nothing about any real model. See docs/sim.md.';

/**
 * Renders report.html of a study run from its artifacts: what was run, then report.md's sections (phases, preflight,
 * calibration with the fallback's row, tuning, pilot, gate, arms, eval, decision, power) with their charts, and a
 * footer naming every file read. A simulated run carries the simulation banner at the top and a mark on every heading.
 *
 * @param artifacts - from `readStudyArtifacts(runDir)`.
 * @returns the whole HTML document.
 */
export async function renderStudyHtml(artifacts: StudyArtifacts): Promise<string> {
  const s = artifacts.summary;
  const charts = { evalItems: artifacts.evalItems, ...(artifacts.power ? { power: artifacts.power } : {}), ...(artifacts.kernelFamilies ? { kernelFamilies: artifacts.kernelFamilies } : {}) };
  const sections: HtmlSection[] = [];
  for (const section of studySections(s, charts, artifacts.jobs)) {
    sections.push({ id: section.id, heading: section.heading, body: (await Promise.all(section.blocks.map(blockHtml))).join('\n') });
  }
  return renderHtmlPage({
    title: `Study report: ${s.spec.title ?? '(untitled spec)'}`,
    subtitle: `backend ${s.backend}, seed ${s.seed}, rl-advantages ${s.version}`,
    ...(s.simulation ? { simulationBanner: SIM_BANNER } : {}),
    sections,
    footer: [`spec ${s.spec.path} (sha256 ${s.spec.sha256})`, `built from: ${artifacts.files.join(', ')}`],
  });
}
