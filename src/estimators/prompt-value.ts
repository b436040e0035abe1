import { RlAdvantagesError } from '../errors.js';
import { advantagesFrom, looMeans } from '../internal/batch.js';
import { readPrompts, readRewards } from './batch.js';
import { finishResult } from './diagnostics.js';
import { runMasked } from './mask.js';
import { kernelPrior, parsePriorName } from '../kernels/prompt-prior.js';
import { describe } from '../internal/validate.js';
import { TfidfVectorizer } from '../text/tfidf.js';
import type { RunningNormalizationJSON } from './normalization/stateful.js';
import type { Batch, EstimatorResult } from './types.js';

/** Options of {@link PromptValueEstimator}. */
export interface PromptValueOptions {
  /** `'ema'` (the default): v <- decay v + (1 - decay) mean(r); `'beta'`: discounted Beta counts (rewards in [0, 1]). */
  kind?: 'ema' | 'beta';
  /** In (0, 1] (`'beta'`) or [0, 1) (`'ema'`). Default 0.9 for `'ema'`, 1 (no forgetting) for `'beta'`. */
  decay?: number;
  /** The value of an unseen prompt (and the kernel prior's fallback). Default 0.5. */
  prior?: number;
  /** n0 > 0, the pseudo-count of a `'beta'` prior: alpha = v0 n0, beta = (1 - v0) n0. Default 2. */
  priorStrength?: number;
}

/** A checkpoint of a {@link PromptValueEstimator}: plain JSON, restored bit for bit by `fromJSON`. */
export interface PromptValueJSON {
  readonly format: 'rl-advantages/prompt_value';
  readonly version: 1;
  readonly name: string;
  readonly options: Required<PromptValueOptions>;
  /** Updates applied so far. */
  readonly steps: number;
  /** [prompt, value] (`'ema'`) or [prompt, alpha, beta] (`'beta'`), in first-seen order. */
  readonly entries: readonly (readonly [string, number] | readonly [string, number, number])[];
}

/** An estimator that keeps state across training steps: compute(batch), then update(batch). */
export interface StatefulEstimator {
  readonly name: string;
  /** The advantages of one step, from the state before this step (does not change the state). */
  compute(batch: Batch): EstimatorResult;
  /** Takes the step's rewards into the state (masked rollouts are skipped). */
  update(batch: Batch): void;
  /** A checkpoint: a {@link PromptValueJSON} for `prompt_value`, a `RunningNormalizationJSON` for `roll_running`. */
  toJSON(): PromptValueJSON | RunningNormalizationJSON;
}

function fail(field: string, message: string): never {
  throw new RlAdvantagesError(`${field} ${message}`, { code: 'bad_option', field });
}

function checkOptions(options: PromptValueOptions | undefined): Required<PromptValueOptions> {
  const o = options ?? {};
  const kind = o.kind ?? 'ema';
  if (kind !== 'ema' && kind !== 'beta') fail('kind', `must be 'ema' or 'beta', got ${describe(kind)}`);
  const decay = o.decay ?? (kind === 'ema' ? 0.9 : 1);
  const decayOk = typeof decay === 'number' && (kind === 'ema' ? decay >= 0 && decay < 1 : decay > 0 && decay <= 1);
  if (!decayOk) fail('decay', `must be in ${kind === 'ema' ? '[0, 1)' : '(0, 1]'} for kind '${kind}', got ${describe(decay)}`);
  const prior = o.prior ?? 0.5;
  if (typeof prior !== 'number' || !Number.isFinite(prior) || (kind === 'beta' && (prior < 0 || prior > 1))) {
    fail('prior', `must be a finite number${kind === 'beta' ? ' in [0, 1]' : ''}, got ${describe(prior)}`);
  }
  const priorStrength = o.priorStrength ?? 2;
  if (typeof priorStrength !== 'number' || !Number.isFinite(priorStrength) || priorStrength <= 0) {
    fail('priorStrength', `must be a finite number > 0, got ${describe(priorStrength)}`);
  }
  return { kind, decay, prior, priorStrength };
}

