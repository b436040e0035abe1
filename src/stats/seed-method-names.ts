// The seed-level decision methods' names, alone so the spec parser can check them without loading the methods
// (docs/method.md section 5.8).

/**
 * The seed-level methods (docs/method.md section 5.8), the study's default first: `seed_item_t` (the per-seed
 * differences' variance plus the test items' sampling variance, Satterthwaite df; asymptotic) and `seed_t` (a t
 * interval on the S per-seed differences, S - 1 df; exact under normal per-seed differences for the fixed test items).
 */
export const SEED_METHOD_NAMES = ['seed_item_t', 'seed_t'] as const;

/** A seed-level method's name. */
export type SeedMethodName = (typeof SEED_METHOD_NAMES)[number];

/** The method `decideAcrossSeeds` uses when neither the call nor the rule's `seed_method` names one. */
export const DEFAULT_SEED_METHOD: SeedMethodName = 'seed_item_t';

/** Whether a value names a seed-level method. */
export function isSeedMethodName(value: unknown): value is SeedMethodName {
  return typeof value === 'string' && (SEED_METHOD_NAMES as readonly string[]).includes(value);
}
