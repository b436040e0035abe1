// What `rl-adv report` checks of every eval file it names before it reports a figure from summary.json: that the file
// parses, holds the item count and the correct count summary.json records for it, lists the same items in the same
// order as the starting policy's eval it is paired with, and, when summary.json has the artifact manifest
// (src/study/artifact-manifest.ts), has the bytes and sha256 recorded when it was written. A file cut at a line
// boundary, or with an answer flipped, is refused naming the file and what differs, never reported as if whole.
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { RlAdvantagesError } from '../errors.js';
import { artifactProblem } from '../study/artifact-manifest.js';
import { sha256Hex } from '../internal/sha256.js';
import type { StudySummary } from '../study/summary.js';
import { parseEvalItems } from './eval-items.js';

/** The remedy every refusal of a run file gives. */
const REMEDY = 'the report is built only from whole files: run the study again with --resume (it rebuilds the file), then rl-adv report';

/** An eval file the report names: its path in the run, the figures summary.json records for it, its pairing. */
export interface NamedEvalFile {
  readonly file: string;
  /** The item count and accuracy summary.json records for it (absent: none recorded). */
  readonly n?: number;
  readonly accuracy?: number;
  /** The starting policy's eval file it is paired with (same items, same order), or undefined for that file itself. */
  readonly pairedWith?: string;
}

function refuse(runDir: string, file: string, what: string): RlAdvantagesError {
  return new RlAdvantagesError(`${path.join(runDir, file)}: ${what}; ${REMEDY}`, { code: 'bad_artifact', field: file });
}

/** Reads a file summary.json names; a missing one is named. */
export function readNamedFile(runDir: string, relative: string): string {
  const file = path.join(runDir, relative);
  if (!existsSync(file)) {
    throw new RlAdvantagesError(`${file}: not found (summary.json names it; the run folder is incomplete)`, { code: 'missing_artifact', field: relative });
  }
  // A pipe or a device never ends: only a regular file is read.
  if (!statSync(file).isFile()) throw new RlAdvantagesError(`${file}: not a regular file (summary.json names a file the run wrote)`, { code: 'bad_artifact', field: relative });
  return readFileSync(file, 'utf8');
}

/** Every eval file the report names: each arm's (per seed in a replicated run), the starting policy's, the pilot's. */
export function namedEvalFiles(summary: StudySummary): NamedEvalFile[] {
  const start = summary.start?.file;
  const files: NamedEvalFile[] = [];
  const add = (f: NamedEvalFile): void => {
    if (!files.some((x) => x.file === f.file)) files.push(f);
  };
  if (start !== undefined) add({ file: start, n: summary.start?.n, accuracy: summary.start?.accuracy });
  for (const e of Object.values(summary.eval ?? {})) add({ file: e.file, n: e.n, accuracy: e.accuracy, pairedWith: start });
  for (const rep of summary.replicates ?? []) {
    for (const a of Object.values(rep.arms)) if (a.eval_file !== undefined) add({ file: a.eval_file, n: a.n, accuracy: a.accuracy, pairedWith: start });
  }
  // The pilot's accuracies the report shows: each policy's eval on the pilot items, beside the starting policy's.
  const pilot = Object.entries(summary.pilot?.eval ?? {});
  for (const [policy, e] of pilot) {
    add({ file: `pilot/eval_${policy}.jsonl`, n: e.n, accuracy: e.accuracy, ...(policy === 'init' ? {} : { pairedWith: 'pilot/eval_init.jsonl' }) });
  }
  return files;
}

/**
 * Checks the tuning phase's files summary.json names (tuning.jsonl and kernel.json) against the sha256 it records
 * for each and the manifest.
 *
 * @throws `RlAdvantagesError` as {@link checkEvalFiles}.
 */
export function checkTuningFiles(runDir: string, summary: StudySummary): void {
  const t = summary.tuning;
  if (t === undefined) return;
  const named = [{ file: t.file, sha256: t.sha256 }, ...(t.kernel === null ? [] : [{ file: t.kernel.file, sha256: t.kernel.sha256 }])];
  for (const { file, sha256 } of named) {
    const now = sha256Hex(readNamedFile(runDir, file));
    if (now !== sha256) throw refuse(runDir, file, `its sha256 ${now.slice(0, 12)}... differs from the ${sha256.slice(0, 12)}... summary.json records (edited or damaged)`);
    const problem = artifactProblem(runDir, file, summary.artifacts?.[file]);
    if (problem !== null) throw refuse(runDir, file, problem);
  }
}

/** The first place two files' item ids differ, in words, or null when they list the same items in the same order. */
function idsDiffer(ids: readonly string[], reference: readonly string[], referenceFile: string): string | null {
  if (ids.length !== reference.length) return null; // the count check names this
  const i = ids.findIndex((id, k) => id !== reference[k]);
  if (i < 0) return null;
  return `item ${i + 1} is "${ids[i]}" where ${referenceFile} has "${reference[i]}" (paired files list the same items in the same order)`;
}

/**
 * Checks the eval files the report names against summary.json: item and correct counts, the pairing's item order,
 * and the manifest's bytes and sha256.
 *
 * @returns each file's items (item id to correct), by its path in the run.
 * @throws `RlAdvantagesError` `missing_artifact` for a file summary.json names that is absent; `bad_artifact`
 *   naming the file and what differs.
 * @example
 * ```ts
 * const items = checkEvalFiles('runs/sim', summary); // items.get('eval/init.jsonl')?.size === summary.start.n
 * ```
 */
export function checkEvalFiles(runDir: string, summary: StudySummary): Map<string, Map<string, boolean>> {
  const read = new Map<string, Map<string, boolean>>();
  const named = namedEvalFiles(summary);
  for (const f of named) {
    // A pilot eval file of a run written before the manifest is checked only where it exists.
    if (f.file.startsWith('pilot/') && summary.artifacts?.[f.file] === undefined && !existsSync(path.join(runDir, f.file))) continue;
    const items = parseEvalItems(readNamedFile(runDir, f.file), f.file);
    if (f.n !== undefined && items.size !== f.n) throw refuse(runDir, f.file, `${items.size} items where summary.json records ${f.n} (cut short or edited)`);
    const correct = [...items.values()].filter(Boolean).length;
    if (f.n !== undefined && f.accuracy !== undefined && correct !== Math.round(f.accuracy * f.n)) {
      throw refuse(runDir, f.file, `${correct} of ${items.size} answers correct where summary.json records ${Math.round(f.accuracy * f.n)} (answers changed)`);
    }
    const problem = artifactProblem(runDir, f.file, summary.artifacts?.[f.file]);
    if (problem !== null) throw refuse(runDir, f.file, problem);
    read.set(f.file, items);
  }
  for (const f of named) {
    const reference = f.pairedWith === undefined ? undefined : read.get(f.pairedWith);
    const items = read.get(f.file);
    if (reference === undefined || items === undefined) continue;
    const differs = idsDiffer([...items.keys()], [...reference.keys()], f.pairedWith as string);
    if (differs !== null) throw refuse(runDir, f.file, differs);
  }
  return read;
}
