// What the sim-backend study tests share (replicates, ablation, lr-grid-run): the options of a small clustered-world
// run and the files of a run folder to compare byte for byte.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { StudyOptions } from '../../src/study/run.js';
import { createSimBackend } from '../../src/study/sim/backend.js';
import { SIM_CLUSTERED_DEFAULTS } from '../../src/study/sim/world.js';

/** A small sim study of SPEC into DIR: the clustered world (coupling 0.9), 200 eval items, 500 calibration batches. */
export function simStudyOptions(spec: string, dir: string, { steps = 8, jobs = 2 }: { steps?: number; jobs?: number } = {}): StudyOptions {
  return {
    specPath: spec,
    dir,
    backend: createSimBackend({ ...SIM_CLUSTERED_DEFAULTS, coupling: 0.9 }),
    questions: 'clustered',
    steps,
    evalLimit: 200,
    calibrationBatches: 500,
    jobs,
  };
}

/**
 * Every file under `dir` with its bytes. With `wallTimesAside` (the comparison of two runs), summary.json without its
 * phases' wall times and the reports, which show them, left out; without it, every byte (nothing lost).
 */
export function runFiles(dir: string, { wallTimesAside = true }: { wallTimesAside?: boolean } = {}): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const full = path.join(d, e.name);
      if (e.isDirectory()) walk(full);
      else out[path.relative(dir, full)] = readFileSync(full, 'utf8');
    }
  };
  walk(dir);
  if (!wallTimesAside) return out;
  const s = JSON.parse(out['summary.json'] as string) as { phases: Record<string, { wall_seconds?: number }> };
  for (const p of Object.values(s.phases)) delete p.wall_seconds;
  out['summary.json'] = JSON.stringify(s);
  delete out['report.md'];
  delete out['report.html'];
  return out;
}
