// Writing a study run's reports (report.md and report.html) from its artifacts, for the study and `rl-adv report`.
import path from 'node:path';
import { writeFileAtomic } from '../study/backends/files.js';
import type { StudyOptions, StudyOutcome } from '../study/options.js';
import { runStudy } from '../study/run.js';
import { readStudyArtifacts } from './artifacts.js';
import { renderReport } from './markdown.js';
import { renderStudyHtml } from './study-html.js';

/** The files {@link writeStudyReports} wrote. */
export interface WrittenReports {
  readonly markdown: string;
  readonly html: string;
}

/**
 * Rebuilds `report.md` and `report.html` of a study run from its artifacts alone (summary.json and the files it
 * names), each written atomically. The same artifacts give the same bytes, so a report can be regenerated after a
 * library upgrade, or a Tinker run's folder reported on any machine.
 *
 * @param runDir - a folder written by `rl-adv study`.
 * @returns the paths written.
 * @throws `RlAdvantagesError` if the folder is not a study run or an artifact is missing or malformed
 *   (see `readStudyArtifacts`).
 * @example
 * ```ts
 * await writeStudyReports('runs/sim'); // { markdown: 'runs/sim/report.md', html: 'runs/sim/report.html' }
 * ```
 */
export async function writeStudyReports(runDir: string): Promise<WrittenReports> {
  const artifacts = readStudyArtifacts(runDir);
  const markdown = path.join(runDir, 'report.md');
  const html = path.join(runDir, 'report.html');
  const page = await renderStudyHtml(artifacts);
  writeFileAtomic(markdown, renderReport(artifacts.summary));
  writeFileAtomic(html, page);
  return { markdown, html };
}

/**
 * Runs (or resumes) a study with its reports, as `rl-adv study` does: {@link runStudy} with report.md rewritten from
 * summary.json after every phase (so an interrupted run has its report so far), then report.md and report.html
 * drawn once from the artifacts just written ({@link writeStudyReports}, which `rl-adv report` runs the same way).
 *
 * @param options - as for `runStudy`; an `onSummary` given is called too, after report.md is written.
 * @returns `runStudy`'s outcome.
 * @throws `RlAdvantagesError` as `runStudy` and `writeStudyReports` do.
 * @example
 * ```ts
 * const { exitCode } = await runStudyWithReports({ specPath: 'gs1-vs-grpo.spec.json', dir: 'out', backend: createSimBackend() });
 * ```
 */
export async function runStudyWithReports(options: StudyOptions): Promise<StudyOutcome> {
  const outcome = await runStudy({
    ...options,
    onSummary: (dir, summary) => {
      writeFileAtomic(path.join(dir, 'report.md'), renderReport(summary));
      options.onSummary?.(dir, summary);
    },
  });
  await writeStudyReports(options.dir);
  return outcome;
}
