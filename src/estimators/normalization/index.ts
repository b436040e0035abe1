// The normalisation step: options, presets, the one-batch function and the stateful form.
export {
  DEFAULT_NORMALIZATION,
  NORMALIZATION_CHOICES,
  readNormalization,
  type Centre,
  type EpsilonMode,
  type NormalizationSettings,
  type NormalizationSpec,
  type Scale,
  type Singleton,
  type Variance,
  type Weights,
} from './spec.js';
export { normalizeStep, type NormalizationBatch, type NormalizationDiagnostics, type NormalizationResult } from './step.js';
export { Normalizer } from './normalizer.js';
export { INITIAL_RUNNING_STATE, type RunningState } from './running.js';
export { NORMALIZATION_PRESETS, NORMALIZATION_PRESET_NAMES, normalizationPreset, type NormalizationPreset } from './presets.js';
