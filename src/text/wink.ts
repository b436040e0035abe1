import winkNLP, { type ItemToken } from 'wink-nlp';
import model from 'wink-eng-lite-web-model';
import type { Tokenizer } from './tokenize.js';

/**
 * An alternative English tokenizer built on wink-nlp (with `wink-eng-lite-web-model`): words and
 * numbers in wink's normal form (lower-cased, contractions expanded), punctuation and symbols
 * dropped. Use it for a kernel *variant*; the study's kernel is scikit-learn's default
 * ({@link sklearnTokenizer}), and a vectorizer fitted with this tokenizer no longer matches
 * scikit-learn. The model loads once, on the first call of this function.
 *
 * @example
 * ```ts
 * const vectorizer = TfidfVectorizer.fit(questions, { tokenizer: winkTokenizer() });
 * ```
 */
export function winkTokenizer(): Tokenizer {
  nlp ??= winkNLP(model);
  const engine = nlp;
  const its = engine.its;
  return Object.freeze({
    name: 'wink-eng-lite-web-model',
    tokenize(text: string): string[] {
      const terms: string[] = [];
      engine
        .readDoc(text)
        .tokens()
        .each((token: ItemToken) => {
          const type = token.out(its.type);
          if (type === 'word' || type === 'number') terms.push(token.out(its.normal));
        });
      return terms;
    },
  });
}

let nlp: ReturnType<typeof winkNLP> | undefined;
