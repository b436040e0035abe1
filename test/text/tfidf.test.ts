// Parity with scikit-learn's TfidfVectorizer. Expected values: test/fixtures/*.json, written by
// test/fixtures/generate_fixtures.py with Debian's python3-sklearn (version recorded in the fixture).
import { describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { RlAdvantagesError, TfidfVectorizer, sklearnTokenizer, winkTokenizer, type CsrMatrix } from '../../src/index.js';
import { maxAbsDiff, readFixture, trainQuestions } from '../helpers/paths.js';

interface FixtureCsr {
  rows: number;
  cols: number;
  indptr: number[];
  indices: number[];
  data: number[];
}
interface Fitted {
  terms: string[];
  idf?: number[];
  token_count_quartiles: [number, number, number];
}
interface GsmFixture extends Fitted {
  versions: Record<string, string>;
  documents: number;
  probe: string[];
  probe_matrix: FixtureCsr;
}
interface AdversarialFixture extends Fitted {
  corpus: string[];
  tokens: string[][];
  matrix: FixtureCsr;
  options_corpus: string[];
  options: (Fitted & { sklearn_kwargs: Record<string, unknown>; matrix: FixtureCsr })[];
}

const TOLERANCE = 1e-12;

function expectCsr(actual: CsrMatrix, expected: FixtureCsr): void {
  expect(actual.rows).toBe(expected.rows);
  expect(actual.cols).toBe(expected.cols);
  expect(Array.from(actual.indptr)).toEqual(expected.indptr);
  expect(Array.from(actual.indices)).toEqual(expected.indices);
  expect(maxAbsDiff(actual.data, expected.data)).toBeLessThanOrEqual(TOLERANCE);
}

function expectFitted(vectorizer: TfidfVectorizer, expected: Fitted): void {
  expect([...vectorizer.vocabulary.keys()]).toEqual(expected.terms);
  expect([...vectorizer.vocabulary.values()]).toEqual(expected.terms.map((_, i) => i));
  if (expected.idf) expect(maxAbsDiff(vectorizer.idf, expected.idf)).toBeLessThanOrEqual(TOLERANCE);
  expect([...vectorizer.tokenCountQuartiles]).toEqual(expected.token_count_quartiles);
}

describe('TfidfVectorizer against scikit-learn on GSM8K', () => {
  const fixture = readFixture<GsmFixture>('tfidf-gsm8k.json');
  const vectorizer = TfidfVectorizer.fit(trainQuestions());

  it('records the scikit-learn version that produced the fixture', () => {
    expect(fixture.versions.sklearn).toMatch(/^\d+\.\d+/);
  });

  it('fits the same vocabulary, idf (within 1e-12) and token-count quartiles on the 7473 train questions', () => {
    expect(vectorizer.documents).toBe(7473);
    expect(vectorizer.documents).toBe(fixture.documents);
    expectFitted(vectorizer, fixture);
  });

  it('transforms test, train and adversarial prompts to the same CSR rows within 1e-12', () => {
    expectCsr(vectorizer.transform(fixture.probe), fixture.probe_matrix);
  });
});

describe('TfidfVectorizer against scikit-learn on adversarial strings', () => {
  const fixture = readFixture<AdversarialFixture>('tfidf-adversarial.json');

  it('tokenizes every adversarial string as scikit-learn does', () => {
    const vectorizer = TfidfVectorizer.fit(fixture.corpus);
    fixture.corpus.forEach((document, i) => expect(vectorizer.analyze(document), document).toEqual(fixture.tokens[i]));
  });

  it('fits and transforms the adversarial corpus within 1e-12', () => {
    const vectorizer = TfidfVectorizer.fit(fixture.corpus);
    expectFitted(vectorizer, fixture);
    expectCsr(vectorizer.transform(fixture.corpus), fixture.matrix);
  });

  const camel: Record<string, string> = {
    sublinear_tf: 'sublinearTf',
    smooth_idf: 'smoothIdf',
    use_idf: 'useIdf',
    norm: 'norm',
    binary: 'binary',
    lowercase: 'lowercase',
  };
  for (const case_ of fixture.options) {
    it(`matches TfidfVectorizer(${JSON.stringify(case_.sklearn_kwargs)})`, () => {
      const options = Object.fromEntries(Object.entries(case_.sklearn_kwargs).map(([k, v]) => [camel[k], v]));
      const vectorizer = TfidfVectorizer.fit(fixture.options_corpus, options);
      expectFitted(vectorizer, case_);
      expectCsr(vectorizer.transform([...fixture.options_corpus, 'the unknown mat']), case_.matrix);
    });
  }
});

describe('TfidfVectorizer behaviour', () => {
  const corpus = ['the cat sat', 'the dog sat', 'a bird flew', 'The CAT and the Hat'];
  const vectorizer = TfidfVectorizer.fit(corpus);

  it('has the analytic idf ln((1 + n) / (1 + df)) + 1', () => {
    // n = 4; "the" occurs in 3 documents, "bird" in 1.
    expect(vectorizer.idf[vectorizer.vocabulary.get('the') as number]).toBe(Math.log(5 / 4) + 1);
    expect(vectorizer.idf[vectorizer.vocabulary.get('bird') as number]).toBe(Math.log(5 / 2) + 1);
  });

  it('gives L2-normalised rows, and a zero row for a document with no known term', () => {
    const x = vectorizer.transform(['the cat', 'zebra !!', '']);
    expect(Array.from(x.indptr)).toEqual([0, 2, 2, 2]);
    const norm = Math.hypot(...Array.from(x.data.subarray(0, 2)));
    expect(Math.abs(norm - 1)).toBeLessThanOrEqual(1e-15);
  });

  it('is immutable: idf is a copy and the vocabulary refuses changes', () => {
    const idf = vectorizer.idf;
    idf[0] = 123;
    expect(vectorizer.idf[0]).not.toBe(123);
    expect(() => (vectorizer.vocabulary as Map<string, number>).set('new', 99)).toThrow(TypeError);
    expect(() => (vectorizer.vocabulary as Map<string, number>).delete('the')).toThrow(TypeError);
    expect(Object.isFrozen(vectorizer)).toBe(true);
  });

  test.prop([fc.array(fc.string({ unit: 'grapheme' }), { minLength: 1, maxLength: 12 })])(
    'toJSON/fromJSON round-trips exactly (through JSON text)',
    (docs) => {
      const fittable = [...docs, 'ensure a token'];
      const original = TfidfVectorizer.fit(fittable);
      const copy = TfidfVectorizer.fromJSON(JSON.stringify(original));
      expect(copy.toJSON()).toEqual(original.toJSON());
      const a = original.transform(fittable);
      const b = copy.transform(fittable);
      expect(Array.from(b.data)).toEqual(Array.from(a.data));
      expect(Array.from(b.indices)).toEqual(Array.from(a.indices));
    },
  );

  test.prop([fc.array(fc.string({ unit: 'binary' }), { minLength: 1, maxLength: 8 })])(
    'the same input gives bit-identical output, and every row has norm 1 or 0',
    (docs) => {
      const fittable = [...docs, 'some words here'];
      const a = TfidfVectorizer.fit(fittable).transform(docs);
      const b = TfidfVectorizer.fit(fittable).transform(docs);
      expect(Array.from(a.data)).toEqual(Array.from(b.data));
      for (let r = 0; r < a.rows; r++) {
        let squares = 0;
        for (let k = a.indptr[r] as number; k < (a.indptr[r + 1] as number); k++) squares += (a.data[k] as number) ** 2;
        if (a.indptr[r] !== a.indptr[r + 1]) expect(Math.abs(Math.sqrt(squares) - 1)).toBeLessThanOrEqual(1e-14);
      }
    },
  );

  it('keeps a vocabulary in code point order with astral characters (as Python sorts)', () => {
    const v = TfidfVectorizer.fit(['\u{1D400}\u{1D401} ｆｆ zz']);
    // U+1D400 (a surrogate pair in UTF-16) sorts after U+FF46 by code point, before it by code unit.
    expect([...v.vocabulary.keys()]).toEqual(['zz', 'ｆｆ', '\u{1D400}\u{1D401}']);
  });

  it('refuses to restore a vectorizer with another tokenizer unless it is given', () => {
    const wink = TfidfVectorizer.fit(["Janet's ducks lay 16 eggs."], { tokenizer: winkTokenizer() });
    expect(wink.options.tokenizer).toBe('wink-eng-lite-web-model');
    expect(() => TfidfVectorizer.fromJSON(wink.toJSON())).toThrow(/options.tokenizer/);
    const restored = TfidfVectorizer.fromJSON(wink.toJSON(), { tokenizer: winkTokenizer() });
    expect([...restored.vocabulary.keys()]).toEqual([...wink.vocabulary.keys()]);
    expect(wink.analyze("Janet's ducks lay 16 eggs.")).toContain('16');
    expect(sklearnTokenizer.tokenize("Janet's ducks lay 16 eggs.")).toEqual(['Janet', 'ducks', 'lay', '16', 'eggs']);
  });
});

describe('TfidfVectorizer bad input', () => {
  it('refuses an empty corpus, a corpus with no tokens, and non-string documents', () => {
    expect(() => TfidfVectorizer.fit([])).toThrow(RlAdvantagesError);
    expect(() => TfidfVectorizer.fit([])).toThrow(/corpus is empty/);
    expect(() => TfidfVectorizer.fit(['', '?!'])).toThrow(/empty vocabulary/);
    expect(() => TfidfVectorizer.fit(['ok doc', 3 as unknown as string])).toThrow(/corpus\[1\] must be a string/);
    const v = TfidfVectorizer.fit(['ok doc']);
    expect(() => v.transform(['fine', null as unknown as string])).toThrow(/docs\[1\] must be a string/);
  });

  it('an empty vocabulary says why: tokens need two word characters (or the custom tokenizer found none)', () => {
    expect(() => TfidfVectorizer.fit(['a b c', 'I x 7 ?'])).toThrow(
      "corpus has 2 documents but no tokens (empty vocabulary): a token is two or more word characters " +
        "(letters, digits or _: scikit-learn's token_pattern (?u)\\b\\w\\w+\\b), so one-letter words, single digits and punctuation give none",
    );
    const none = { name: 'none', tokenize: (): string[] => [] };
    expect(() => TfidfVectorizer.fit(['plenty of words'], { tokenizer: none })).toThrow(
      'corpus has 1 document but no tokens (empty vocabulary): the tokenizer "none" returned no token for any document',
    );
  });

  it('refuses bad options and inconsistent saved JSON, naming the field', () => {
    expect(() => TfidfVectorizer.fit(['a doc'], { norm: 'l3' as 'l1' })).toThrow(/options.norm/);
    expect(() => TfidfVectorizer.fit(['a doc'], { sublinearTf: 'yes' as unknown as boolean })).toThrow(/options.sublinearTf/);
    const json = TfidfVectorizer.fit(['alpha beta', 'beta gamma']).toJSON();
    expect(() => TfidfVectorizer.fromJSON({ ...json, idf: [1] })).toThrow(/idf has 1 values but terms has 3/);
    expect(() => TfidfVectorizer.fromJSON({ ...json, idf: [1, Number.NaN, 2] })).toThrow(/idf\[1\] must be a finite number/);
    expect(() => TfidfVectorizer.fromJSON({ ...json, terms: ['beta', 'alpha', 'gamma'] })).toThrow(/terms\[1\]/);
    expect(() => TfidfVectorizer.fromJSON('{not json')).toThrow(/does not parse/);
    expect(() => TfidfVectorizer.fromJSON({} as never)).toThrow(/format/);
  });
});
