// The running normalisation as a stateful estimator (`roll_running`): checkpoints as plain JSON, restored bit for bit.
import { RlAdvantagesError } from '../../errors.js';
import { describe } from '../../internal/validate.js';
import { normalized } from '../normalized.js';
import type { Batch, EstimatorResult } from '../types.js';
import { INITIAL_RUNNING_STATE, readRunningState, type RunningState } from './running.js';
import { readNormalization, type NormalizationSettings, type NormalizationSpec } from './spec.js';
import { normalizeWith } from './step.js';

/** A checkpoint of a {@link RunningNormalization}. */
export interface RunningNormalizationJSON {
  readonly format: 'rl-advantages/running_normalization';
  readonly version: 1;
  readonly name: string;
  /** Every option of the step, defaults filled in. */
  readonly options: NormalizationSettings;
  readonly mean: number;
  readonly variance: number;
  readonly count: number;
}

/**
 * The normalisation step with a running centre or scale as a stateful estimator (docs/method.md section 2.6):
 * compute(batch) uses the moments merged with the batch, ROLL's order, without keeping them; update(batch) keeps
 * them; toJSON() / {@link RunningNormalization.fromJSON} checkpoint and resume bit for bit.
 *
 * @example
 * ```ts
 * const e = new RunningNormalization('roll_running', { centre: 'running', scale: 'running' });
 * e.compute({ rewards: [1, 0] }); e.update({ rewards: [1, 0] });
 * ```
 */
export class RunningNormalization {
  readonly settings: NormalizationSettings;
  #state: RunningState = INITIAL_RUNNING_STATE;

  /** @throws {@link RlAdvantagesError} for a bad option. */
  constructor(
    readonly name: string,
    spec: NormalizationSpec,
  ) {
    this.settings = readNormalization(spec);
  }

  compute(batch: Batch): EstimatorResult {
    return normalized(batch, this.settings, this.#state);
  }

  update(batch: Batch): void {
    const values = Array.from(batch.rewards as ArrayLike<number>);
    const rows = { values, ...(batch.mask === undefined ? {} : { mask: batch.mask }), ...(batch.groupIds === undefined ? {} : { groupIds: batch.groupIds }), ...(batch.lengths === undefined ? {} : { lengths: batch.lengths }) };
    const result = normalizeWith(rows, this.settings, this.#state);
    if (result.state !== undefined) this.#state = result.state;
  }

  toJSON(): RunningNormalizationJSON {
    return { format: 'rl-advantages/running_normalization', version: 1, name: this.name, options: this.settings, ...this.#state };
  }

  /**
   * Restores a checkpoint of {@link RunningNormalization.toJSON}.
   *
   * @throws {@link RlAdvantagesError} (`bad_checkpoint`) naming the field that is wrong.
   */
  static fromJSON(json: unknown): RunningNormalization {
    if (typeof json !== 'object' || json === null) throw new RlAdvantagesError(`a running normalisation checkpoint must be an object, got ${describe(json)}`, { code: 'bad_checkpoint', field: 'state' });
    const j = json as Record<string, unknown>;
    if (j.format !== 'rl-advantages/running_normalization' || j.version !== 1) {
      throw new RlAdvantagesError(`state.format must be "rl-advantages/running_normalization" version 1, got ${describe(j.format)} ${describe(j.version)}`, { code: 'bad_checkpoint', field: 'state.format' });
    }
    if (typeof j.name !== 'string') throw new RlAdvantagesError(`state.name must be a string, got ${describe(j.name)}`, { code: 'bad_checkpoint', field: 'state.name' });
    const out = new RunningNormalization(j.name, j.options as NormalizationSpec);
    try {
      out.#state = readRunningState({ mean: j.mean, variance: j.variance, count: j.count });
    } catch (error) {
      if (error instanceof RlAdvantagesError) throw new RlAdvantagesError(error.message, { code: 'bad_checkpoint', ...(error.field === undefined ? {} : { field: error.field }) });
      throw error;
    }
    return out;
  }
}
