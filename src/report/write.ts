// Writing a study run's reports (report.md and report.html) from its artifacts, for the study and `rl-adv report`.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { lockRunDir } from '../study/run-dir.js';
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
 *   (see `readStudyArtifacts`), or (`run_dir_locked`) while a study process is writing the folder.
 * @example
 * ```ts
 * await writeStudyReports('runs/sim'); // { markdown: 'runs/sim/report.md', html: 'runs/sim/report.html' }
 * ```
 */
export async function writeStudyReports(runDir: string): Promise<WrittenReports> {
  // A folder without summary.json is refused by name before anything is created in it.
  if (!existsSync(path.join(runDir, 'summary.json'))) return writeReportsOf(runDir);
  // No report is written into a run a study process is still writing.
  const lock = lockRunDir(path.resolve(runDir), runDir, 'rl-adv report', '');
  try {
    return await writeReportsOf(runDir);
  } finally {
    lock.release();
  }
}

/** {@link writeStudyReports} on a folder this process has locked. */
async function writeReportsOf(runDir: string): Promise<WrittenReports> {
  const artifacts = readStudyArtifacts(runDir);
  const markdown = path.join(runDir, 'report.md');
  const html = path.join(runDir, 'report.html');
  const page = await renderStudyHtml(artifacts);
  writeFileAtomic(markdown, renderReport(artifacts.summary, artifacts.jobs));
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
  return runStudy({
    ...options,
    onSummary: (dir, summary) => {
      writeFileAtomic(path.join(dir, 'report.md'), renderReport(summary));
      options.onSummary?.(dir, summary);
    },
    // Still under the run folder's lock: no other process starts on the folder before the reports are complete.
    finish: async (dir, summary) => {
      await writeReportsOf(dir);
      await options.finish?.(dir, summary);
    },
  });
}
