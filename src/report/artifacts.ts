// Reading a study run folder for its report: summary.json and the files it names, nothing recomputed.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { RlAdvantagesError } from '../errors.js';
import type { StudySummary, TuningKernelSummary } from '../study/summary.js';
import { LEDGER_FILE, readLedger } from '../study/executor/ledger.js';
import type { KernelFamilyRow } from './charts/kernel.js';
import type { StudyArtifacts } from './study-html.js';

function readRunFile(runDir: string, relative: string): string {
  const file = path.join(runDir, relative);
  if (!existsSync(file)) {
    throw new RlAdvantagesError(`${file}: not found (summary.json names it; the run folder is incomplete)`, { code: 'missing_artifact', field: relative });
  }
  return readFileSync(file, 'utf8');
}

/**
 * Per-item correctness from an eval file (one `{"item_id": string, "correct": boolean}` a line).
 *
 * @throws `RlAdvantagesError` (code `bad_artifact`) naming the file and line of a malformed row.
 */
export function parseEvalItems(text: string, file: string): Map<string, boolean> {
  const items = new Map<string, boolean>();
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    let row: unknown;
    try {
      row = JSON.parse(line);
    } catch {
      throw new RlAdvantagesError(`${file}:${i + 1}: not a JSON object`, { code: 'bad_artifact', field: file, index: i + 1 });
    }
    const r = row as { item_id?: unknown; correct?: unknown };
    if (typeof r.item_id !== 'string' || typeof r.correct !== 'boolean') {
      throw new RlAdvantagesError(`${file}:${i + 1}: field "item_id" must be a string and "correct" a boolean`, {
        code: 'bad_artifact',
        field: typeof r.item_id !== 'string' ? 'item_id' : 'correct',
        index: i + 1,
      });
    }
    items.set(r.item_id, r.correct);
  });
  return items;
}

/**
 * Reads what a study report is built from: `summary.json` of the run folder and the eval files it names.
 *
 * @param runDir - a folder written by `rl-adv study` (or `runStudy`).
 * @throws `RlAdvantagesError` (code `not_a_run`) if the folder has no summary.json, (code
 *   `missing_artifact`) if a file that summary.json names is absent, (code `bad_artifact`) for a malformed file.
 * @example
 * ```ts
 * const artifacts = readStudyArtifacts('runs/sim');
 * artifacts.summary.gate?.passed; // false for the default sim run
 * ```
 */
export function readStudyArtifacts(runDir: string): StudyArtifacts {
  const summaryFile = path.join(runDir, 'summary.json');
  if (!existsSync(summaryFile)) {
    throw new RlAdvantagesError(`${runDir}: no summary.json here, so it is not a study run folder (rl-adv study --out writes one)`, {
      code: 'not_a_run',
      field: 'RUN_DIR',
    });
  }
  let summary: StudySummary;
  try {
    summary = JSON.parse(readFileSync(summaryFile, 'utf8')) as StudySummary;
  } catch (error) {
    throw new RlAdvantagesError(`${summaryFile}: not valid JSON (${(error as Error).message})`, { code: 'bad_artifact', field: 'summary.json' });
  }
  checkSummaryShape(summary, summaryFile);
  const files = ['summary.json'];
  const evalItems = new Map<string, Map<string, boolean>>();
  for (const [arm, e] of Object.entries(summary.eval ?? {})) {
    evalItems.set(arm, parseEvalItems(readRunFile(runDir, e.file), e.file));
    files.push(e.file);
  }
  // A replicated run's per-seed eval files: each one the summary names is checked, as the single run's are.
  for (const rep of summary.replicates ?? []) {
    for (const a of Object.values(rep.arms)) {
      if (a.eval_file === undefined || files.includes(a.eval_file)) continue;
      parseEvalItems(readRunFile(runDir, a.eval_file), a.eval_file);
      files.push(a.eval_file);
    }
  }
  // The design's power rows are in summary.json (the decision phase computed them): read, never recomputed.
  const power = summary.design_power?.power;
  const kernel = summary.tuning?.kernel;
  if (kernel !== null && kernel !== undefined) files.push(kernel.file);
  // The job ledger (absent for a sim computed in the orchestrator's process): the Jobs section and its timeline.
  const jobs = readLedger(runDir);
  if (jobs.length > 0) files.push(LEDGER_FILE);
  return {
    summary,
    evalItems,
    files,
    ...(jobs.length > 0 ? { jobs } : {}),
    ...(power ? { power } : {}),
    ...(kernel !== null && kernel !== undefined ? { kernelFamilies: studyKernelFamilyRows(kernel) } : {}),
  };
}

function badField(file: string, field: string, what: string, value: unknown): RlAdvantagesError {
  const shown = value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value;
  return new RlAdvantagesError(`${file}: field "${field}" must be ${what}, got ${shown} (was the file edited?)`, { code: 'bad_artifact', field });
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Checks the parts of summary.json the report reads beyond the phases: `eval` (each arm's `file`) and `replicates`
 * (each seed's `arms`, their `reward_per_step`, `curve` and `eval_file`), so an edited or truncated summary gives a
 * message naming the field (exit 2), never a stack trace.
 */
function checkSummaryShape(summary: StudySummary, file: string): void {
  const s = summary as unknown;
  if (!isObject(s)) throw badField(file, '', 'a JSON object', s);
  if (s.eval !== undefined) {
    if (!isObject(s.eval)) throw badField(file, 'eval', 'an object', s.eval);
    for (const [arm, e] of Object.entries(s.eval)) if (!isObject(e) || typeof e.file !== 'string') throw badField(file, `eval.${arm}.file`, 'a string', isObject(e) ? e.file : e);
  }
  if (s.replicates === undefined) return;
  if (!Array.isArray(s.replicates)) throw badField(file, 'replicates', 'an array', s.replicates);
  s.replicates.forEach((rep: unknown, i) => {
    if (!isObject(rep) || !isObject(rep.arms)) throw badField(file, `replicates[${i}].arms`, 'an object', isObject(rep) ? rep.arms : rep);
    for (const [arm, a] of Object.entries(rep.arms)) {
      const at = `replicates[${i}].arms.${arm}`;
      if (!isObject(a) || !Array.isArray(a.reward_per_step)) throw badField(file, `${at}.reward_per_step`, 'an array', isObject(a) ? a.reward_per_step : a);
      if (a.curve !== undefined && a.curve !== null && !Array.isArray(a.curve)) throw badField(file, `${at}.curve`, 'an array or null', a.curve);
      if (a.eval_file !== undefined && typeof a.eval_file !== 'string') throw badField(file, `${at}.eval_file`, 'a string', a.eval_file);
    }
  });
}

/** The kernel chart's rows (chart 7) from the tuned kernel's per-family figures in summary.json. */
export function studyKernelFamilyRows(kernel: TuningKernelSummary): KernelFamilyRow[] {
  return kernel.per_family.map((f) => ({ family: f.family, tuning: f.tuning, heldOut: f.held_out, heldOutCi95: f.held_out_ci95 ?? null }));
}