/**
 * A per-prompt value baseline that learns across steps (ours, after SPO, https://arxiv.org/abs/2509.13232):
 * b_i = v(x_i) before this step's update, A_i = r_i - b_i. `'ema'`: v <- decay v + (1 - decay) mean
 * of the step's rewards for the prompt; `'beta'`: alpha <- decay alpha + sum r, beta <- decay beta +
 * sum (1 - r), v = alpha / (alpha + beta). An unseen prompt starts from `prior`, or with
 * `temperature` (name `prompt_value_tfidf_kernel_loo_T<T>`) from the TF-IDF kernel-weighted mean of
 * the values of the prompts seen so far (GS1 + SPO). b_i never uses this step's rewards (w_ii = 0).
 * docs/method.md section 2.2.
 *
 * @example
 * ```ts
 * const estimator = createStatefulEstimator('prompt_value');
 * const { advantages } = estimator.compute({ rewards, prompts }); // train on these
 * estimator.update({ rewards, prompts });
 * const saved = JSON.stringify(estimator); // checkpoint; PromptValueEstimator.fromJSON(JSON.parse(saved)) resumes
 * ```
 */
export class PromptValueEstimator implements StatefulEstimator {
  readonly name: string;
  readonly #options: Required<PromptValueOptions>;
  readonly #temperature: number | undefined;
  readonly #vectorizer: TfidfVectorizer | undefined;
  /** prompt -> [value] or [alpha, beta], in first-seen order. */
  readonly #state = new Map<string, number[]>();
  #steps = 0;

  /**
   * @param temperature - a TF-IDF kernel prior's T (needs `vectorizer`), or undefined for the constant prior.
   * @throws {@link RlAdvantagesError} for a bad option, or a kernel prior without a vectorizer.
   */
  constructor(name: string, options: PromptValueOptions = {}, temperature?: number, vectorizer?: TfidfVectorizer) {
    this.name = name;
    this.#options = checkOptions(options);
    if (temperature !== undefined && !(vectorizer instanceof TfidfVectorizer)) {
      throw new RlAdvantagesError(`${name} needs context.vectorizer for its TF-IDF kernel prior`, {
        code: 'missing_field',
        field: 'vectorizer',
      });
    }
    this.#temperature = temperature;
    this.#vectorizer = vectorizer;
  }

