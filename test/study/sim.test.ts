import { fc, test as fcTest } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { loadGsm8k } from '../../src/data/gsm8k.js';
import { TfidfVectorizer } from '../../src/text/tfidf.js';
import { normal, shuffledOrder, stream } from '../../src/study/sim/random.js';
import {
  adamStep,
  buildSimWorld,
  difficulty,
  dotRow,
  greedyCorrect,
  initialAdam,
  initialPolicy,
  policyGradient,
  sampleRollout,
  SIM_CLUSTERED_DEFAULTS,
  SIM_DEFAULTS,
  simDefaults,
  successProbability,
  type SimRollout,
} from '../../src/study/sim/world.js';
import { gsm8kDir } from '../helpers/paths.js';

const train = loadGsm8k(gsm8kDir, 'train').map((item) => item.question);
const test = loadGsm8k(gsm8kDir, 'test').map((item) => item.question);
const vectorizer = TfidfVectorizer.fit(train);
const world = buildSimWorld(vectorizer, train, test, 0);

describe('shuffledOrder', () => {
  it('is a permutation, the same for the same seed and different for another', () => {
    const a = shuffledOrder(7473, 0);
    expect([...a].sort((x, y) => x - y)).toEqual(Array.from({ length: 7473 }, (_, i) => i));
    expect(shuffledOrder(7473, 0)).toEqual(a);
    expect(shuffledOrder(7473, 1)).not.toEqual(a);
  });
});

describe('random streams', () => {
  it('normal draws have mean about 0 and variance about 1', () => {
    const rng = stream(0, 'test/normal');
    const n = 20000;
    let s = 0;
    let s2 = 0;
    for (let i = 0; i < n; i++) {
      const z = normal(rng);
      s += z;
      s2 += z * z;
    }
    // Standard errors: 1/sqrt(n) = 0.007 for the mean, sqrt(2/n) = 0.01 for the variance.
    expect(Math.abs(s / n)).toBeLessThan(0.03);
    expect(Math.abs(s2 / n - 1)).toBeLessThan(0.05);
  });
});

describe('difficulty', () => {
  fcTest.prop([fc.double({ min: -6, max: 6, noNaN: true }), fc.double({ min: 0.001, max: 2, noNaN: true })])(
    'is increasing in z',
    (z, dz) => {
      expect(difficulty(SIM_DEFAULTS, z + dz)).toBeGreaterThan(difficulty(SIM_DEFAULTS, z));
    },
  );
});

describe('simDefaults', () => {
  it('is the record-calibrated SIM_DEFAULTS for GSM8K and the same knobs with the step at the median for the clustered set', () => {
    expect(simDefaults('gsm8k')).toBe(SIM_DEFAULTS);
    expect(simDefaults('clustered')).toBe(SIM_CLUSTERED_DEFAULTS);
    expect(SIM_CLUSTERED_DEFAULTS).toEqual({ ...SIM_DEFAULTS, stepCenter: 0 });
    // beta(z) = z + 3 tanh(z / 0.2): the step's midpoint is at z = 0, so half of z ~ N(0, 1) lies below it.
    expect(difficulty(SIM_CLUSTERED_DEFAULTS, 0)).toBe(0);
    expect(difficulty(SIM_CLUSTERED_DEFAULTS, -1)).toBeCloseTo(-1 - 3 * Math.tanh(5), 12);
  });
});

describe('the simulated world', () => {
  it('matches the record at the defaults: greedy accuracy near 0.71, mean reward near 0.54 over all questions', () => {
    const policy = initialPolicy(world);
    let correct = 0;
    for (let q = 0; q < test.length; q++) if (greedyCorrect(policy, world.test, q)) correct++;
    let reward = 0;
    for (let q = 0; q < train.length; q++) {
      const p = successProbability(policy, world.train, q);
      reward += p - 0.1 * SIM_DEFAULTS.formatFailure * (1 - p);
    }
    // Population targets of docs/sim.md: P(p >= 0.5) = 0.71, E[reward] = 0.543; one seed's draw varies a little.
    expect(correct / test.length).toBeGreaterThan(0.64);
    expect(correct / test.length).toBeLessThan(0.78);
    expect(reward / train.length).toBeGreaterThan(0.48);
    expect(reward / train.length).toBeLessThan(0.6);
  });

  it('is the same for the same seed and differs for another', () => {
    const again = buildSimWorld(vectorizer, train, test, 0);
    expect(again.train.beta).toEqual(world.train.beta);
    const other = buildSimWorld(vectorizer, train, test, 1);
    expect(other.train.beta).not.toEqual(world.train.beta);
  });

  it('u = 0 makes beta a function of the individual draw only; u = 1 of the prompt only', () => {
    const w0 = buildSimWorld(vectorizer, train, test, 0, { ...SIM_DEFAULTS, coupling: 0 });
    const w1 = buildSimWorld(vectorizer, train, test, 0, { ...SIM_DEFAULTS, coupling: 1 });
    // Two identical questions get the same beta at u = 1 and (almost surely) different ones at u = 0.
    const twin = buildSimWorld(vectorizer, [train[0] as string, train[0] as string], [], 0, { ...SIM_DEFAULTS, coupling: 1 });
    expect(twin.train.beta[0]).toBe(twin.train.beta[1]);
    const twin0 = buildSimWorld(vectorizer, [train[0] as string, train[0] as string], [], 0, { ...SIM_DEFAULTS, coupling: 0 });
    expect(twin0.train.beta[0]).not.toBe(twin0.train.beta[1]);
    expect(w0.train.beta).not.toEqual(w1.train.beta);
  });

  it('rejects a coupling outside [0, 1]', () => {
    expect(() => buildSimWorld(vectorizer, train.slice(0, 3), [], 0, { ...SIM_DEFAULTS, coupling: 1.5 })).toThrow(/coupling/);
  });
});

