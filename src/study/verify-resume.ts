// What `rl-adv study --resume` keeps, checked before any phase runs: every artifact of a phase summary.json records
// done is parsed whole and compared with the manifest (src/study/artifact-manifest.ts; a run written before it is
// parsed only). A torn, edited or missing one is rebuilt from its inputs: it is removed with what was made from it (an
// arm's whole job folder and its eval file; the tuning rows' kernel), and its phase and every phase after it are
// redone. Jobs whose artifacts are whole are kept (a finished arm returns from its checkpoint), so only what depends
// on the torn file is computed again.
import { rmSync } from 'node:fs';
import path from 'node:path';
import { artifactProblem, phaseArtifacts } from './artifact-manifest.js';
import { RlAdvantagesError } from '../errors.js';
import { STUDY_PHASES, type StudyPhase, type StudySummary } from './summary.js';

/** One kept artifact that cannot be used, and why. */
export interface TornArtifact {
  readonly file: string;
  readonly phase: StudyPhase;
  readonly problem: string;
}

/** The artifacts of the phases recorded done that are not whole, in the phases' order. */
export function tornArtifacts(dir: string, summary: StudySummary): TornArtifact[] {
  const manifest = summary.artifacts;
  if (manifest !== undefined && (typeof manifest !== 'object' || manifest === null || Array.isArray(manifest))) {
    throw new RlAdvantagesError(`${path.join(dir, 'summary.json')}: field "artifacts" must be an object (was the file edited?); the run cannot be resumed from it: start it again in an empty folder`, {
      code: 'bad_artifact',
      field: 'artifacts',
    });
  }
  const torn: TornArtifact[] = [];
  for (const phase of STUDY_PHASES) {
    if (summary.phases[phase]?.status !== 'done') continue;
    const recorded = Object.keys(manifest ?? {}).filter((rel) => manifest?.[rel]?.phase === phase);
    // A run written before the manifest: every artifact of the phase is parsed whole.
    const files = recorded.length > 0 ? recorded : phaseArtifacts(dir, phase);
    for (const file of files) {
      const problem = artifactProblem(dir, file, manifest?.[file]);
      if (problem !== null) torn.push({ file, phase, problem });
    }
  }
  return torn;
}

/**
 * What is removed to rebuild a torn artifact: an arm job's file takes the arm's whole folder and the eval file of its
 * checkpoint (a job is redone whole, and an eval of an older checkpoint is never kept); the tuning rows take the
 * kernel tuned on them; any other file only itself.
 *
 * @example
 * ```ts
 * rebuildPaths('seeds/3/arms/grpo_g8/state.json'); // ['seeds/3/arms/grpo_g8', 'seeds/3/eval/grpo_g8.jsonl']
 * ```
 */
export function rebuildPaths(rel: string): string[] {
  const arm = /^((?:seeds\/[^/]+\/)?)(arms|pilot)\/([^/]+)\//.exec(rel);
  if (arm !== null) {
    const [, prefix, kind, name] = arm as unknown as [string, string, string, string];
    return [`${prefix}${kind}/${name}`, kind === 'pilot' ? `pilot/eval_${name}.jsonl` : `${prefix}eval/${name}.jsonl`];
  }
  if (rel === 'tuning.jsonl') return [rel, 'kernel.json'];
  return [rel];
}

/**
 * Checks the artifacts a resumed run keeps and prepares the rebuild of the torn ones: removes them (with what was
 * made from them) and marks their phase and every later one not done, so the run redoes them.
 *
 * @param note - called with one line per torn artifact, naming it, what is wrong and what is redone.
 * @param shown - the folder as the user typed it (the lines name files under it).
 * @returns the torn artifacts (none: nothing changed).
 * @throws {RlAdvantagesError} `bad_artifact` when summary.json's `artifacts` is not an object.
 * @example
 * ```ts
 * prepareResume('runs/sim', summary, (line) => console.error(line));
 * ```
 */
export function prepareResume(dir: string, summary: StudySummary, note: (line: string) => void, shown = dir): TornArtifact[] {
  const torn = tornArtifacts(dir, summary);
  if (torn.length === 0) return torn;
  const first = STUDY_PHASES.indexOf((torn[0] as TornArtifact).phase);
  const redo = STUDY_PHASES.filter((p, i) => i >= first && summary.phases[p] !== undefined);
  for (const t of torn) {
    const removed = rebuildPaths(t.file);
    for (const rel of removed) rmSync(path.join(dir, ...rel.split('/')), { recursive: true, force: true });
    const also = removed.filter((rel) => rel !== t.file);
    note(`${path.join(shown, ...t.file.split('/'))}: ${t.problem}; rebuilding it from its inputs${also.length > 0 ? ` (removed with ${also.join(' and ')})` : ''}`);
  }
  for (const phase of redo) delete summary.phases[phase];
  // Entries of removed files go; the phases redone record theirs again when they end.
  if (summary.artifacts !== undefined) {
    for (const [rel, record] of Object.entries(summary.artifacts)) if (redo.includes(record.phase)) delete summary.artifacts[rel];
  }
  note(`redoing ${redo.join(', ')} (the phase that wrote ${torn.length === 1 ? 'it' : 'them'} and every phase after it)`);
  return torn;
}
