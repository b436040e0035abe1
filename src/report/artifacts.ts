// Reading a study run folder for its report: summary.json and the files it names, nothing recomputed.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { RlAdvantagesError } from '../errors.js';
import { checkEvalFiles, checkTuningFiles } from './artifact-checks.js';
import type { StudySummary, TuningKernelSummary } from '../study/summary.js';
import { LEDGER_FILE, readLedger } from '../study/executor/ledger.js';
import type { KernelFamilyRow } from './charts/kernel.js';
import type { StudyArtifacts } from './study-html.js';

export { parseEvalItems } from './eval-items.js';

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
  // Every eval file summary.json names (each seed's, the starting policy's, the pilot's) is checked against it.
  const checked = checkEvalFiles(runDir, summary);
  checkTuningFiles(runDir, summary);
  const evalItems = new Map<string, Map<string, boolean>>();
  for (const [arm, e] of Object.entries(summary.eval ?? {})) {
    evalItems.set(arm, checked.get(e.file) ?? new Map());
    files.push(e.file);
  }
  for (const rep of summary.replicates ?? []) {
    for (const a of Object.values(rep.arms)) if (a.eval_file !== undefined && !files.includes(a.eval_file)) files.push(a.eval_file);
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

/** An eval entry's figures: `n` and `accuracy` numbers where present, `file` a string where `needsFile`. */
function checkFigures(file: string, at: string, e: unknown, needsFile: boolean): void {
  if (!isObject(e)) throw badField(file, at, 'an object', e);
  if ((needsFile || e.file !== undefined) && typeof e.file !== 'string') throw badField(file, `${at}.file`, 'a string', e.file);
  for (const k of ['n', 'accuracy'] as const) if (e[k] !== undefined && typeof e[k] !== 'number') throw badField(file, `${at}.${k}`, 'a number', e[k]);
}

/** `artifacts` (the manifest): an object of objects with a string `sha256`, a number `bytes` and a string `phase`. */
function checkManifestShape(s: Record<string, unknown>, file: string): void {
  if (s.artifacts === undefined) return;
  if (!isObject(s.artifacts)) throw badField(file, 'artifacts', 'an object', s.artifacts);
  for (const [rel, a] of Object.entries(s.artifacts)) {
    if (!isObject(a)) throw badField(file, `artifacts.${rel}`, 'an object', a);
    if (typeof a.phase !== 'string') throw badField(file, `artifacts.${rel}.phase`, 'a string', a.phase);
    if (typeof a.sha256 !== 'string') throw badField(file, `artifacts.${rel}.sha256`, 'a string', a.sha256);
    if (typeof a.bytes !== 'number') throw badField(file, `artifacts.${rel}.bytes`, 'a number', a.bytes);
    if (a.rows !== undefined && typeof a.rows !== 'number') throw badField(file, `artifacts.${rel}.rows`, 'a number', a.rows);
  }
}

/** `tuning`: its rows' `file` and `sha256`, and its kernel's (or null), strings. */
function checkTuningShape(s: Record<string, unknown>, file: string): void {
  if (s.tuning === undefined) return;
  const t = s.tuning;
  if (!isObject(t)) throw badField(file, 'tuning', 'an object', t);
  const k = t.kernel;
  if (k !== null && !isObject(k)) throw badField(file, 'tuning.kernel', 'an object or null', k);
  const named: [string, unknown][] = [['tuning.file', t.file], ['tuning.sha256', t.sha256], ...(k === null ? [] : ([['tuning.kernel.file', k.file], ['tuning.kernel.sha256', k.sha256]] as [string, unknown][]))];
  for (const [field, value] of named) if (typeof value !== 'string') throw badField(file, field, 'a string', value);
}

/**
 * Checks the parts of summary.json the report reads beyond the phases: `eval` (each arm's `file`, `n`, `accuracy`),
 * `start`, `pilot.eval`, `artifacts` and `replicates` (each seed's `arms`, their `reward_per_step`, `curve` and
 * `eval_file`), so an edited or truncated summary gives a message naming the field (exit 2), never a stack trace.
 */
function checkSummaryShape(summary: StudySummary, file: string): void {
  const s = summary as unknown;
  if (!isObject(s)) throw badField(file, '', 'a JSON object', s);
  if (s.eval !== undefined) {
    if (!isObject(s.eval)) throw badField(file, 'eval', 'an object', s.eval);
    for (const [arm, e] of Object.entries(s.eval)) checkFigures(file, `eval.${arm}`, e, true);
  }
  if (s.start !== undefined) checkFigures(file, 'start', s.start, true);
  if (s.pilot !== undefined) {
    const p = isObject(s.pilot) ? s.pilot.eval : s.pilot;
    if (!isObject(p)) throw badField(file, 'pilot.eval', 'an object', p);
    for (const [policy, e] of Object.entries(p)) checkFigures(file, `pilot.eval.${policy}`, e, false);
  }
  checkManifestShape(s, file);
  checkTuningShape(s, file);
  if (s.replicates === undefined) return;
  if (!Array.isArray(s.replicates)) throw badField(file, 'replicates', 'an array', s.replicates);
  s.replicates.forEach((rep: unknown, i) => {
    if (!isObject(rep) || !isObject(rep.arms)) throw badField(file, `replicates[${i}].arms`, 'an object', isObject(rep) ? rep.arms : rep);
    for (const [arm, a] of Object.entries(rep.arms)) {
      const at = `replicates[${i}].arms.${arm}`;
      if (!isObject(a) || !Array.isArray(a.reward_per_step)) throw badField(file, `${at}.reward_per_step`, 'an array', isObject(a) ? a.reward_per_step : a);
      if (a.curve !== undefined && a.curve !== null && !Array.isArray(a.curve)) throw badField(file, `${at}.curve`, 'an array or null', a.curve);
      if (a.eval_file !== undefined && typeof a.eval_file !== 'string') throw badField(file, `${at}.eval_file`, 'a string', a.eval_file);
      checkFigures(file, at, a, false);
    }
  });
}

/** The kernel chart's rows (chart 7) from the tuned kernel's per-family figures in summary.json. */
export function studyKernelFamilyRows(kernel: TuningKernelSummary): KernelFamilyRow[] {
  return kernel.per_family.map((f) => ({ family: f.family, tuning: f.tuning, heldOut: f.held_out, heldOutCi95: f.held_out_ci95 ?? null }));
}
