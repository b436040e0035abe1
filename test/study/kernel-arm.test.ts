// A revised spec whose treatment arm is a kernel file (`kernel:PATH`, PATH relative to the spec) runs on the sim
// backend end to end: the file is loaded once, the preflight checks its invariants, calibration, pilot and arms use
// it, and the study reaches its decision.
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { KERNEL_FILE_FORMAT, TfidfVectorizer } from '../../src/index.js';
import { parseAdvantageLog } from '../../src/study/gate-metrics.js';
import { studyTrainItems } from '../../src/study/load-questions.js';
import { writeRevisedSpec } from '../../src/study/revise.js';
import { runStudy } from '../../src/study/run.js';
import { createSimBackend } from '../../src/study/sim/backend.js';
import { SIM_CLUSTERED_DEFAULTS } from '../../src/study/sim/world.js';
import { loadStudySpec } from '../../src/study/spec.js';
import { studyOrder, tuningTaskRows } from '../../src/study/task-sets.js';
import { specPath } from '../helpers/paths.js';
import { kernelTunedOn } from '../helpers/study-kernel.js';

const temp = (): string => mkdtempSync(path.join(tmpdir(), 'rl-adv-kernel-arm-'));
const quick = { calibrationBatches: 2000, calibrationBootstrap: 20 } as const;

describe('a study whose treatment arm is a kernel file', () => {
  it('revise -> study: the TF-IDF kernel as a file reaches the same decision as its named estimator', async () => {
    const root = temp();
    const train = studyTrainItems('clustered');
    const spec = loadStudySpec(readFileSync(specPath, 'utf8'));
    const tasks = tuningTaskRows(spec, train, studyOrder('sim', train.length, 0), 100).rows.map((q) => train[q]!);
    // The study's own kernel (TF-IDF fitted on the train questions, T = 0.1) written as a kernel file.
    const vectorizer = TfidfVectorizer.fit(train.map((t) => t.question));
    const kernel = {
      ...kernelTunedOn(tasks),
      format: KERNEL_FILE_FORMAT,
      family: 'tfidf',
      params: { temperature: 0.1, sublinear_tf: false },
      fitted: { vectorizer: vectorizer.toJSON() },
    };
    mkdirSync(path.join(root, 'kernels'));
    writeFileSync(path.join(root, 'kernels', 'kernel.json'), JSON.stringify(kernel));
    const v2 = path.join(root, 'specs', 'spec.v2.json');
    mkdirSync(path.dirname(v2));
    writeRevisedSpec({ specPath, kernelPath: path.join(root, 'kernels', 'kernel.json'), outPath: v2, train });
    const name = 'kernel:../kernels/kernel.json';

    const options = { backend: createSimBackend({ ...SIM_CLUSTERED_DEFAULTS, coupling: 0.9 }), questions: 'clustered', steps: 12, evalLimit: 200, ...quick } as const;
    const viaFile = await runStudy({ ...options, specPath: v2, dir: path.join(root, 'file') });
    const viaName = await runStudy({ ...options, specPath, dir: path.join(root, 'name') });
    expect(viaFile.exitCode).toBe(0);
    const s = viaFile.summary;
    expect(s.preflight?.checks.filter((c) => c.id.startsWith('kernel_file_')).map((c) => [c.id, c.passed])).toEqual([
      ['kernel_file_self_weight_zero', true],
      ['kernel_file_identical_prompts_give_loo_mean', true],
      ['kernel_file_deterministic', true],
    ]);
    expect(Object.keys(s.calibration?.estimators ?? {})).toEqual(['loo_batch_mean', name]);
    expect(s.arms?.gs1_tfidf_g1?.advantage).toBe(name);
    const log = parseAdvantageLog(readFileSync(path.join(root, 'file', 'arms', 'gs1_tfidf_g1', 'advantages.jsonl'), 'utf8'), 'log');
    expect(log[0]?.estimator).toBe(name);
    expect(log.every((row) => row.max_self_weight === 0)).toBe(true);
    // The same kernel under its two names: the same ratio and the same verdict, to rounding of the weights.
    const ratio = (x: typeof s, key: string): number => x.calibration?.estimators[key]?.ratio ?? Number.NaN;
    expect(ratio(s, name)).toBeCloseTo(ratio(viaName.summary, 'tfidf_kernel_loo_T0.1'), 9);
    expect(s.gate?.passed).toBe(true);
    expect(s.decision?.verdict).toBe(viaName.summary.decision?.verdict);
    expect(s.eval?.gs1_tfidf_g1?.accuracy).toBeCloseTo(viaName.summary.eval?.gs1_tfidf_g1?.accuracy ?? Number.NaN, 12);
  });

  it('a kernel:PATH arm whose file is missing is refused before the run folder is touched', async () => {
    const root = temp();
    const raw = JSON.parse(readFileSync(specPath, 'utf8')) as { arms: { advantage: string }[] };
    raw.arms[1]!.advantage = 'kernel:nowhere.json';
    const spec = path.join(root, 'spec.json');
    writeFileSync(spec, JSON.stringify(raw));
    const dir = path.join(root, 'run');
    await expect(runStudy({ specPath: spec, dir, backend: createSimBackend(), questions: 'clustered', ...quick })).rejects.toThrow(
      /spec field "arms\[1\]\.advantage" \(PATH relative to the spec file\): .*nowhere\.json/,
    );
    expect(() => readFileSync(path.join(dir, 'run.json'))).toThrow();
  });
});
