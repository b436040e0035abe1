// The kernel families by name, and `product` (g = g_1 + g_2) over any two of them (docs/method.md section 2.4).
import { fail, readObject, type JsonObject } from '../read.js';
import type { Embedding } from '../weights.js';
import { difficultyFamily } from './difficulty.js';
import { embeddingFamily } from './embedding.js';
import { featuresFamily } from './features.js';
import { lengthFamily } from './length.js';
import { lengthBucketFamily, looBatchMeanFamily } from './references.js';
import { tfidfFamily } from './tfidf.js';
import { KERNEL_FAMILIES, type FamilyDefinition, type KernelFamily } from './types.js';

/** One factor of a product: a family and its parameters. */
export interface ProductFactor extends JsonObject {
  readonly family: Exclude<KernelFamily, 'product'>;
  readonly params: JsonObject;
}

/** Parameters of `product`: exactly two factors. */
export interface ProductParams extends JsonObject {
  readonly factors: readonly [ProductFactor, ProductFactor];
}

/** Fitted parts of `product`: each factor's. */
export interface ProductFitted extends JsonObject {
  readonly factors: readonly [JsonObject, JsonObject];
}

function sum(a: Embedding, b: Embedding): Embedding {
  return { size: a.size, energy: (i, j) => a.energy(i, j) + b.energy(i, j) };
}

export const productFamily: FamilyDefinition<ProductParams, ProductFitted> = {
  name: 'product',
  readParams(value, path) {
    const factors = readObject(value, path).factors;
    if (!Array.isArray(factors) || factors.length !== 2) fail(`${path}.factors`, 'must be an array of two {family, params}');
    return {
      factors: factors.map((f, i) => {
        const o = readObject(f, `${path}.factors[${i}]`);
        const family = o.family;
        if (family === 'product' || typeof family !== 'string' || !(KERNEL_FAMILIES as readonly string[]).includes(family)) {
          fail(`${path}.factors[${i}].family`, `must be one of ${KERNEL_FAMILIES.filter((f) => f !== 'product').join(', ')}, got ${JSON.stringify(family)}`);
        }
        const definition = familyDefinition(family as KernelFamily);
        return { family, params: definition.readParams(o.params, `${path}.factors[${i}].params`) } as ProductFactor;
      }) as unknown as [ProductFactor, ProductFactor],
    };
  },
  readFitted(value, path, params) {
    const factors = readObject(value, path).factors;
    if (!Array.isArray(factors) || factors.length !== 2) fail(`${path}.factors`, 'must be an array of two fitted parts');
    return {
      factors: params.factors.map((f, i) => familyDefinition(f.family).readFitted(factors[i], `${path}.factors[${i}]`, f.params)) as unknown as [JsonObject, JsonObject],
    };
  },
  fit(params, data) {
    return { factors: params.factors.map((f) => familyDefinition(f.family).fit(f.params, data)) as unknown as [JsonObject, JsonObject] };
  },
  make(params, fitted) {
    const [a, b] = params.factors.map((f, i) => familyDefinition(f.family).make(f.params, fitted.factors[i] as JsonObject));
    return (prompts, cache) => sum(a!(prompts, cache), b!(prompts, cache));
  },
};

const DEFINITIONS: Record<KernelFamily, FamilyDefinition> = {
  tfidf: tfidfFamily as unknown as FamilyDefinition,
  length: lengthFamily as unknown as FamilyDefinition,
  features: featuresFamily as unknown as FamilyDefinition,
  embedding: embeddingFamily as unknown as FamilyDefinition,
  difficulty: difficultyFamily as unknown as FamilyDefinition,
  product: productFamily as unknown as FamilyDefinition,
  loo_batch_mean: looBatchMeanFamily as unknown as FamilyDefinition,
  length_bucket_loo: lengthBucketFamily as unknown as FamilyDefinition,
};

/** The definition of a family. */
export function familyDefinition(family: KernelFamily): FamilyDefinition {
  return DEFINITIONS[family];
}

export { KERNEL_FAMILIES, TextCache, type FamilyDefinition, type FitData, type KernelFamily, type Embedder } from './types.js';
