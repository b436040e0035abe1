// Option parsers `rl-adv study` and its subcommands share.
import { InvalidArgumentError } from 'commander';
import { SIM_QUESTION_SETS, type SimQuestionSet } from '../../study/sim/questions.js';

/** `--sim-questions`: gsm8k or clustered. */
export function questionSetOption(value: string): SimQuestionSet {
  if (!(SIM_QUESTION_SETS as readonly string[]).includes(value)) {
    throw new InvalidArgumentError(`must be ${SIM_QUESTION_SETS.map((q) => `"${q}"`).join(' or ')}.`);
  }
  return value as SimQuestionSet;
}

/** `--sim-coupling`: a number in [0, 1]. */
export function couplingOption(value: string): number {
  const u = Number(value);
  if (value.trim() === '' || !Number.isFinite(u) || u < 0 || u > 1) throw new InvalidArgumentError('must be a number in [0, 1].');
  return u;
}
