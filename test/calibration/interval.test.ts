// The B_eff ratio's interval (docs/method.md section 4.1), a small version of validation/beff-interval.mjs:
// calibration sets drawn from a population whose difficulty is unrelated to the prompt. The removed percentile
// bootstrap (rebuilt here from calibrateBeff on resampled tasks, as it computed it) is several times wider than
// the spread of the estimate; the delete-one-task jackknife is not.
import seedrandom from 'seedrandom';
import { beforeAll, describe, expect, it } from 'vitest';
import { calibrateBeff, type CalibrationTask } from '../../src/calibration/beff.js';
import { TfidfVectorizer } from '../../src/text/tfidf.js';
import { trainQuestions } from '../helpers/paths.js';

const GS1 = 'tfidf_kernel_loo_T0.1';
let questions: string[];
let vectorizer: TfidfVectorizer;
let p: Float64Array;

beforeAll(() => {
  questions = trainQuestions();
  vectorizer = TfidfVectorizer.fit(questions);
  const rng = seedrandom('interval-test/difficulty');
  // Success rates unrelated to the prompt: a block of hard questions beside solvable ones, as the record's.
  p = Float64Array.from(questions, () => (rng() < 0.2 ? 0.05 * rng() : 0.3 + 0.7 * rng()));
});

function draw(seed: string, K = 64, G = 8): CalibrationTask[] {
  const rng = seedrandom(seed);
  const order = Array.from(questions.keys());
  return Array.from({ length: K }, (_, i) => {
    const j = i + Math.floor(rng() * (order.length - i));
    [order[i], order[j]] = [order[j] as number, order[i] as number];
    const q = order[i] as number;
    return { taskId: `q${q}`, prompt: questions[q] as string, rewards: Array.from({ length: G }, () => (rng() < (p[q] as number) ? 1 : 0)) };
  });
}

/** The removed percentile bootstrap: tasks resampled with replacement (a task drawn twice is two tasks). */
function percentileBootstrap(tasks: CalibrationTask[], seed: string, replicates: number, batches: number): [number, number] {
  const rng = seedrandom(seed);
  const ratios = Array.from({ length: replicates }, (_, r) => {
    const resampled = tasks.map((_, i) => ({ ...(tasks[Math.floor(rng() * tasks.length)] as CalibrationTask), taskId: `r${i}` }));
    return calibrateBeff(resampled, { batches, interval: 'none', vectorizer, seed: `${seed}/${r}` }).estimators[GS1]?.ratio as number;
  });
  ratios.sort((a, b) => a - b);
  return [ratios[Math.round(0.025 * (replicates - 1))] as number, ratios[Math.round(0.975 * (replicates - 1))] as number];
}

describe('the B_eff ratio interval over calibration sets (null population, 64 tasks x 8, B = 32)', () => {
  it('the jackknife is about as wide as the spread of the estimate; the old percentile bootstrap is not', () => {
    const sets = 24;
    const rows = Array.from({ length: sets }, (_, r) => {
      const tasks = draw(`interval-test/set/${r}`);
      const c = calibrateBeff(tasks, { batches: 2000, vectorizer, seed: r }).estimators[GS1];
      const old = r < 8 ? percentileBootstrap(tasks, `interval-test/boot/${r}`, 40, 150) : undefined;
      return { estimate: c?.ratio as number, jackknife: c?.ratioCi95 as [number, number], old };
    });
    const mean = rows.reduce((s, r) => s + r.estimate, 0) / sets;
    const sd = Math.sqrt(rows.reduce((s, r) => s + (r.estimate - mean) ** 2, 0) / (sets - 1));
    const ideal = 3.92 * sd;
    const width = (key: 'jackknife' | 'old') => {
      const kept = rows.filter((r) => r[key] !== undefined);
      return kept.reduce((s, r) => s + ((r[key] as [number, number])[1] - (r[key] as [number, number])[0]), 0) / kept.length;
    };
    // Full validation (validation/beff-interval.mjs, 200 sets): jackknife width / ideal about 1.1; the old one about 5.
    expect(width('jackknife') / ideal).toBeLessThan(1.6);
    expect(width('jackknife') / ideal).toBeGreaterThan(0.6);
    expect(width('old') / ideal).toBeGreaterThan(2.5);
    // The jackknife interval is centred on the estimate (the old one sat about 0.1 above it).
    for (const r of rows) expect(((r.jackknife[0] + r.jackknife[1]) / 2 - r.estimate) / r.estimate).toBeLessThan(1e-12);
  });

  it('has no interval when every batch holds every task (B = K)', () => {
    const tasks = draw('interval-test/full', 8, 4);
    const c = calibrateBeff(tasks, { batchSize: 8, batches: 50, vectorizer });
    expect(c.estimators[GS1]?.ratioCi95).toBeNull();
    expect(c.estimators[GS1]?.ratioTaskSe).toBeNull();
    expect(Number.isFinite(c.estimators[GS1]?.ratio)).toBe(true);
  });
});