describe('rollouts and the policy gradient', () => {
  it('samples correct answers with probability p and format failures with the fixed rate', () => {
    const policy = initialPolicy(world);
    const q = 5;
    const p = successProbability(policy, world.train, q);
    const rng = stream(0, 'test/rollouts');
    const n = 20000;
    let correct = 0;
    let format = 0;
    for (let i = 0; i < n; i++) {
      const r = sampleRollout(world, policy, world.train, q, rng);
      if (r.y === 1) correct++;
      if (r.reward === -0.1) format++;
    }
    expect(Math.abs(correct / n - p)).toBeLessThan(4 * Math.sqrt((p * (1 - p)) / n) + 1e-9);
    const expectedFormat = (1 - p) * SIM_DEFAULTS.formatFailure;
    expect(Math.abs(format / n - expectedFormat)).toBeLessThan(4 * Math.sqrt((expectedFormat * (1 - expectedFormat)) / n) + 1e-9);
  });

  it('the gradient is (1/B) sum A_i (y_i - p_i) [1, v_q] (checked against a direct sum on one coordinate)', () => {
    const rollouts: SimRollout[] = [
      { question: 0, p: 0.3, y: 1, reward: 1 },
      { question: 1, p: 0.8, y: 0, reward: 0 },
      { question: 0, p: 0.3, y: 0, reward: -0.1 },
    ];
    const advantages = [0.5, -0.25, 2];
    const g = policyGradient(world, world.train, rollouts, advantages);
    expect(g[0]).toBeCloseTo((0.5 * 0.7 + -0.25 * -0.8 + 2 * -0.3) / 3, 15);
    const x = world.train.x;
    const t = x.indices[x.indptr[0] as number] as number;
    const v0t = x.data[x.indptr[0] as number] as number;
    let v1t = 0;
    for (let k = x.indptr[1] as number; k < (x.indptr[2] as number); k++) if (x.indices[k] === t) v1t = x.data[k] as number;
    expect(g[t + 1]).toBeCloseTo((0.5 * 0.7 * v0t + -0.25 * -0.8 * v1t + 2 * -0.3 * v0t) / 3, 15);
  });

  it("the score (y - p) is d log P(y) / d logit: a finite-difference check on theta0", () => {
    const policy = initialPolicy(world);
    const q = 11;
    const p = successProbability(policy, world.train, q);
    const h = 1e-6;
    const up = { ...policy, theta0: policy.theta0 + h };
    const pUp = successProbability(up, world.train, q);
    expect((Math.log(pUp) - Math.log(p)) / h).toBeCloseTo(1 - p, 5);
    expect((Math.log(1 - pUp) - Math.log(1 - p)) / h).toBeCloseTo(0 - p, 5);
  });

  it("Adam's first step moves each parameter by lr * g / (|g| + eps) (bias-corrected moments equal g and g^2)", () => {
    const policy = initialPolicy(world);
    const adam = initialAdam(world);
    const g = new Float64Array(world.dims + 1);
    g[0] = 0.2;
    g[3] = -0.004;
    const before = policy.theta0;
    adamStep(policy, adam, g, 0.01);
    expect(policy.theta0 - before).toBeCloseTo((0.01 * 0.2) / (0.2 + 1e-8), 14);
    expect(policy.theta[2]).toBeCloseTo((0.01 * -0.004) / (0.004 + 1e-8), 14);
    expect(policy.theta[0]).toBe(0);
    expect(adam.t).toBe(1);
  });

  it('greedy correctness is p >= 0.5, i.e. logit >= 0', () => {
    const policy = initialPolicy(world);
    for (let q = 0; q < 50; q++) {
      expect(greedyCorrect(policy, world.test, q)).toBe(successProbability(policy, world.test, q) >= 0.5);
    }
    expect(dotRow(world.test.x, 0, policy.theta)).toBe(0);
  });
});
