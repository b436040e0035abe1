// rl-advantages/calibration: B_eff calibration (docs/method.md section 4): calibrateBeff, its figures and JSON.
// B_eff calibration
export {
  calibrateBeff,
  groupCalibrationRows,
  beffRatioFromFigures,
  beffFromFigures,
  DEFAULT_CALIBRATION_ESTIMATOR,
  type CalibrateBeffOptions,
  type BeffCalibration,
  type EstimatorCalibration,
  type CalibrationTask,
  type CalibrationRow,
  type BeffRatioFigures,
  type CalibrationInterval,
  type NoiseModel,
} from './beff.js';
export {
  calibrationJson,
  parseCalibrationJson,
  type CalibrationJson,
  type EstimatorCalibrationJson,
  type VectorizerSource,
} from './json.js';
export { inSampleTasks, type InSampleTasks } from './in-sample.js';
