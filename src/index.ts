/**
 * rl-advantages: advantage estimators for RL post-training of LLMs.
 *
 * @packageDocumentation
 */
export { RlAdvantagesError } from './errors.js';
export * from './estimators/index.js';
export { TfidfVectorizer, type CsrMatrix, type TfidfOptions, type TfidfVectorizerJSON } from './text/tfidf.js';
export { sklearnTokenizer, compareCodePoints, type Tokenizer } from './text/tokenize.js';
export { winkTokenizer } from './text/wink.js';
export type { NdArrayLike } from './internal/validate.js';
