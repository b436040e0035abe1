// The kernel estimators (docs/method.md sections 2 and 2.4): leave-one-out baselines weighted by prompt similarity.
import { RlAdvantagesError } from '../../errors.js';
import { canonicalDecimal } from '../../internal/decimal.js';
import { resolveKernelEstimatorName } from '../../kernels/resolve.js';
import type { LoadedKernel } from '../../kernels/kernel-file.js';
import type { TfidfVectorizer } from '../../text/tfidf.js';
import type { EstimatorDescriptor, EstimatorParams, EstimatorResources } from '../descriptor.js';
import { kernelLoo } from '../kernel.js';
import { kernelFileLoo } from '../kernel-file.js';
import { lengthBucketLoo } from '../length-bucket.js';
import { tfidfKernelLoo } from '../tfidf-kernel.js';
import { SOURCES, temperatureParameter } from './params.js';

/** The vectorizer of the resources, or the error that says how to fit one. */
export function requireVectorizer(name: string, resources: EstimatorResources): TfidfVectorizer {
  if (resources.vectorizer === undefined) {
    throw new RlAdvantagesError(
      `${name} needs context.vectorizer: fit one with TfidfVectorizer.fit(corpus) (the study fits it on the GSM8K train questions)`,
      { code: 'missing_field', field: 'vectorizer' },
    );
  }
  return resources.vectorizer;
}

/** kernel_file's kernel: the loaded one of the resources, or the file `path` names (relative to `baseDir`). */
function kernelOf(params: EstimatorParams, resources: EstimatorResources): LoadedKernel {
  const path = params.path as string | undefined;
  if (path !== undefined) {
    if (resources.kernel !== undefined) {
      throw new RlAdvantagesError('kernel_file takes its kernel from path or from context.kernel, not both', { code: 'conflicting_option', field: 'kernel' });
    }
    return (resolveKernelEstimatorName(`kernel:${path}`, resources.baseDir ?? process.cwd()) as { kernel: LoadedKernel }).kernel;
  }
  const kernel = resources.kernel;
  if (kernel === undefined || typeof kernel !== 'object' || kernel === null || typeof kernel.embed !== 'function') {
    throw new RlAdvantagesError(
      'kernel_file needs context.kernel (loadKernel(JSON.parse(readFileSync("kernel.json", "utf8")))) or its file: kernel:PATH, or { name: "kernel_file", path }',
      { code: 'missing_field', field: 'kernel' },
    );
  }
  return kernel;
}

const TEMPERATURE = 'T in exp(similarity / T): small T weighs the most similar prompts only; T -> infinity gives the LOO batch mean';

/** The kernel estimators. */
export const KERNEL_ESTIMATORS: readonly EstimatorDescriptor[] = [
  {
    name: 'tfidf_kernel_loo',
    family: 'kernel',
    summary: 'b = sum_{j != i} exp(cos_ij / T) r_j / sum_{j != i} exp(cos_ij / T), cos of the TF-IDF vectors of the prompts (GS1)',
    parameters: [temperatureParameter('temperature', TEMPERATURE, true)],
    fields: { required: ['rewards', 'prompts'], optional: ['mask'] },
    needsVectorizer: true,
    needsKernelFile: false,
    groupOfOne: 'n/a (B >= 2; the other prompts weigh in)',
    sources: [SOURCES.gs1],
    shortForm: { prefix: 'tfidf_kernel_loo_T', parameter: 'temperature', bare: false },
    create: (params, resources) => {
      const vectorizer = requireVectorizer('tfidf_kernel_loo', resources);
      const temperature = params.temperature as number;
      return (batch) => tfidfKernelLoo(batch, { vectorizer, temperature });
    },
  },
  {
    name: 'length_bucket_loo',
    family: 'kernel',
    summary: "b = the mean reward of the other rollouts in the prompt's token-count quartile (else the LOO batch mean)",
    parameters: [],
    fields: { required: ['rewards', 'prompts'], optional: ['mask'] },
    needsVectorizer: true,
    needsKernelFile: false,
    groupOfOne: 'n/a (B >= 2)',
    sources: [SOURCES.ours],
    create: (_params, resources) => {
      const vectorizer = requireVectorizer('length_bucket_loo', resources);
      return (batch) => lengthBucketLoo(batch, { vectorizer });
    },
  },
  {
    name: 'kernel_loo',
    family: 'kernel',
    summary: 'as tfidf_kernel_loo over your similarity: the cosine of batch features (or, in the library, a similarity function)',
    parameters: [temperatureParameter('temperature', TEMPERATURE, true)],
    fields: { required: ['rewards', 'features'], optional: ['mask'] },
    needsVectorizer: false,
    needsKernelFile: false,
    groupOfOne: 'n/a (B >= 2)',
    sources: [SOURCES.ours],
    shortForm: { prefix: 'kernel_loo_T', parameter: 'temperature', bare: true },
    create: (params, resources) => {
      const temperature = params.temperature as number;
      const similarity = resources.similarity;
      return (batch) => kernelLoo(batch, similarity === undefined ? { temperature } : { temperature, similarity });
    },
  },
  {
    name: 'kernel_file',
    family: 'kernel',
    summary: 'b = sum_{j != i} exp(-g_ij) r_j / sum_{j != i} exp(-g_ij), g from a tuned kernel file (docs/kernel-lab.md)',
    parameters: [
      { name: 'path', type: 'string', default: null, required: false, description: 'the kernel file (rl-adv tune-kernel), relative to the current directory (a spec: its folder); or context.kernel in the library' },
    ],
    fields: { required: ['rewards', 'prompts'], optional: ['mask'] },
    needsVectorizer: false,
    needsKernelFile: true,
    groupOfOne: 'n/a (B >= 2)',
    sources: [SOURCES.ours],
    shortForm: { prefix: 'kernel:', parameter: 'path', bare: true },
    create: (params, resources) => {
      const kernel = kernelOf(params, resources);
      return (batch) => kernelFileLoo(batch, { kernel });
    },
  },
];

/** `tfidf_kernel_loo_T<T>` for a prior temperature (canonical decimal). */
export function tfidfPriorName(temperature: number): string {
  return `tfidf_kernel_loo_T${canonicalDecimal(temperature)}`;
}
