// Options several rl-adv commands share, and parsers for numeric option values.
import { InvalidArgumentError, Option, type Command } from 'commander';
import { inputOption } from './outputs.js';

/** Adds `--corpus FILE`, `--corpus-field NAME` and `--vectorizer FILE` (the two sources exclude each other). */
export function addVectorizerOptions(command: Command): Command {
  return command
    .addOption(
      inputOption(
        '--corpus <file>',
        'fit the TF-IDF vectorizer once on this corpus: JSON lines with the text in --corpus-field, or .txt one document a line',
      ).conflicts('vectorizer'),
    )
    .option('--corpus-field <name>', 'the JSON-lines field of --corpus holding each document', 'question')
    .addOption(inputOption('--vectorizer <file>', 'a vectorizer saved by "rl-adv tfidf fit" (instead of --corpus)'));
}

/** Parser for an option that must be an integer >= min. */
export function integerOption(min: number): (value: string) => number {
  return (value: string) => {
    const n = Number(value);
    if (!/^[-+]?\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < min) {
      throw new InvalidArgumentError(`must be an integer >= ${min}.`);
    }
    return n;
  };
}

/** Parser for a comma-separated list of non-empty names. */
export function listOption(value: string): string[] {
  const names = value.split(',').map((s) => s.trim());
  if (names.length === 0 || names.some((s) => s === '')) {
    throw new InvalidArgumentError('must be a comma-separated list of names, e.g. loo_batch_mean,tfidf_kernel_loo_T0.1.');
  }
  return names;
}

/**
 * A library message in command-line words: each camelCase option name of `flags` (e.g. `batchSize`)
 * becomes its flag (`--batch-size`). Plain-word names (`batches`, `seed`) are left alone, since they
 * also occur as ordinary words.
 */
export function flagNames(message: string, flags: Readonly<Record<string, string>>): string {
  let out = message;
  for (const [name, flag] of Object.entries(flags)) {
    if (/[A-Z]/.test(name)) out = out.replace(new RegExp(`\\b${name}\\b`, 'g'), flag);
  }
  return out;
}

/** Parser for an option that must be a finite number >= 0. */
export function nonNegativeOption(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0) throw new InvalidArgumentError('must be a finite number >= 0.');
  return n;
}

/**
 * Adds the normalisation options of the centred estimators (docs/method.md section 2.1):
 * `--normalize`, `--epsilon`, `--std-floor`, and the group estimators' `--singleton`.
 */
export function addNormalizeOptions(command: Command): Command {
  return command
    .addOption(new Option('--normalize <mode>', "divide r - b by the group's or the batch's std (default: the estimator's)").choices(['none', 'group', 'batch']))
    .option('--epsilon <x>', "added to the std (default: the estimator's, 1e-6 for most)", nonNegativeOption)
    .option('--std-floor <x>', 'a minimum std (default 0)', nonNegativeOption)
    .addOption(
      new Option('--singleton <mode>', "group estimators: a group of one is an error, gets A = 0, or keeps A = r as verl ('raw')").choices(['error', 'zero', 'raw']),
    );
}

/** The estimator options from {@link addNormalizeOptions}'s flags, as the library names them. */
export function normalizeContext(options: { normalize?: string; epsilon?: number; stdFloor?: number; singleton?: string }): {
  normalize?: 'none' | 'group' | 'batch';
  epsilon?: number;
  stdFloor?: number;
  singleton?: 'error' | 'zero' | 'raw';
} {
  return {
    ...(options.normalize === undefined ? {} : { normalize: options.normalize as 'none' | 'group' | 'batch' }),
    ...(options.epsilon === undefined ? {} : { epsilon: options.epsilon }),
    ...(options.stdFloor === undefined ? {} : { stdFloor: options.stdFloor }),
    ...(options.singleton === undefined ? {} : { singleton: options.singleton as 'error' | 'zero' | 'raw' }),
  };
}

/** The flag a user typed for a library option field (for messages): stdFloor -> --std-floor. */
export const OPTION_FLAGS: Readonly<Record<string, string>> = Object.freeze({
  normalize: '--normalize',
  epsilon: '--epsilon',
  stdFloor: '--std-floor',
  singleton: '--singleton',
});