  #value(entry: number[]): number {
    return this.#options.kind === 'ema' ? (entry[0] as number) : (entry[0] as number) / ((entry[0] as number) + (entry[1] as number));
  }

  /** The value of each prompt from the current state (priors for unseen prompts). */
  #values(prompts: readonly string[]): Map<string, number> {
    const out = new Map<string, number>();
    const unseen: string[] = [];
    for (const p of prompts) {
      if (out.has(p)) continue;
      const entry = this.#state.get(p);
      if (entry === undefined) {
        unseen.push(p);
        out.set(p, this.#options.prior);
      } else out.set(p, this.#value(entry));
    }
    if (this.#temperature !== undefined && unseen.length > 0 && this.#state.size > 0) {
      const seen = [...this.#state.keys()];
      const values = [...this.#state.values()].map((e) => this.#value(e));
      const priors = kernelPrior(this.#vectorizer as TfidfVectorizer, unseen, seen, values, new Float64Array(seen.length).fill(1), this.#temperature, () => false);
      unseen.forEach((p, u) => out.set(p, priors[u] as number));
    }
    return out;
  }

  #checkRewards(rewards: Float64Array): void {
    if (this.#options.kind !== 'beta') return;
    rewards.forEach((r, i) => {
      if (r < 0 || r > 1) {
        throw new RlAdvantagesError(`rewards[${i}] must be in [0, 1] for prompt_value kind 'beta', got ${r}`, {
          code: 'bad_value',
          field: 'rewards',
          index: i,
        });
      }
    });
  }

  /** See {@link StatefulEstimator.compute}. @throws {@link RlAdvantagesError} for a bad reward or missing prompts. */
  compute(batch: Batch): EstimatorResult {
    return runMasked(batch, (b) => {
      const rewards = readRewards(b, 1, this.name);
      this.#checkRewards(rewards);
      const prompts = readPrompts(b, rewards.length, this.name);
      const values = this.#values(prompts);
      const baselines = Float64Array.from(prompts, (p) => values.get(p) as number);
      return finishResult(b, rewards, { advantages: advantagesFrom(rewards, baselines), baselines, looMean: looMeans(rewards), maxSelfWeight: 0 });
    });
  }

  /** See {@link StatefulEstimator.update}. @throws {@link RlAdvantagesError} as `compute`. */
  update(batch: Batch): void {
    // The same checks and the same subset as compute: masked rollouts carry no reward.
    let rewards: Float64Array = new Float64Array(0);
    let prompts: readonly string[] = [];
    runMasked(batch, (b) => {
      rewards = readRewards(b, 1, this.name);
      this.#checkRewards(rewards);
      prompts = readPrompts(b, rewards.length, this.name);
      return finishResult(b, rewards, { advantages: rewards, baselines: rewards, looMean: rewards, maxSelfWeight: 0 });
    });
    const priors = this.#values(prompts); // every prior from the state before this step
    const sums = new Map<string, [number, number]>();
    prompts.forEach((p, i) => {
      const s = sums.get(p) ?? [0, 0];
      s[0] += rewards[i] as number;
      s[1] += 1;
      sums.set(p, s);
    });
    const { kind, decay, priorStrength } = this.#options;
    for (const [p, [sum, n]] of sums) {
      let entry = this.#state.get(p);
      if (entry === undefined) {
        const v0 = priors.get(p) as number;
        entry = kind === 'ema' ? [v0] : [v0 * priorStrength, (1 - v0) * priorStrength];
        this.#state.set(p, entry);
      }
      if (kind === 'ema') entry[0] = decay * (entry[0] as number) + (1 - decay) * (sum / n);
      else {
        entry[0] = decay * (entry[0] as number) + sum;
        entry[1] = decay * (entry[1] as number) + (n - sum);
      }
    }
    this.#steps++;
  }

  /** A checkpoint (plain JSON; numbers round-trip exactly). */
  toJSON(): PromptValueJSON {
    const entries = [...this.#state].map(([p, e]) => (e.length === 1 ? [p, e[0]] : [p, e[0], e[1]]) as [string, number] | [string, number, number]);
    return { format: 'rl-advantages/prompt_value', version: 1, name: this.name, options: { ...this.#options }, steps: this.#steps, entries };
  }

  /**
   * Restores a checkpoint from {@link PromptValueEstimator.toJSON}; the vectorizer (for a kernel
   * prior) is given again.
   *
   * @throws {@link RlAdvantagesError} for a malformed checkpoint (naming the field and index).
   */
  static fromJSON(json: PromptValueJSON, context: { vectorizer?: TfidfVectorizer } = {}): PromptValueEstimator {
    if (typeof json !== 'object' || json === null || json.format !== 'rl-advantages/prompt_value' || json.version !== 1) {
      throw new RlAdvantagesError('not a prompt_value checkpoint (format rl-advantages/prompt_value, version 1)', { code: 'bad_checkpoint', field: 'format' });
    }
    const match = typeof json.name === 'string' ? /^prompt_value(?:_tfidf_kernel_loo_T(.+))?$/.exec(json.name) : null;
    if (match === null) throw new RlAdvantagesError(`name must be prompt_value or prompt_value_tfidf_kernel_loo_T<T>, got ${describe(json.name)}`, { code: 'bad_checkpoint', field: 'name' });
    const temperature = match[1] === undefined ? undefined : parsePriorName(`tfidf_kernel_loo_T${match[1]}`, 'name');
    const estimator = new PromptValueEstimator(json.name, json.options, temperature, context.vectorizer);
    if (!Array.isArray(json.entries)) throw new RlAdvantagesError('entries must be an array', { code: 'bad_checkpoint', field: 'entries' });
    const width = estimator.#options.kind === 'ema' ? 2 : 3;
    json.entries.forEach((entry, i) => {
      const ok = Array.isArray(entry) && entry.length === width && typeof entry[0] === 'string' && entry.slice(1).every((x) => typeof x === 'number' && Number.isFinite(x));
      if (!ok) throw new RlAdvantagesError(`entries[${i}] must be [prompt, ${width === 2 ? 'value' : 'alpha, beta'}], got ${describe(entry)}`, { code: 'bad_checkpoint', field: 'entries', index: i });
      estimator.#state.set(entry[0], entry.slice(1) as number[]);
    });
    estimator.#steps = typeof json.steps === 'number' && Number.isInteger(json.steps) && json.steps >= 0 ? json.steps : 0;
    return estimator;
  }
}
