// Options several rl-adv commands share, and parsers for numeric option values.
import { InvalidArgumentError, Option, type Command } from 'commander';

/** Adds `--corpus FILE`, `--corpus-field NAME` and `--vectorizer FILE` (the two sources exclude each other). */
export function addVectorizerOptions(command: Command): Command {
  return command
    .addOption(
      new Option(
        '--corpus <file>',
        'fit the TF-IDF vectorizer once on this corpus: JSON lines with the text in --corpus-field, or .txt one document a line',
      ).conflicts('vectorizer'),
    )
    .option('--corpus-field <name>', 'the JSON-lines field of --corpus holding each document', 'question')
    .option('--vectorizer <file>', 'a vectorizer saved by "rl-adv tfidf fit" (instead of --corpus)');
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
