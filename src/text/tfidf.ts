import { RlAdvantagesError } from '../errors.js';
import { ASCII_WORD, buildTermTable, countAsciiTerms, type TermTable } from '../internal/term-table.js';
import { describe } from '../internal/validate.js';
import { compareCodePoints, sklearnTokenizer, type Tokenizer } from './tokenize.js';

/**
 * A sparse matrix in compressed sparse row form, as scipy's `csr_matrix`: row `r` holds the
 * entries `data[k]` at columns `indices[k]` for `k` in `[indptr[r], indptr[r + 1])`, columns
 * ascending within a row.
 */
export interface CsrMatrix {
  readonly rows: number;
  readonly cols: number;
  readonly indptr: Int32Array;
  readonly indices: Int32Array;
  readonly data: Float64Array;
}

/** Options of {@link TfidfVectorizer.fit}; every default is scikit-learn's `TfidfVectorizer()`. */
export interface TfidfOptions {
  /** Lower-case each document (full Unicode lower-casing) before tokenizing. Default `true`. */
  lowercase?: boolean;
  /** Row normalisation: `'l2'` (default), `'l1'`, or `null` for none. */
  norm?: 'l2' | 'l1' | null;
  /** Weight terms by inverse document frequency. Default `true`; `false` makes every idf 1. */
  useIdf?: boolean;
  /** Add one to n and to every df, as if one extra document held every term. Default `true`. */
  smoothIdf?: boolean;
  /** Replace tf by 1 + ln(tf). Default `false`. */
  sublinearTf?: boolean;
  /** Count each term at most once per document. Default `false`. */
  binary?: boolean;
  /** The analyzer; default {@link sklearnTokenizer}. Any other makes a non-scikit-learn variant. */
  tokenizer?: Tokenizer;
}

/** The serialised form of a fitted vectorizer (see {@link TfidfVectorizer.toJSON}). */
export interface TfidfVectorizerJSON {
  format: 'rl-advantages/tfidf-vectorizer';
  version: 1;
  options: {
    lowercase: boolean;
    norm: 'l2' | 'l1' | null;
    useIdf: boolean;
    smoothIdf: boolean;
    sublinearTf: boolean;
    binary: boolean;
    tokenizer: string;
  };
  /** Number of documents in the fitting corpus. */
  documents: number;
  /** Terms in column order (code point order, as scikit-learn's `vocabulary_` values). */
  terms: string[];
  /** idf per column. */
  idf: number[];
  /** Quartiles of the fitting corpus's per-document token counts (edges of `length_bucket_loo`). */
  tokenCountQuartiles: [number, number, number];
}

/** One document's vector: ascending columns and their values. Never mutated once built. */
interface VectorRow {
  readonly indices: Int32Array;
  readonly data: Float64Array;
}

/** Rows per generation of a vectorizer's cache (about 0.5 KB each for GSM8K questions: a few MB). */
const CACHE_ROWS = 4096;
/** Longer documents are not cached: their rows are large and rarely repeat. */
const CACHE_MAX_CHARS = 8192;

type ResolvedOptions = Required<Omit<TfidfOptions, 'tokenizer'>> & { tokenizer: Tokenizer };

/** Validates every option in one place and fills in scikit-learn's defaults. */
function resolveOptions(options: TfidfOptions | undefined): ResolvedOptions {
  const o = options ?? {};
  if (typeof o !== 'object') {
    throw new RlAdvantagesError(`options must be an object, got ${describe(o)}`, { code: 'bad_option', field: 'options' });
  }
  const flag = (name: keyof TfidfOptions, fallback: boolean): boolean => {
    const value = o[name];
    if (value === undefined) return fallback;
    if (typeof value !== 'boolean') {
      throw new RlAdvantagesError(`options.${name} must be a boolean, got ${describe(value)}`, {
        code: 'bad_option',
        field: `options.${name}`,
      });
    }
    return value;
  };
  const norm = o.norm === undefined ? 'l2' : o.norm;
  if (norm !== 'l2' && norm !== 'l1' && norm !== null) {
    throw new RlAdvantagesError(`options.norm must be "l2", "l1" or null, got ${describe(norm)}`, {
      code: 'bad_option',
      field: 'options.norm',
    });
  }
  const tokenizer = o.tokenizer ?? sklearnTokenizer;
  if (typeof tokenizer !== 'object' || typeof tokenizer.tokenize !== 'function' || typeof tokenizer.name !== 'string') {
    throw new RlAdvantagesError('options.tokenizer must be { name: string, tokenize(text): string[] }', {
      code: 'bad_option',
      field: 'options.tokenizer',
    });
  }
  return {
    lowercase: flag('lowercase', true),
    norm,
    useIdf: flag('useIdf', true),
    smoothIdf: flag('smoothIdf', true),
    sublinearTf: flag('sublinearTf', false),
    binary: flag('binary', false),
    tokenizer,
  };
}

