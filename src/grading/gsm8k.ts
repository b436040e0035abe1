// GSM8K reference answers, `numeric_exact` correctness and the cookbook's training reward (docs/method.md section 7).
import { RlAdvantagesError } from '../errors.js';
import { describe } from '../internal/validate.js';
import { extractBoxed } from './boxed.js';
import { exactNumbersEqual, parseExactNumber, trimAnswerWhitespace, type ExactNumber } from './exact-number.js';

/** The weight of the format term in the cookbook's reward, `ProblemEnv(format_coef=0.1)`. */
export const GSM8K_FORMAT_COEF = 0.1;

/** Options for `gsm8kReward` and `gradeGsm8kResponse`. */
export interface Gsm8kRewardOptions {
  /**
   * Whether generation ended cleanly on the renderer's stop sequence (not cut off at `max_tokens`).
   * The cookbook counts the format as valid only when this holds AND a box exists. Default `true`.
   */
  readonly stoppedCleanly?: boolean;
}

/** Everything `gradeGsm8kResponse` decides about one response. */
export interface Gsm8kGrade {
  /** The last `\boxed{...}` content, or `null` when there is none. */
  readonly extracted: string | null;
  /** `numeric_exact` correctness: the boxed answer parses and equals the reference exactly. */
  readonly correct: boolean;
  /** The cookbook's format flag: a box exists and generation stopped cleanly. */
  readonly formatOk: boolean;
  /** `correct + 0.1 · (formatOk − 1)`, one of -0.1, 0, 0.9, 1. */
  readonly reward: number;
}

/**
 * The reference answer of a GSM8K row: the text after the last `####` of its `answer` field, with
 * every comma removed, trimmed of spaces, tabs, line breaks and NBSP (docs/method.md section 7). All 7473 train and 1319 test references are
 * integers such as `72`, `-3` or `1080` (written `1,080` in the data).
 *
 * @param answerField - The row's `answer` field (worked solution ending `#### <answer>`).
 * @returns The reference answer text.
 * @throws {RlAdvantagesError} `no_reference_answer` when there is no `####`; `empty_reference_answer`
 *   when nothing follows it; `bad_type` when `answerField` is not a string.
 * @example
 * ```ts
 * import { gsm8kReferenceAnswer } from 'rl-advantages/data';
 * gsm8kReferenceAnswer('She pays 1,000 + 80 = <<1000+80=1080>>1080.\n#### 1,080'); // '1080'
 * ```
 */
export function gsm8kReferenceAnswer(answerField: string): string {
  if (typeof answerField !== 'string') {
    throw new RlAdvantagesError(`answer must be a string, got ${describe(answerField)}`, {
      code: 'bad_type',
      field: 'answer',
    });
  }
  const marker = answerField.lastIndexOf('####');
  if (marker < 0) {
    throw new RlAdvantagesError(`answer has no "####" marker before the final answer: ${describe(answerField)}`, {
      code: 'no_reference_answer',
      field: 'answer',
    });
  }
  const reference = trimAnswerWhitespace(answerField.slice(marker + 4).replace(/,/g, ''));
  if (reference === '') {
    throw new RlAdvantagesError('answer has nothing after its last "####" marker', {
      code: 'empty_reference_answer',
      field: 'answer',
    });
  }
  return reference;
}

/**
 * `numeric_exact` grading (docs/method.md section 7): correct iff the response's last `\boxed{...}` parses
 * (`parseExactNumber`) and equals the parsed reference as a rational. `18.00` equals `18`, `0.75`
 * equals `3/4` and `\frac{3}{4}`. No box, or a box that does not parse, is incorrect.
 *
 * @param response - The decoded model response.
 * @param referenceAnswer - The reference, e.g. from `gsm8kReferenceAnswer`.
 * @returns Whether the response is correct.
 * @throws {RlAdvantagesError} `bad_reference` when `referenceAnswer` does not parse as a number (a data
 *   error, never a property of the response); `bad_type` when an argument is not a string.
 * @example
 * ```ts
 * import { gradeNumericExact } from 'rl-advantages/data';
 * gradeNumericExact('... so she makes \\boxed{\\$18.00}.', '18'); // true
 * gradeNumericExact('... so she makes $18.', '18'); // false: no box
 * ```
 */
export function gradeNumericExact(response: string, referenceAnswer: string): boolean {
  const reference = parseReference(referenceAnswer);
  return boxedMatches(extractBoxed(checkResponse(response)), reference);
}

