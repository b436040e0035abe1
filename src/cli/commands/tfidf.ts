// rl-adv tfidf fit: fit the prompt vectorizer once and save it, so later commands load it instead
// of refitting (and every run uses the very same vocabulary and idf).
import type { Command } from 'commander';
import { plural } from '../format.js';
import { loadVectorizer, STDIO } from '../io.js';
import { forceOption, inputOption, outputOption, writeOutput } from '../outputs.js';
import { withExamples, type CliIo } from '../core.js';

interface FitOptions {
  corpus: string;
  corpusField: string;
  out: string;
  force?: boolean;
}

async function fit(options: FitOptions, io: CliIo): Promise<void> {
  const vectorizer = await loadVectorizer({ corpus: options.corpus, corpusField: options.corpusField }, io);
  if (vectorizer === undefined) return; // unreachable: --corpus is required
  await writeOutput(options.out, JSON.stringify(vectorizer.toJSON()) + '\n', io, '--out', options.force === true);
  if (options.out !== STDIO) {
    io.stderr.write(
      `rl-adv: fitted on ${plural(vectorizer.documents, 'document')}, ${plural(vectorizer.vocabulary.size, 'term')}; saved to ${options.out}\n`,
    );
  }
}

/** Registers `rl-adv tfidf` and its subcommand `fit`. */
export function register(program: Command, io: CliIo): void {
  const tfidf = program
    .command('tfidf')
    .summary('fit and save the TF-IDF prompt vectorizer')
    .description('The TF-IDF prompt vectorizer of the GS1 kernel (scikit-learn TfidfVectorizer() defaults).');
  withExamples(tfidf, ['rl-adv tfidf fit --corpus train.jsonl --out vectorizer.json']);
  const command = tfidf
    .command('fit')
    .summary('fit the vectorizer on a corpus and save it as JSON')
    .description(
      'Fits the vocabulary and idf on a corpus and writes the vectorizer as JSON, for --vectorizer of ' +
        'advantages, calibrate and serve. The corpus is JSON lines with the text in --corpus-field ' +
        '(default "question", as GSM8K train.jsonl) or a .txt file with one document a line.',
    )
    .addOption(inputOption('--corpus <file>', 'the fitting corpus').makeOptionMandatory())
    .option('--corpus-field <name>', 'the JSON-lines field holding each document', 'question')
    .addOption(outputOption('--out <file>', 'where to write the vectorizer JSON ("-" for standard output)').makeOptionMandatory())
    .addOption(forceOption())
    .action(async (options: FitOptions) => fit(options, io));
  withExamples(command, [
    'rl-adv tfidf fit --corpus ~/.cache/rl-advantages/gsm8k/train.jsonl --out gsm8k-train.tfidf.json',
    'rl-adv tfidf fit --corpus prompts.txt --out prompts.tfidf.json',
  ]);
}
