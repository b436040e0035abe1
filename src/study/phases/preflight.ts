// Phase 1-2 (docs/method.md section 8): the correctness preflight and the offline estimator tests; a failure stops the run.
import path from 'node:path';
import { estimatorPreflight } from '../backends/preflight.js';
import { writeJsonAtomic } from '../backends/files.js';
import type { PhaseContext, PhaseResult, StudyPhaseStep } from './context.js';
import { preflightJob } from './job-graph.js';

async function run(ctx: PhaseContext): Promise<PhaseResult> {
  const library = estimatorPreflight(ctx.spec, ctx.study.vectorizer, ctx.settings.calibrationTasks.map((t) => t.question), ctx.study.kernels);
  const own = await preflightJob(ctx).run();
  const checks = [...library, ...own];
  const passed = checks.every((c) => c.passed);
  ctx.summary.preflight = { passed, checks };
  writeJsonAtomic(path.join(ctx.dir, 'preflight.json'), ctx.summary.preflight);
  const failed = checks.filter((c) => !c.passed).map((c) => c.id);
  return {
    line: passed ? `${checks.length} checks passed` : `FAILED: ${failed.join(', ')}`,
    status: passed ? 'done' : 'failed',
  };
}

/** The preflight phase: preflight.json. */
export const preflightPhase: StudyPhaseStep = { name: 'preflight', run };
