// The one published copy of GSM8K the tools accept: openai/grade-school-math at a pinned commit, checked by sha256.

/** The pinned commit of https://github.com/openai/grade-school-math the files are taken from. */
export const GSM8K_COMMIT = '3101c7d5072418e28b9008a6636bde82a006892c';

/** One file of the GSM8K data folder and its sha256 (hex) at {@link GSM8K_COMMIT}. */
export interface Gsm8kFile {
  readonly name: string;
  readonly sha256: string;
}

/**
 * The files of `grade_school_math/data/` that rl-advantages uses, with their sha256 at {@link GSM8K_COMMIT}:
 * `train.jsonl` (7473 rows), `test.jsonl` (1319 rows) and `example_model_solutions.jsonl` (the paper's
 * graded model solutions, used to check the grader). The MIT LICENSE is fetched beside them, unverified.
 *
 * @example
 * ```ts
 * import { GSM8K_FILES } from 'rl-advantages/data';
 * console.log(GSM8K_FILES.map((f) => f.name)); // ['train.jsonl', 'test.jsonl', 'example_model_solutions.jsonl']
 * ```
 */
export const GSM8K_FILES: readonly Gsm8kFile[] = Object.freeze([
  Object.freeze({ name: 'train.jsonl', sha256: '17f347dc51477c50d4efb83959dbb7c56297aba886e5544ee2aaed3024813465' }),
  Object.freeze({ name: 'test.jsonl', sha256: '3730d312f6e3440559ace48831e51066acaca737f6eabec99bccb9e4b3c39d14' }),
  Object.freeze({ name: 'example_model_solutions.jsonl', sha256: '4bc62db838f8418365d51c627bd66294cbdca9fb7f01519cb13f0dce8c51580b' }),
]);

/** The raw-file URL of `grade_school_math/data` at {@link GSM8K_COMMIT}. */
export const GSM8K_DEFAULT_BASE_URL = `https://raw.githubusercontent.com/openai/grade-school-math/${GSM8K_COMMIT}/grade_school_math/data`;

/**
 * The URL the GSM8K files are fetched from: `$RL_ADV_GSM8K_URL` (a mirror) when set and non-empty, else
 * {@link GSM8K_DEFAULT_BASE_URL}. Files are `<base>/<name>`; the licence is `<base>/../../LICENSE`.
 *
 * @example
 * ```ts
 * import { gsm8kBaseUrl } from 'rl-advantages/data';
 * console.log(gsm8kBaseUrl()); // https://raw.githubusercontent.com/openai/grade-school-math/3101c7d.../grade_school_math/data
 * ```
 */
export function gsm8kBaseUrl(): string {
  const mirror = process.env.RL_ADV_GSM8K_URL;
  return (mirror ? mirror : GSM8K_DEFAULT_BASE_URL).replace(/\/+$/, '');
}

/** `<base>/<name>`, and the licence at `<base>/../../LICENSE`. */
export function gsm8kFileUrl(base: string, name: string | 'LICENSE'): string {
  return name === 'LICENSE' ? new URL('../../LICENSE', `${base}/`).href : `${base}/${name}`;
}
