// rl-advantages/data: GSM8K: finding, caching, downloading and verifying it, and grading answers.
// GSM8K grading
export { extractBoxed } from '../grading/boxed.js';
export {
  normalizeAnswer,
  parseExactNumber,
  formatExactNumber,
  exactNumbersEqual,
  MAX_ANSWER_DIGITS,
  type ExactNumber,
} from '../grading/exact-number.js';
export {
  gsm8kReferenceAnswer,
  gradeNumericExact,
  gsm8kReward,
  gradeGsm8kResponse,
  GSM8K_FORMAT_COEF,
  type Gsm8kRewardOptions,
  type Gsm8kGrade,
} from '../grading/gsm8k.js';
// GSM8K data: finding it, the cache, downloading and verifying it
export { gsm8kHowToProvide, loadGsm8k, resolveGsm8kDir, type Gsm8kItem, type Gsm8kSplit } from './gsm8k.js';
export { gsm8kCacheDir, rlAdvCacheDir } from './cache.js';
export { GSM8K_COMMIT, GSM8K_DEFAULT_BASE_URL, GSM8K_FILES, gsm8kBaseUrl, type Gsm8kFile } from './gsm8k-source.js';
export { copyGsm8k, downloadGsm8k, type FetchGsm8kOptions, type FetchGsm8kResult, type Gsm8kProgress } from './download.js';
export { ensureGsm8kDir, isOffline, type EnsureGsm8kOptions } from './ensure.js';
