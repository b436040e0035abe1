// A TF-IDF kernel prior over prompts (docs/method.md section 2.2): the kernel-weighted mean of other
// prompts' rewards or values, for shrinkage_loo and prompt_value. Weights exp((cos - max) / T).
import { RlAdvantagesError } from '../errors.js';
import type { TfidfVectorizer } from '../text/tfidf.js';
import { readCanonicalDecimal } from '../internal/decimal.js';
import { csrRowDot } from './sparse.js';
import { checkTemperature, describe } from '../internal/validate.js';


/** The temperature of a prior named `tfidf_kernel_loo_T<T>`; undefined for `'batch'`. */
export function parsePriorName(prior: unknown, field = 'prior'): number | undefined {
  if (prior === undefined || prior === 'batch') return undefined;
  const match = typeof prior === 'string' ? /^tfidf_kernel_loo_T(.*)$/.exec(prior) : null;
  const text = match?.[1];
  const read = text === undefined ? undefined : readCanonicalDecimal(text);
  if (read?.value === undefined) {
    const canonical = read?.suggestions.length ? `; write ${read.suggestions.map((s) => `tfidf_kernel_loo_T${s}`).join(' or ')} (T in canonical decimal: no exponent, no extra zero)` : '';
    throw new RlAdvantagesError(`${field} must be 'batch' or a kernel name tfidf_kernel_loo_T<T> (e.g. tfidf_kernel_loo_T0.1), got ${describe(prior)}${canonical}`, {
      code: 'bad_option',
      field,
    });
  }
  return checkTemperature(field, read.value);
}

/**
 * For each target prompt t: sum_s e_ts sums[s] / sum_s e_ts counts[s] over sources s with
 * skip(t, s) false, e_ts = exp((cos(t, s) - max_s cos(t, s)) / T). Undefined where no source is left.
 * Sources are summed in their given order, so the same inputs give the same bits.
 */
export function kernelPrior(
  vectorizer: TfidfVectorizer,
  targets: readonly string[],
  sources: readonly string[],
  sums: ArrayLike<number>,
  counts: ArrayLike<number>,
  temperature: number,
  skip: (t: number, s: number) => boolean,
): (number | undefined)[] {
  const x = vectorizer.transform(targets);
  const y = vectorizer.transform(sources);
  const cosines = new Float64Array(sources.length);
  return targets.map((_, t) => {
    let max = -Infinity;
    for (let s = 0; s < sources.length; s++) {
      if (skip(t, s)) continue;
      cosines[s] = csrRowDot(x, t, y, s);
      max = Math.max(max, cosines[s] as number);
    }
    if (max === -Infinity) return undefined;
    let num = 0;
    let den = 0;
    for (let s = 0; s < sources.length; s++) {
      if (skip(t, s)) continue;
      const w = Math.exp(((cosines[s] as number) - max) / temperature);
      num += w * (sums[s] as number);
      den += w * (counts[s] as number);
    }
    return num / den;
  });
}
