// A normalisation step that keeps its running moments across batches (ROLL's running statistics).
import { INITIAL_RUNNING_STATE, readRunningState, type RunningState } from './running.js';
import { isRunning, readNormalization, type NormalizationSettings, type NormalizationSpec } from './spec.js';
import { normalizeWith, type NormalizationBatch, type NormalizationResult } from './step.js';

/**
 * The normalisation step with state: each `apply(batch)` normalises the batch and, for a running centre or scale,
 * first merges the batch into the running moments (ROLL's order). `stateDict()` / `loadStateDict()` checkpoint and
 * resume it bit for bit. Settings without a running part keep no state (their stateDict is the initial one).
 * docs/method.md section 2.6.
 *
 * @example
 * ```ts
 * const step = new Normalizer({ centre: 'running', scale: 'running' });
 * step.apply({ values: [1, 0, 1, 0] });
 * const saved = step.stateDict(); // { mean: 0.5, variance: 0.25..., count: 4 }
 * ```
 */
export class Normalizer {
  readonly settings: NormalizationSettings;
  #state: RunningState = INITIAL_RUNNING_STATE;

  /** @throws {@link RlAdvantagesError} for a bad option (see `readNormalization`). */
  constructor(spec?: NormalizationSpec) {
    this.settings = readNormalization(spec);
  }

  /** Whether this step keeps state (a running centre or scale). */
  get stateful(): boolean {
    return isRunning(this.settings);
  }

  /**
   * Normalises one batch and keeps the new running moments.
   *
   * @throws {@link RlAdvantagesError} as `normalizeStep`; the state is unchanged when it throws.
   */
  apply(batch: NormalizationBatch): NormalizationResult {
    const result = normalizeWith(batch, this.settings, this.#state);
    if (result.state !== undefined) this.#state = result.state;
    return result;
  }

  /** The running moments, a plain object for JSON. */
  stateDict(): { mean: number; variance: number; count: number } {
    return { mean: this.#state.mean, variance: this.#state.variance, count: this.#state.count };
  }

  /**
   * Restores moments saved by {@link Normalizer.stateDict}.
   *
   * @throws {@link RlAdvantagesError} (code `bad_state`) for a malformed state.
   */
  loadStateDict(state: unknown): void {
    this.#state = readRunningState(state);
  }
}
