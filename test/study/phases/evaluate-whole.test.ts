// A backend that keeps a finished eval job's file (as TRL and Tinker do) and a resumed eval phase: a kept eval file
// cut at a line boundary is not used; it is evaluated again, and the run ends with the uninterrupted run's bytes. A
// backend whose eval still answers other items is named (driver_failed).
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readJsonl } from '../../../src/study/backends/files.js';
import type { EvalRow, StudyBackend } from '../../../src/study/backends/types.js';
import type { StudyOptions } from '../../../src/study/options.js';
import { runStudy } from '../../../src/study/run.js';
import { createSimBackend } from '../../../src/study/sim/backend.js';
import { SIM_CLUSTERED_DEFAULTS } from '../../../src/study/sim/world.js';
import { specPath } from '../../helpers/paths.js';

/** The sim, but an eval file already written is read back instead of evaluated. */
function keepingBackend(): StudyBackend {
  const sim = createSimBackend({ ...SIM_CLUSTERED_DEFAULTS, coupling: 0.9 });
  return { ...sim, evaluate: (ctx, checkpoint, items, out) => (existsSync(out) ? Promise.resolve(readJsonl<EvalRow>(out)) : sim.evaluate(ctx, checkpoint, items, out)) };
}

const options = (dir: string, backend: StudyBackend, notes: string[] = []): StudyOptions => ({
  specPath,
  dir,
  backend,
  questions: 'clustered',
  steps: 6,
  evalLimit: 40,
  calibrationBatches: 200,
  calibrationBootstrap: 0,
  onPhase: (e) => {
    if (e.kind === 'note') notes.push(e.line);
  },
});

/** Marks the eval and decision phases not done, as a run killed in its eval phase leaves summary.json. */
function undoEval(dir: string): void {
  const file = path.join(dir, 'summary.json');
  const summary = JSON.parse(readFileSync(file, 'utf8')) as { phases: Record<string, unknown> };
  delete summary.phases.eval;
  delete summary.phases.decision;
  writeFileSync(file, JSON.stringify(summary));
}

describe('a kept eval file of an interrupted eval phase', () => {
  it('cut at a line boundary: evaluated again, the uninterrupted bytes', async () => {
    const dir = path.join(mkdtempSync(path.join(tmpdir(), 'rl-adv-eval-whole-')), 'run');
    expect((await runStudy(options(dir, keepingBackend()))).exitCode).toBe(0);
    const file = path.join(dir, 'eval', 'gs1_tfidf_g1.jsonl');
    const whole = readFileSync(file);
    undoEval(dir);
    writeFileSync(file, whole.toString('utf8').split('\n').slice(0, 25).join('\n') + '\n');
    const notes: string[] = [];
    expect((await runStudy({ ...options(dir, keepingBackend(), notes), resume: true })).exitCode).toBe(0);
    expect(notes).toContain(`${file}: 25 rows for 40 items (a kept file cut short or of another run); evaluating again`);
    expect(readFileSync(file).equals(whole)).toBe(true);
  });

  it('a backend whose eval answers fewer items than asked: named, exit 2 in the CLI (driver_failed)', async () => {
    const dir = path.join(mkdtempSync(path.join(tmpdir(), 'rl-adv-eval-whole-')), 'run');
    const sim = createSimBackend({ ...SIM_CLUSTERED_DEFAULTS, coupling: 0.9 });
    const short: StudyBackend = { ...sim, evaluate: async (ctx, c, items, out) => (await sim.evaluate(ctx, c, items, out)).slice(1) };
    // The pilot's eval of the starting policy is the first the backend answers.
    await expect(runStudy(options(dir, short))).rejects.toThrow(/pilot\/eval_init\.jsonl: the sim backend's eval gave 99 rows for 100 items/);
  });
});