/** A Map that refuses changes after construction, so a fitted vocabulary stays fitted. */
class FrozenMap<K, V> extends Map<K, V> {
  constructor(entries: Iterable<readonly [K, V]>) {
    super();
    for (const [key, value] of entries) super.set(key, value);
  }
  override set(): this {
    throw new TypeError('a fitted vocabulary is immutable');
  }
  override delete(): boolean {
    throw new TypeError('a fitted vocabulary is immutable');
  }
  override clear(): void {
    throw new TypeError('a fitted vocabulary is immutable');
  }
}

/**
 * numpy's default percentile (`method='linear'`) of a sorted array, with numpy's own
 * interpolation formula so quartiles agree bit for bit.
 */
function linearPercentile(sorted: Float64Array, q: number): number {
  const position = (sorted.length - 1) * q;
  const lo = Math.floor(position);
  const hi = Math.min(lo + 1, sorted.length - 1);
  const t = position - lo;
  const a = sorted[lo] as number;
  const b = sorted[hi] as number;
  const diff = b - a;
  return t >= 0.5 ? b - diff * (1 - t) : a + diff * t;
}

/**
 * A fitted TF-IDF vectorizer that reproduces scikit-learn's `TfidfVectorizer()`.
 *
 * Formula (docs/method.md section 3): lower-case, tokens are maximal runs of >= 2 word characters
 * (`(?u)\b\w\w+\b`), tf = raw count, idf_t = ln((1 + n) / (1 + df_t)) + 1 over the n fitting
 * documents, vector = tf * idf over the fitted vocabulary (unknown terms dropped), then
 * L2-normalised; an all-zero vector stays zero.
 *
 * How this differs from the textbook tf-idf, as in scikit-learn: the "+1" smoothing in the idf
 * ratio (`smoothIdf`) avoids division by zero, and the "+1" outside the log keeps terms that occur
 * in every document from being ignored entirely.
 *
 * Unlike scikit-learn there is no unfitted state: {@link TfidfVectorizer.fit} returns an
 * immutable fitted object. Reference:
 * https://scikit-learn.org/stable/modules/feature_extraction.html#tfidf-term-weighting
 *
 * @example
 * ```ts
 * const vectorizer = TfidfVectorizer.fit(['the cat sat', 'the dog sat', 'a bird flew']);
 * const x = vectorizer.transform(['the cat']);
 * x.indices; // Int32Array [1, 5]: columns of "cat" and "the"
 * ```
 */
export class TfidfVectorizer {
  /** Term to column index, columns in code point order of the terms. */
  readonly vocabulary: ReadonlyMap<string, number>;
  /** Number of documents the vectorizer was fitted on. */
  readonly documents: number;
  /** Quartiles (numpy linear percentiles 25, 50, 75) of the fitting corpus's token counts. */
  readonly tokenCountQuartiles: readonly [number, number, number];
  readonly #options: ResolvedOptions;
  readonly #idf: Float64Array;
  readonly #terms: readonly string[];
  /** The same mapping as `vocabulary`, in a plain Map for the hot lookup in `transform`. */
  readonly #index: Map<string, number>;
  /** Term counts of the document being vectorised, all 0 between documents. */
  readonly #counts: Int32Array;
  /** The ASCII terms by hash, for the allocation-free scan; null for any other tokenizer. */
  readonly #table: TermTable | null;
  /** Columns of the document being vectorised, first occurrences in order (grown as needed). */
  #touched = new Int32Array(64);
  /**
   * Rows of recently vectorised documents in two generations: when the newer one is full it
   * becomes the older one and the oldest rows are dropped. O(1) per document, at most
   * 2 x CACHE_ROWS rows, and rows in use stay (they are copied forward when hit).
   */
  #cache = new Map<string, VectorRow>();
  #olderCache = new Map<string, VectorRow>();

