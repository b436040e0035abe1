// The run's artifact manifest (summary.json `artifacts`): every JSON or JSON-lines file a phase wrote into the run
// folder, recorded when the phase ends, in the same atomic write of summary.json that records the phase: its bytes,
// its sha256 and, for JSON lines, its row count. `--resume` checks what it keeps against it (src/study/verify-resume.ts)
// and `rl-adv report` checks every file it reads against it (src/report/artifacts.ts): a file cut short, even at a
// line boundary, or edited (an answer flipped) no longer matches, and is rebuilt or refused, never used.
import { lstatSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { sha256Hex } from '../internal/sha256.js';
import { STUDY_PHASES, type ArtifactManifest, type ArtifactRecord, type StudyPhase, type StudySummary } from './summary.js';

export type { ArtifactManifest, ArtifactRecord } from './summary.js';

/** A phase's files at the top of the run folder, and its folders (also under `seeds/<seed>/` for arms and eval). */
const PHASE_FILES: Readonly<Record<string, StudyPhase>> = {
  'preflight.json': 'preflight',
  'tuning.jsonl': 'tuning',
  'kernel.json': 'tuning',
  'gate.json': 'gate',
  'decision.json': 'decision',
};
const PHASE_FOLDERS: Readonly<Record<string, StudyPhase>> = { calibration: 'calibration', pilot: 'pilot', arms: 'arms', eval: 'eval' };

const isArtifactName = (name: string): boolean => name.endsWith('.json') || name.endsWith('.jsonl');

/**
 * The phase that writes a file of the run folder, from its path (`/`-separated, relative to the folder), or null for
 * a file no phase owns (summary.json, run.json, the reports, a backend's requests and logs).
 *
 * @example
 * ```ts
 * artifactPhase('seeds/3/eval/grpo_g8.jsonl'); // 'eval'
 * artifactPhase('preflight_trl.json'); // 'preflight'
 * ```
 */
export function artifactPhase(rel: string): StudyPhase | null {
  const parts = rel.split('/');
  const name = parts.at(-1) ?? '';
  if (!isArtifactName(name)) return null;
  if (parts.length === 1) return PHASE_FILES[name] ?? (/^preflight_\w+\.json$/.test(name) ? 'preflight' : null);
  const [top, , under] = parts;
  if (top === 'seeds') return parts.length > 3 && (under === 'arms' || under === 'eval') ? under : null;
  return PHASE_FOLDERS[top ?? ''] ?? null;
}

/** Every artifact file under `rel` (a file or a folder of the run), recursively, as `/`-separated paths. */
function filesUnder(dir: string, rel: string, out: string[]): void {
  const full = path.join(dir, rel);
  // Not following links: only the run's own regular files are recorded (never a device or a pipe, which may not end).
  const stat = lstatSync(full, { throwIfNoEntry: false });
  if (stat === undefined) return;
  if (stat.isDirectory()) {
    for (const name of readdirSync(full).sort()) filesUnder(dir, rel === '' ? name : `${rel}/${name}`, out);
  } else if (stat.isFile() && artifactPhase(rel) !== null) {
    out.push(rel);
  }
}

/** The artifacts of `phase` now in the run folder, sorted. */
export function phaseArtifacts(dir: string, phase: StudyPhase): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    if (name === 'seeds' && statSync(path.join(dir, name)).isDirectory()) {
      for (const seed of readdirSync(path.join(dir, name)).sort()) for (const under of ['arms', 'eval']) filesUnder(dir, `seeds/${seed}/${under}`, out);
    } else if (PHASE_FOLDERS[name] !== undefined || PHASE_FILES[name] !== undefined || /^preflight_\w+\.json$/.test(name)) {
      filesUnder(dir, name, out);
    }
  }
  return out.filter((rel) => artifactPhase(rel) === phase);
}

/** Non-blank lines of a JSON-lines text. */
const rowCount = (text: string): number => text.split('\n').filter((line) => line.trim() !== '').length;

/** What the manifest records of a file's bytes. */
export function describeArtifact(bytes: Buffer, rel: string, phase: StudyPhase): ArtifactRecord {
  return {
    phase,
    bytes: bytes.length,
    sha256: sha256Hex(bytes),
    ...(rel.endsWith('.jsonl') ? { rows: rowCount(bytes.toString('utf8')) } : {}),
  };
}

/**
 * Records the artifacts `phase` left in the run folder in `summary.artifacts` (replacing that phase's earlier
 * entries), the phases in order and the paths sorted within each, so identical runs record identical manifests.
 */
export function recordPhaseArtifacts(dir: string, summary: StudySummary, phase: StudyPhase): void {
  const manifest: ArtifactManifest = {};
  for (const [rel, record] of Object.entries(summary.artifacts ?? {})) if (record.phase !== phase) manifest[rel] = record;
  for (const rel of phaseArtifacts(dir, phase)) manifest[rel] = describeArtifact(readFileSync(path.join(dir, rel)), rel, phase);
  const order = (rel: string): number => STUDY_PHASES.indexOf((manifest[rel] as ArtifactRecord).phase);
  const sorted = Object.keys(manifest).sort((a, b) => order(a) - order(b) || (a < b ? -1 : a > b ? 1 : 0));
  summary.artifacts = Object.fromEntries(sorted.map((rel) => [rel, manifest[rel] as ArtifactRecord]));
}

/** The first line of a text that is not valid JSON (1-based), for a JSON-lines file; the whole text for JSON. */
function parseProblem(text: string, rel: string): string | null {
  if (rel.endsWith('.jsonl')) {
    const lines = text.split('\n');
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i] as string;
      if (line.trim() === '') continue;
      try {
        JSON.parse(line);
      } catch {
        return `line ${i + 1} is not valid JSON`;
      }
    }
    return null;
  }
  try {
    JSON.parse(text);
    return null;
  } catch {
    return 'not valid JSON';
  }
}

/**
 * What is wrong with a kept artifact, or null when it is whole: missing, not a file, not valid JSON (every line of a
 * JSON-lines file is parsed), and, when the manifest records it, a row count, a size or a sha256 other than recorded.
 *
 * @param record - the manifest's entry, or undefined for a run written before the manifest (parsed only).
 * @example
 * ```ts
 * artifactProblem('runs/sim', 'gate.json', summary.artifacts?.['gate.json']); // null for an untouched run
 * ```
 */
export function artifactProblem(dir: string, rel: string, record: ArtifactRecord | undefined): string | null {
  const full = path.join(dir, rel);
  const stat = lstatSync(full, { throwIfNoEntry: false });
  if (stat === undefined) return 'missing';
  if (!stat.isFile()) return 'not a regular file';
  const bytes = readFileSync(full);
  const text = bytes.toString('utf8');
  const parse = parseProblem(text, rel);
  if (parse !== null) return `${parse} (truncated or edited)`;
  if (record === undefined) return null;
  const now = describeArtifact(bytes, rel, record.phase);
  if (record.rows !== undefined && now.rows !== record.rows) return `${now.rows ?? 0} rows where summary.json records ${record.rows} (cut short or edited)`;
  if (now.bytes !== record.bytes || now.sha256 !== record.sha256) {
    return `its content differs from what summary.json records (${now.bytes} bytes, sha256 ${now.sha256.slice(0, 12)}...; recorded ${record.bytes} bytes, sha256 ${record.sha256.slice(0, 12)}...): edited or damaged`;
  }
  return null;
}