/**
 * The cookbook math environment's training reward (docs/method.md section 7; tinker-cookbook
 * `ProblemEnv.step`): `reward = correct + 0.1 · (format_ok − 1)`, where `format_ok` holds when the
 * response has a `\boxed{...}` AND generation stopped cleanly on the stop sequence.
 *
 * | box | stopped cleanly | correct | reward |
 * |-----|-----------------|---------|--------|
 * | yes | yes             | yes     | 1      |
 * | yes | no (truncated)  | yes     | 0.9    |
 * | yes | yes             | no      | 0      |
 * | yes | no              | no      | -0.1   |
 * | no  | either          | no      | -0.1   |
 *
 * 0.9 is reachable only through `stoppedCleanly: false`, because correctness needs a box.
 *
 * @param response - The decoded model response.
 * @param referenceAnswer - The reference, e.g. from `gsm8kReferenceAnswer`.
 * @param options - `stoppedCleanly` (default `true`).
 * @returns One of -0.1, 0, 0.9, 1 (the float64 values of `0 + 0.1·(0−1)` etc.).
 * @throws {RlAdvantagesError} as `gradeNumericExact`; `bad_type` when `stoppedCleanly` is not a boolean.
 * @example
 * ```ts
 * import { gsm8kReward } from 'rl-advantages/data';
 * gsm8kReward('\\boxed{72}', '72'); // 1
 * gsm8kReward('\\boxed{72}', '72', { stoppedCleanly: false }); // 0.9
 * gsm8kReward('\\boxed{70}', '72'); // 0
 * gsm8kReward('72', '72'); // -0.1
 * ```
 */
export function gsm8kReward(response: string, referenceAnswer: string, options: Gsm8kRewardOptions = {}): number {
  return gradeGsm8kResponse(response, referenceAnswer, options).reward;
}

/**
 * Grades one response and returns every part of the decision: the extracted box, `numeric_exact`
 * correctness, the format flag and the training reward (see `gsm8kReward` for the formula).
 *
 * @throws {RlAdvantagesError} as `gsm8kReward`.
 * @example
 * ```ts
 * import { gradeGsm8kResponse } from 'rl-advantages/data';
 * gradeGsm8kResponse('It is \\boxed{3/4}', '0.75');
 * // { extracted: '3/4', correct: true, formatOk: true, reward: 1 }
 * ```
 */
export function gradeGsm8kResponse(
  response: string,
  referenceAnswer: string,
  options: Gsm8kRewardOptions = {},
): Gsm8kGrade {
  const reference = parseReference(referenceAnswer);
  const text = checkResponse(response);
  const stoppedCleanly = options.stoppedCleanly ?? true;
  if (typeof stoppedCleanly !== 'boolean') {
    throw new RlAdvantagesError(`options.stoppedCleanly must be a boolean, got ${describe(stoppedCleanly)}`, {
      code: 'bad_type',
      field: 'options.stoppedCleanly',
    });
  }
  const extracted = extractBoxed(text);
  const correct = boxedMatches(extracted, reference);
  const formatOk = stoppedCleanly && extracted !== null;
  const reward = Number(correct) + GSM8K_FORMAT_COEF * (Number(formatOk) - 1);
  return { extracted, correct, formatOk, reward };
}

function boxedMatches(boxed: string | null, reference: ExactNumber): boolean {
  if (boxed === null) return false;
  const given = parseExactNumber(boxed);
  return given !== null && exactNumbersEqual(given, reference);
}

function parseReference(referenceAnswer: string): ExactNumber {
  if (typeof referenceAnswer !== 'string') {
    throw new RlAdvantagesError(`referenceAnswer must be a string, got ${describe(referenceAnswer)}`, {
      code: 'bad_type',
      field: 'referenceAnswer',
    });
  }
  const reference = parseExactNumber(referenceAnswer);
  if (reference === null) {
    throw new RlAdvantagesError(`referenceAnswer must be a number, got ${describe(referenceAnswer)}`, {
      code: 'bad_reference',
      field: 'referenceAnswer',
    });
  }
  return reference;
}

function checkResponse(response: string): string {
  if (typeof response !== 'string') {
    throw new RlAdvantagesError(`response must be a string, got ${describe(response)}`, {
      code: 'bad_type',
      field: 'response',
    });
  }
  return response;
}