  private constructor(
    options: ResolvedOptions,
    terms: string[],
    idf: Float64Array,
    documents: number,
    quartiles: [number, number, number],
  ) {
    this.#options = options;
    this.#terms = Object.freeze(terms);
    this.#idf = idf;
    this.documents = documents;
    this.tokenCountQuartiles = Object.freeze(quartiles);
    this.#index = new Map(terms.map((term, index) => [term, index] as const));
    this.#counts = new Int32Array(terms.length);
    this.#table = options.tokenizer === sklearnTokenizer ? buildTermTable(terms) : null;
    this.vocabulary = new FrozenMap(this.#index);
    Object.freeze(this);
  }

  /**
   * Fits the vocabulary and idf on a corpus.
   *
   * @param corpus - the fitting documents (the study fits on the GSM8K train questions).
   * @param options - scikit-learn's `TfidfVectorizer()` defaults when omitted.
   * @throws {@link RlAdvantagesError} if the corpus is empty, a document is not a string, an
   *   option is invalid, or no document has any token (scikit-learn's "empty vocabulary").
   * @example
   * ```ts
   * const vectorizer = TfidfVectorizer.fit(['one apple', 'two apples']);
   * vectorizer.vocabulary.get('apple'); // 1
   * ```
   */
  static fit(corpus: Iterable<string>, options?: TfidfOptions): TfidfVectorizer {
    const resolved = resolveOptions(options);
    if (corpus === null || corpus === undefined || typeof (corpus as Iterable<string>)[Symbol.iterator] !== 'function') {
      throw new RlAdvantagesError(`corpus must be an iterable of strings, got ${describe(corpus)}`, {
        code: 'bad_type',
        field: 'corpus',
      });
    }
    // Term ids in order of first appearance; a term's df counts each document once, through the
    // last document that counted it (no Set per document).
    const ids = new Map<string, number>();
    const documentFrequency: number[] = [];
    const lastDocument: number[] = [];
    const tokenCounts: number[] = [];
    let index = 0;
    for (const document of corpus) {
      if (typeof document !== 'string') {
        throw new RlAdvantagesError(`corpus[${index}] must be a string, got ${describe(document)}`, {
          code: 'bad_type',
          field: 'corpus',
          index,
        });
      }
      const tokens = analyze(resolved, document);
      tokenCounts.push(tokens.length);
      for (const term of tokens) {
        let id = ids.get(term);
        if (id === undefined) {
          id = documentFrequency.length;
          ids.set(term, id);
          documentFrequency.push(0);
          lastDocument.push(-1);
        }
        if (lastDocument[id] !== index) {
          lastDocument[id] = index;
          documentFrequency[id] = (documentFrequency[id] as number) + 1;
        }
      }
      index++;
    }
    if (index === 0) {
      throw new RlAdvantagesError('corpus is empty; a vectorizer needs at least one document to fit', {
        code: 'empty_corpus',
        field: 'corpus',
      });
    }
    if (ids.size === 0) {
      // scikit-learn says "empty vocabulary; perhaps the documents only contain stop words": say which rule.
      const why =
        resolved.tokenizer === sklearnTokenizer
          ? 'a token is two or more word characters (letters, digits or _: scikit-learn\'s token_pattern (?u)\\b\\w\\w+\\b), ' +
            'so one-letter words, single digits and punctuation give none'
          : `the tokenizer ${JSON.stringify(resolved.tokenizer.name)} returned no token for any document`;
      throw new RlAdvantagesError(`corpus has ${index} document${index === 1 ? '' : 's'} but no tokens (empty vocabulary): ${why}`, {
        code: 'empty_vocabulary',
        field: 'corpus',
      });
    }
    const terms = [...ids.keys()].sort(compareCodePoints);
    const idf = new Float64Array(terms.length);
    const smooth = resolved.smoothIdf ? 1 : 0;
    for (let t = 0; t < terms.length; t++) {
      const df = documentFrequency[ids.get(terms[t] as string) as number] as number;
      idf[t] = resolved.useIdf ? Math.log((index + smooth) / (df + smooth)) + 1 : 1;
    }
    const sorted = Float64Array.from(tokenCounts).sort();
    const quartiles: [number, number, number] = [
      linearPercentile(sorted, 0.25),
      linearPercentile(sorted, 0.5),
      linearPercentile(sorted, 0.75),
    ];
    return new TfidfVectorizer(resolved, terms, idf, index, quartiles);
  }

  /**
   * Restores a vectorizer saved with {@link TfidfVectorizer.toJSON}; the result transforms
   * bit-identically to the saved one.
   *
   * @param json - the saved object (or its JSON text).
   * @param options - `tokenizer` must be given again when the saved one was not `sklearn`.
   * @throws {@link RlAdvantagesError} if the object is not a saved vectorizer, is inconsistent
   *   (terms and idf of different lengths, unsorted or duplicate terms, non-finite idf), or names
   *   a tokenizer that was not supplied.
   * @example
   * ```ts
   * const copy = TfidfVectorizer.fromJSON(JSON.parse(JSON.stringify(vectorizer)));
   * ```
   */
  static fromJSON(json: TfidfVectorizerJSON | string, options: { tokenizer?: Tokenizer } = {}): TfidfVectorizer {
    let value: unknown = json;
    if (typeof json === 'string') {
      try {
        value = JSON.parse(json);
      } catch (error) {
        throw new RlAdvantagesError(`vectorizer JSON does not parse: ${(error as Error).message}`, {
          code: 'bad_json',
          field: 'json',
        });
      }
    }
    const saved = value as Partial<TfidfVectorizerJSON> | null;
    const fail = (field: string, message: string, index?: number): never => {
      throw new RlAdvantagesError(`${field}${index === undefined ? '' : `[${index}]`} ${message}`, {
        code: 'bad_vectorizer',
        field,
        ...(index === undefined ? {} : { index }),
      });
    };
    if (typeof saved !== 'object' || saved === null || saved.format !== 'rl-advantages/tfidf-vectorizer') {
      fail('format', 'must be "rl-advantages/tfidf-vectorizer": this is not a saved rl-advantages vectorizer');
    }
    const s = saved as TfidfVectorizerJSON;
    if (s.version !== 1) fail('version', `must be 1, got ${describe(s.version)}`);
    if (!Array.isArray(s.terms)) fail('terms', 'must be an array of strings');
    if (!Array.isArray(s.idf)) fail('idf', 'must be an array of numbers');
    if (s.terms.length !== s.idf.length) fail('idf', `has ${s.idf.length} values but terms has ${s.terms.length}`);
    s.terms.forEach((term, i) => {
      if (typeof term !== 'string') fail('terms', 'must be a string', i);
      if (i > 0 && compareCodePoints(s.terms[i - 1] as string, term) >= 0) {
        fail('terms', 'must be in strictly increasing code point order', i);
      }
    });
    const idf = new Float64Array(s.idf.length);
    s.idf.forEach((v, i) => {
      if (typeof v !== 'number' || !Number.isFinite(v)) fail('idf', `must be a finite number, got ${describe(v)}`, i);
      idf[i] = v;
    });
    if (!Number.isInteger(s.documents) || s.documents < 1) fail('documents', 'must be an integer >= 1');
    const q = s.tokenCountQuartiles;
    if (!Array.isArray(q) || q.length !== 3 || !q.every((x) => typeof x === 'number' && Number.isFinite(x))) {
      fail('tokenCountQuartiles', 'must be three finite numbers');
    }
    const o = s.options ?? fail('options', 'is required');
    let tokenizer = options.tokenizer;
    if (o.tokenizer === sklearnTokenizer.name) tokenizer ??= sklearnTokenizer;
    if (!tokenizer || tokenizer.name !== o.tokenizer) {
      fail('options.tokenizer', `is "${o.tokenizer}"; pass a tokenizer with that name to fromJSON`);
    }
    const resolved = resolveOptions({
      lowercase: o.lowercase,
      norm: o.norm,
      useIdf: o.useIdf,
      smoothIdf: o.smoothIdf,
      sublinearTf: o.sublinearTf,
      binary: o.binary,
      tokenizer: tokenizer as Tokenizer,
    });
    return new TfidfVectorizer(resolved, [...s.terms], idf, s.documents, [q[0], q[1], q[2]]);
  }

  /** idf per column (a copy: the fitted object cannot be changed through it). */
  get idf(): Float64Array {
    return this.#idf.slice();
  }

  /** The fitted options, scikit-learn's names in camelCase. */
  get options(): Readonly<TfidfVectorizerJSON['options']> {
    const { tokenizer, ...rest } = this.#options;
    return Object.freeze({ ...rest, tokenizer: tokenizer.name });
  }

  /** The terms in column order. */
  get terms(): readonly string[] {
    return this.#terms;
  }

  /**
   * The terms of one document as this vectorizer's analyzer sees them (lower-cased when
   * `lowercase`), before the vocabulary filter.
   *
   * @example
   * ```ts
   * vectorizer.analyze('The CAT, the hat.'); // ["the", "cat", "the", "hat"]
   * ```
   */
  analyze(document: string): string[] {
    return analyze(this.#options, document);
  }

  /**
   * TF-IDF vectors of `docs`, one CSR row each, normalised per `norm`. Terms outside the fitted
   * vocabulary are dropped; a document with no known term is an all-zero row.
   *
   * @throws {@link RlAdvantagesError} if `docs` is not an array of strings (the message names the index).
   * @example
   * ```ts
   * const x = vectorizer.transform(['the cat', '']);
   * x.indptr; // Int32Array [0, 2, 2]: the empty document is a zero row
   * ```
   */
  transform(docs: readonly string[]): CsrMatrix {
    if (!Array.isArray(docs)) {
      throw new RlAdvantagesError(`docs must be an array of strings, got ${describe(docs)}`, { code: 'bad_type', field: 'docs' });
    }
    const indptr = new Int32Array(docs.length + 1);
    const rows: VectorRow[] = [];
    let nnz = 0;
    for (let r = 0; r < docs.length; r++) {
      const document = docs[r];
      if (typeof document !== 'string') {
        throw new RlAdvantagesError(`docs[${r}] must be a string, got ${describe(document)}`, {
          code: 'bad_type',
          field: 'docs',
          index: r,
        });
      }
      const row = this.#row(document);
      rows.push(row);
      nnz += row.indices.length;
      indptr[r + 1] = nnz;
    }
    const indices = new Int32Array(nnz);
    const data = new Float64Array(nnz);
    for (let r = 0; r < rows.length; r++) {
      const row = rows[r] as VectorRow;
      indices.set(row.indices, indptr[r] as number);
      data.set(row.data, indptr[r] as number);
    }
    return { rows: docs.length, cols: this.#terms.length, indptr, indices, data };
  }

  /**
   * One document's row, from the cache when the same text was seen recently (the vector depends
   * on nothing but the text, so a cached row is the row): RL batches repeat prompts across steps
   * and epochs, and calibration draws the same few tasks thousands of times.
   */
  #row(document: string): VectorRow {
    const cached = this.#cache.get(document);
    if (cached !== undefined) return cached;
    const older = this.#olderCache.get(document);
    if (older !== undefined) {
      this.#remember(document, older);
      return older;
    }
    const counts = this.#counts;
    let distinct = -1;
    if (this.#table !== null) {
      const room = Math.min(this.#terms.length, Math.ceil(document.length / 3) + 1);
      if (this.#touched.length < room) this.#touched = new Int32Array(Math.max(room, 2 * this.#touched.length));
      distinct = countAsciiTerms(this.#table, document, this.#options.lowercase, counts, this.#touched);
    }
    let indices: Int32Array;
    if (distinct >= 0) {
      indices = sortedPrefix(this.#touched, distinct);
    } else {
      const touched: number[] = [];
      for (const term of analyze(this.#options, document)) {
        const column = this.#index.get(term);
        if (column === undefined) continue;
        if (counts[column] === 0) touched.push(column);
        counts[column] = (counts[column] as number) + 1;
      }
      indices = new Int32Array(touched).sort();
    }
    // Columns ascending, as scikit-learn's sorted CSR indices; counts go back to 0 for the next
    // document (nothing between the increments above and this loop can throw).
    const data = new Float64Array(indices.length);
    for (let k = 0; k < indices.length; k++) {
      const column = indices[k] as number;
      data[k] = this.#weight(counts[column] as number) * (this.#idf[column] as number);
      counts[column] = 0;
    }
    normalizeRow(data, 0, data.length, this.#options.norm);
    const row: VectorRow = { indices, data };
    if (document.length <= CACHE_MAX_CHARS) this.#remember(document, row);
    return row;
  }

  #remember(document: string, row: VectorRow): void {
    if (this.#cache.size >= CACHE_ROWS) {
      this.#olderCache = this.#cache;
      this.#cache = new Map();
    }
    this.#cache.set(document, row);
  }

  /**
   * Per-document token counts as the analyzer sees them (every token, known or not): the
   * length measure of `length_bucket_loo`.
   */
  tokenCounts(docs: readonly string[]): Int32Array {
    const out = new Int32Array(docs.length);
    for (let i = 0; i < docs.length; i++) out[i] = analyze(this.#options, docs[i] as string).length;
    return out;
  }

  /**
   * A plain object that {@link TfidfVectorizer.fromJSON} restores exactly (JSON numbers keep
   * every float64 bit).
   */
  toJSON(): TfidfVectorizerJSON {
    return {
      format: 'rl-advantages/tfidf-vectorizer',
      version: 1,
      options: { ...this.options },
      documents: this.documents,
      terms: [...this.#terms],
      idf: Array.from(this.#idf),
      tokenCountQuartiles: [...this.tokenCountQuartiles] as [number, number, number],
    };
  }

  #weight(count: number): number {
    if (this.#options.binary) return 1;
    return this.#options.sublinearTf ? 1 + Math.log(count) : count;
  }
}

function analyze(options: ResolvedOptions, document: string): string[] {
  const text = options.lowercase ? document.toLowerCase() : document;
  if (options.tokenizer === sklearnTokenizer) {
    const tokens = asciiTokens(text);
    if (tokens !== null) return tokens;
  }
  return options.tokenizer.tokenize(text);
}


/**
 * {@link sklearnTokenizer} on pure-ASCII text (most prompts), without the Unicode regex: maximal
 * runs of two or more of [A-Za-z0-9_], which are exactly the ASCII letters (L*), numbers (N*) and
 * `_`. Returns null at the first non-ASCII character (the regex tokenizer takes over).
 * test/text/tfidf.test.ts checks the result against scikit-learn, test/internal/tfidf-transform.test.ts
 * against the regex tokenizer.
 */
function asciiTokens(text: string): string[] | null {
  const tokens: string[] = [];
  let start = -1;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code > 127) return null;
    if (ASCII_WORD[code] === 1) {
      if (start < 0) start = i;
    } else if (start >= 0) {
      if (i - start >= 2) tokens.push(text.slice(start, i));
      start = -1;
    }
  }
  if (start >= 0 && text.length - start >= 2) tokens.push(text.slice(start));
  return tokens;
}

/**
 * The first `count` values of `values`, ascending, in a new array: insertion sort, as fast as
 * TypedArray.prototype.sort on the few dozen distinct terms of a prompt (and faster than a
 * bitmap over the columns, measured).
 */
function sortedPrefix(values: Int32Array, count: number): Int32Array {
  const out = new Int32Array(count);
  for (let i = 0; i < count; i++) {
    const value = values[i] as number;
    let j = i - 1;
    while (j >= 0 && (out[j] as number) > value) {
      out[j + 1] = out[j] as number;
      j--;
    }
    out[j + 1] = value;
  }
  return out;
}

/** Normalises data[start, end) in place; a zero row stays zero (scikit-learn's `normalize`). */
function normalizeRow(data: Float64Array, start: number, end: number, norm: 'l2' | 'l1' | null): void {
  if (norm === null) return;
  let total = 0;
  for (let k = start; k < end; k++) {
    const v = data[k] as number;
    total += norm === 'l2' ? v * v : Math.abs(v);
  }
  if (total === 0) return;
  const scale = norm === 'l2' ? Math.sqrt(total) : total;
  for (let k = start; k < end; k++) data[k] = (data[k] as number) / scale;
}
