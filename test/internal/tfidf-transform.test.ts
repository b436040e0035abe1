// The fast transform internals of src/text/tfidf.ts: the ASCII tokenizer path and the row cache
// must never change a result (parity with scikit-learn itself is test/text/tfidf.test.ts).
import { describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { TfidfVectorizer, type CsrMatrix } from '../../src/text/tfidf.js';
import { sklearnTokenizer } from '../../src/text/tokenize.js';

const asciiText = fc.string({ unit: fc.integer({ min: 0, max: 127 }).map((c) => String.fromCharCode(c)), maxLength: 60 });
const anyText = fc.oneof(asciiText, fc.string({ unit: 'grapheme', maxLength: 30 }), fc.string({ unit: 'binary', maxLength: 30 }));

function plain(x: CsrMatrix) {
  return { indptr: Array.from(x.indptr), indices: Array.from(x.indices), data: Array.from(x.data) };
}

describe('TfidfVectorizer fast paths', () => {
  test.prop([anyText])('analyze equals the Unicode regex tokenizer on lower-cased text', (text) => {
    const vectorizer = TfidfVectorizer.fit(['some words']);
    expect(vectorizer.analyze(text)).toEqual(sklearnTokenizer.tokenize(text.toLowerCase()));
  });

  test.prop([fc.array(anyText, { minLength: 1, maxLength: 10 })])(
    'transforming the same documents again (rows from the cache) gives bit-identical matrices',
    (docs) => {
      const corpus = [...docs, 'ensure a token'];
      const a = TfidfVectorizer.fit(corpus);
      const first = plain(a.transform(docs));
      expect(plain(a.transform(docs))).toEqual(first);
      expect(plain(TfidfVectorizer.fit(corpus).transform([...docs].reverse()))).toEqual(plain(a.transform([...docs].reverse())));
    },
  );

  test.prop([fc.array(anyText, { minLength: 1, maxLength: 8 }), fc.array(anyText, { minLength: 1, maxLength: 8 }), fc.boolean()])(
    'the hashed ASCII scan counts exactly what the regex tokenizer and a Map lookup count',
    (corpus, docs, lowercase) => {
      // The same analyzer in another object: the vectorizer cannot recognise it, so it takes the
      // general path (regex tokens, Map lookups) that the hashed scan must reproduce.
      const regexOnly = { name: 'sklearn-copy', tokenize: (text: string) => sklearnTokenizer.tokenize(text) };
      const fitCorpus = [...corpus, 'Mixed CASE words and_under 42', 'ensure a token'];
      const queries = [...docs, ...corpus, 'MIXED case Words AND_UNDER 42 42 ab', 'a b c', ''];
      const fast = TfidfVectorizer.fit(fitCorpus, { lowercase });
      const general = TfidfVectorizer.fit(fitCorpus, { lowercase, tokenizer: regexOnly });
      expect(fast.terms).toEqual(general.terms);
      expect(plain(fast.transform(queries))).toEqual(plain(general.transform(queries)));
    },
  );

  it('stays exact after the cache evicts rows (more distinct documents than it keeps)', () => {
    const docs = Array.from({ length: 9000 }, (_, i) => `document number w${i} with word${i % 97} and the ${i % 5 === 0 ? 'cat' : 'dog'}`);
    const vectorizer = TfidfVectorizer.fit(docs);
    const fresh = plain(TfidfVectorizer.fit(docs).transform(docs.slice(0, 50)));
    vectorizer.transform(docs); // fills the cache past its size: the first rows are evicted
    expect(plain(vectorizer.transform(docs.slice(0, 50)))).toEqual(fresh);
    expect(plain(vectorizer.transform(docs.slice(0, 50)))).toEqual(fresh);
  });

  it('returns matrices the caller may modify without changing later results', () => {
    const vectorizer = TfidfVectorizer.fit(['the cat sat', 'the dog sat']);
    const x = vectorizer.transform(['the cat']);
    const before = Array.from(x.data);
    x.data.fill(123);
    x.indices.fill(0);
    const again = vectorizer.transform(['the cat']);
    expect(Array.from(again.data)).toEqual(before);
  });
});
