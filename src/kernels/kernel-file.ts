// kernel.json: a tuned (or hand-written) kernel, versioned, with every fitted part and its provenance
// (docs/method.md sections 2.4 and 9).
import { familyDefinition, KERNEL_FAMILIES, type Embedder, type KernelFamily } from './families/index.js';
import { deepFreeze, fail, readChoice, readNumber, readObject, type JsonObject } from './read.js';

/** The `format` of a kernel file. */
export const KERNEL_FILE_FORMAT = 'rl-advantages/kernel';
/** The `version` of the kernel file format this library writes and reads. */
export const KERNEL_FILE_VERSION = 1;

/** One input file of a tuning run. */
export interface KernelInput {
  readonly role: 'input' | 'train' | 'corpus' | 'features';
  readonly path: string;
  readonly sha256: string;
  readonly rows: number;
}

/** One family's best candidate in a tuning run. */
export interface KernelFamilyFigures {
  readonly family: string;
  readonly tuning: number;
  readonly held_out: number | null;
  readonly held_out_ci95?: readonly [number, number] | null;
}

/** How the kernel was made (written by `tune-kernel`; optional in a hand-written file). */
export interface KernelProvenance {
  readonly library_version: string;
  readonly seed: string | number;
  readonly holdout: number;
  readonly batch_size: number;
  readonly cross_fit: boolean;
  readonly refit_on_all_tasks: boolean;
  readonly mode?: 'corrected' | 'single_rollout';
  readonly families: readonly string[];
  readonly candidates: number;
  readonly batches: number;
  readonly inputs: readonly KernelInput[];
  /** Every task whose reward the kernel saw (input and train). */
  readonly tuning_tasks: readonly { readonly task_id: string; readonly prompt_sha256: string }[];
  readonly tuning: { readonly ratio: number };
  readonly held_out: { readonly ratio: number | null; readonly ratio_ci95: readonly [number, number] | null; readonly interval_method: string };
  readonly selection_bias: number | null;
  readonly per_family: readonly KernelFamilyFigures[];
  readonly [key: string]: unknown;
}

/** The content of a kernel file. */
export interface KernelFile {
  readonly format: typeof KERNEL_FILE_FORMAT;
  readonly version: typeof KERNEL_FILE_VERSION;
  readonly family: KernelFamily;
  readonly params: JsonObject;
  readonly fitted: JsonObject;
  readonly provenance?: KernelProvenance;
}

/** A validated, immutable kernel: its file and the energies it gives any prompts. */
export interface LoadedKernel {
  readonly file: KernelFile;
  readonly family: KernelFamily;
  /** The energies between prompts (docs/method.md section 2.4). */
  readonly embed: Embedder;
}

function readProvenance(value: unknown, path: string): KernelProvenance {
  const o = readObject(value, path);
  for (const key of ['batch_size', 'candidates', 'batches', 'holdout'] as const) {
    if (o[key] !== undefined) readNumber(o[key], `${path}.${key}`);
  }
  for (const key of ['inputs', 'tuning_tasks', 'per_family', 'families'] as const) {
    if (o[key] !== undefined && !Array.isArray(o[key])) fail(`${path}.${key}`, 'must be an array');
  }
  if (o.held_out !== undefined) {
    const h = readObject(o.held_out, `${path}.held_out`);
    if (h.ratio !== null && h.ratio !== undefined) readNumber(h.ratio, `${path}.held_out.ratio`);
  }
  return o as unknown as KernelProvenance;
}

/**
 * Validates a parsed kernel file and returns it as an immutable {@link LoadedKernel}: the same file gives the same
 * advantages, bit for bit (every number is stored as JSON, which keeps every float64 bit).
 *
 * @param json - the parsed content of a kernel file (`JSON.parse` of `kernel.json`), or its text.
 * @throws {@link RlAdvantagesError} (code `bad_kernel`) naming the field path, e.g.
 *   `kernel.params.bandwidth must be a finite number > 0, got -1`, for a wrong format or version, an unknown family,
 *   or a bad parameter or fitted part.
 * @example
 * ```ts
 * const kernel = loadKernel({ format: 'rl-advantages/kernel', version: 1, family: 'loo_batch_mean', params: {}, fitted: {} });
 * createEstimator('kernel_file', { kernel }).compute({ rewards: [1, 0, 0], prompts: ['a', 'b', 'c'] }).baselines; // [0, 0.5, 0.5]
 * ```
 */
export function loadKernel(json: unknown): LoadedKernel {
  let value = json;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch (error) {
      fail('kernel', `is not valid JSON: ${(error as Error).message}`);
    }
  }
  const o = readObject(value, 'kernel');
  if (o.format !== KERNEL_FILE_FORMAT) fail('kernel.format', `must be ${JSON.stringify(KERNEL_FILE_FORMAT)}, got ${JSON.stringify(o.format)}`);
  if (o.version !== KERNEL_FILE_VERSION) fail('kernel.version', `must be ${KERNEL_FILE_VERSION} (this library reads version ${KERNEL_FILE_VERSION}), got ${JSON.stringify(o.version)}`);
  const family = readChoice(o.family, 'kernel.family', KERNEL_FAMILIES);
  const definition = familyDefinition(family);
  const params = definition.readParams(o.params, 'kernel.params');
  const fitted = definition.readFitted(o.fitted, 'kernel.fitted', params);
  const copy = structuredClone({ params: o.params, fitted: o.fitted, provenance: o.provenance });
  const file: KernelFile = deepFreeze({
    format: KERNEL_FILE_FORMAT,
    version: KERNEL_FILE_VERSION,
    family,
    params: copy.params as JsonObject,
    fitted: copy.fitted as JsonObject,
    ...(o.provenance === undefined ? {} : { provenance: readProvenance(copy.provenance, 'kernel.provenance') }),
  });
  const embed = definition.make(params, fitted);
  return Object.freeze({ file, family, embed });
}

/**
 * The text of a kernel file: 2-space indented JSON and a final newline; {@link loadKernel} of it gives the same
 * kernel bit for bit.
 *
 * @example
 * ```ts
 * writeFileSync('kernel.json', kernelFileJson(result.kernel));
 * ```
 */
export function kernelFileJson(file: KernelFile | LoadedKernel): string {
  const content = 'file' in file && 'embed' in file ? file.file : file;
  return JSON.stringify(content, null, 2) + '\n';
}

/** One family's row of the tuning chart (the shape of the report's `KernelFamilyRow`). */
export interface KernelFamilyChartRow {
  readonly family: string;
  readonly tuning: number;
  readonly heldOut: number | null;
  readonly heldOutCi95: readonly [number, number] | null;
}

/**
 * The per-family figures of a tuned kernel's provenance as chart rows (`kernelPage`, the study report's kernel chart);
 * empty for a file without provenance.
 *
 * @example
 * ```ts
 * await kernelPage(kernelFamilyRows(loadKernel(json).file), 'kernel.json');
 * ```
 */
export function kernelFamilyRows(file: KernelFile): KernelFamilyChartRow[] {
  return (file.provenance?.per_family ?? []).map((f) => ({ family: f.family, tuning: f.tuning, heldOut: f.held_out, heldOutCi95: f.held_out_ci95 ?? null }));
}
