import { createRequire } from 'node:module';
import type WinkNLP from 'wink-nlp';
import type { ItemToken, Model } from 'wink-nlp';
import type { Tokenizer } from './tokenize.js';

/**
 * An alternative English tokenizer built on wink-nlp (with `wink-eng-lite-web-model`): words and
 * numbers in wink's normal form (lower-cased, contractions split), punctuation and symbols
 * dropped. Use it for a kernel *variant*; the study's kernel is scikit-learn's default
 * ({@link sklearnTokenizer}), and a vectorizer fitted with this tokenizer no longer matches
 * scikit-learn. The model (about 4 MB) loads on the first call, not at import, so users of the
 * default tokenizer never pay for it.
 *
 * @example
 * ```ts
 * winkTokenizer().tokenize("Janet's ducks lay 16 eggs."); // ["janet", "'s", "ducks", "lay", "16", "eggs"]
 * const vectorizer = TfidfVectorizer.fit(questions, { tokenizer: winkTokenizer() });
 * ```
 */
export function winkTokenizer(): Tokenizer {
  if (!nlp) {
    const load = createRequire(import.meta.url);
    const winkNLP = load('wink-nlp') as typeof WinkNLP;
    nlp = winkNLP(load('wink-eng-lite-web-model') as Model);
  }
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

let nlp: ReturnType<typeof WinkNLP> | undefined;
