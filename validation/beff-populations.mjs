// Known-truth populations for validating the B_eff interval (validation/beff-interval.mjs, docs/method.md
// section 4.1). A population is N prompts with known success probabilities p_q; a calibration set is K of them
// drawn without replacement with G Bernoulli(p_q) rewards each (0/1), as the study samples its 64 x 8.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import seedrandom from 'seedrandom';
import { TfidfVectorizer } from '../dist/index.js';
import { SIM_DEFAULTS, clusteredQuestions } from '../dist/study.js';

const sigmoid = (x) => 1 / (1 + Math.exp(-x));

/** Standard normal by Box-Muller from a seedrandom stream. */
function normal(rng) {
  let u = 0;
  while (u === 0) u = rng();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rng());
}

/**
 * null: the GSM8K train questions with the simulator's starting-policy difficulty (docs/sim.md, SIM_DEFAULTS)
 * drawn independently of the prompt: p_q = sigmoid(theta0 + s z + D tanh((z - z_c)/tau)), z ~ N(0, 1) iid.
 * No prompt carries information about another's difficulty, so the kernel cannot beat the batch mean.
 */
export function nullPopulation(gsm8kDir) {
  const prompts = readFileSync(resolve(gsm8kDir, 'train.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l).question);
  const c = SIM_DEFAULTS;
  const rng = seedrandom('rl-adv/validation/null-difficulty');
  const p = Float64Array.from(prompts, () => {
    const z = normal(rng);
    return sigmoid(c.baseLogit + c.difficultyScale * z + c.stepHeight * Math.tanh((z - c.stepCenter) / c.stepWidth));
  });
  return { name: 'null', prompts, p, vectorizer: TfidfVectorizer.fit(prompts) };
}

/** Success rates of the clustered population's 4 families. */
export const FAMILY_SUCCESS = Object.freeze([0.1, 0.4, 0.7, 0.9]);

/**
 * clustered: the first 4 families of the built-in clustered question set (6000 train questions), family f with
 * success logit logit(FAMILY_SUCCESS[f]) plus N(0, 0.5^2) per question. Family mates share most of their
 * difficulty and most of their words, so the kernel truly helps.
 */
export function clusteredPopulation() {
  const { train } = clusteredQuestions({ families: 4, train: 6000, test: 1 });
  const prompts = train.map((q) => q.question);
  const rng = seedrandom('rl-adv/validation/clustered-difficulty');
  const logit = (x) => Math.log(x / (1 - x));
  const p = Float64Array.from(train, (q) => sigmoid(logit(FAMILY_SUCCESS[q.family]) + 0.5 * normal(rng)));
  return { name: 'clustered', prompts, p, vectorizer: TfidfVectorizer.fit(prompts) };
}

/** K distinct prompts of the population with G Bernoulli(p) rewards each, from seedrandom(seed). */
export function drawCalibrationSet(population, K, G, seed) {
  const rng = seedrandom(seed);
  const n = population.prompts.length;
  const order = Int32Array.from({ length: n }, (_, i) => i);
  const tasks = [];
  for (let i = 0; i < K; i++) {
    const j = i + Math.floor(rng() * (n - i));
    const q = order[j];
    order[j] = order[i];
    order[i] = q;
    const p = population.p[q];
    tasks.push({ taskId: `q${q}`, prompt: population.prompts[q], rewards: Array.from({ length: G }, () => (rng() < p ? 1 : 0)) });
  }
  return tasks;
}

/**
 * The population's true ratio Var(A_loo) / Var(A_kernel) for batches of B distinct prompts, where for one batch
 * (docs/method.md section 4; exact given the batch, since rewards are independent Bernoulli(p)):
 *   Var(A_e) = (1/B) sum_i [ p_i (1 - p_i) + (p_i - sum_j w_ij p_j)^2 + sum_j w_ij^2 p_j (1 - p_j) ],
 * w the estimator's weights (LOO: 1/(B - 1); kernel: exp((cos_ij - max_j cos_ij)/T) normalised, j != i).
 * The expectation over batches is a Monte-Carlo mean over `batches` uniform batches (common to both estimators);
 * its standard error is the delta method over the batches.
 */
export function trueRatio(population, { batchSize = 32, temperature = 0.1, batches = 100000, seed = 'truth' } = {}) {
  const x = population.vectorizer.transform(population.prompts);
  const n = population.prompts.length;
  const rng = seedrandom(`rl-adv/validation/${population.name}/${seed}`);
  const dot = (a, b) => {
    let p = x.indptr[a];
    let q = x.indptr[b];
    const pe = x.indptr[a + 1];
    const qe = x.indptr[b + 1];
    let s = 0;
    while (p < pe && q < qe) {
      const cp = x.indices[p];
      const cq = x.indices[q];
      if (cp === cq) s += x.data[p++] * x.data[q++];
      else if (cp < cq) p++;
      else q++;
    }
    return s;
  };
  const B = batchSize;
  const order = Int32Array.from({ length: n }, (_, i) => i);
  const batch = new Int32Array(B);
  const cos = new Float64Array(B * B);
  const w = new Float64Array(B);
  const refs = new Float64Array(batches);
  const ests = new Float64Array(batches);
  for (let m = 0; m < batches; m++) {
    for (let i = 0; i < B; i++) {
      const j = i + Math.floor(rng() * (n - i));
      const q = order[j];
      order[j] = order[i];
      order[i] = q;
      batch[i] = q;
    }
    for (let i = 0; i < B; i++) for (let j = i + 1; j < B; j++) cos[i * B + j] = cos[j * B + i] = dot(batch[i], batch[j]);
    let total = 0;
    let totalVar = 0;
    for (let i = 0; i < B; i++) {
      total += population.p[batch[i]];
      totalVar += population.p[batch[i]] * (1 - population.p[batch[i]]);
    }
    let ref = 0;
    let est = 0;
    for (let i = 0; i < B; i++) {
      const pi = population.p[batch[i]];
      const vi = pi * (1 - pi);
      const loo = (total - pi) / (B - 1);
      ref += vi + (pi - loo) ** 2 + (totalVar - vi) / (B - 1) ** 2;
      let max = -Infinity;
      for (let j = 0; j < B; j++) if (j !== i && cos[i * B + j] > max) max = cos[i * B + j];
      let wsum = 0;
      for (let j = 0; j < B; j++) {
        w[j] = j === i ? 0 : Math.exp((cos[i * B + j] - max) / temperature);
        wsum += w[j];
      }
      let mean = 0;
      let noise = 0;
      for (let j = 0; j < B; j++) {
        const pj = population.p[batch[j]];
        mean += (w[j] / wsum) * pj;
        noise += (w[j] / wsum) ** 2 * pj * (1 - pj);
      }
      est += vi + (pi - mean) ** 2 + noise;
    }
    refs[m] = ref / B;
    ests[m] = est / B;
  }
  let a = 0;
  let c = 0;
  for (let m = 0; m < batches; m++) {
    a += refs[m];
    c += ests[m];
  }
  a /= batches;
  c /= batches;
  const ratio = a / c;
  let s2 = 0;
  for (let m = 0; m < batches; m++) s2 += (refs[m] - ratio * ests[m]) ** 2;
  return { ratio, se: Math.sqrt(s2 / (batches * (batches - 1))) / c, varLoo: a, varKernel: c };
}
