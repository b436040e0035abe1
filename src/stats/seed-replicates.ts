// The replicates of a decision across seeds, checked (docs/method.md section 5.8): distinct integer seeds, and every
// seed on the same items unless the rule says each has its own.
import { RlAdvantagesError } from '../errors.js';
import { describe } from '../internal/validate.js';
import type { IndexedItem } from './items.js';

export type Pairs = (readonly [IndexedItem, IndexedItem])[];

export function at(r: number, seed: unknown): string {
  return `replicates[${r}]${typeof seed === 'number' ? ` (seed ${seed})` : ''}`;
}

/** Rethrows an item error of one replicate with the replicate, its seed and the side in the field. */
export function inReplicate<T>(r: number, seed: number, f: () => T): T {
  try {
    return f();
  } catch (error) {
    if (!(error instanceof RlAdvantagesError) || error.code === 'invalid_spec') throw error;
    throw new RlAdvantagesError(`${at(r, seed)}: ${error.message}`, {
      code: error.code,
      field: `replicates[${r}]${error.field === undefined ? '' : `.${error.field}`}`,
      ...(error.index === undefined ? {} : { index: error.index }),
    });
  }
}

export function checkReplicates(value: unknown): { seed: number; treatment: unknown; baseline: unknown }[] {
  if (!Array.isArray(value)) {
    throw new RlAdvantagesError(`replicates must be an array of { seed, treatment, baseline }, got ${describe(value)}`, { code: 'bad_type', field: 'replicates' });
  }
  if (value.length < 2) {
    throw new RlAdvantagesError(
      `replicates must hold at least 2 seeds (a seed-level interval needs the spread between seeds), got ${value.length}${value.length === 1 ? ` (seed ${describe((value[0] as { seed?: unknown } | null)?.seed)})` : ''}`,
      { code: 'too_few_seeds', field: 'replicates' },
    );
  }
  const seen = new Map<number, number>();
  return value.map((rep: unknown, r) => {
    if (typeof rep !== 'object' || rep === null || Array.isArray(rep)) {
      throw new RlAdvantagesError(`replicates[${r}] must be an object { seed, treatment, baseline }, got ${describe(rep)}`, { code: 'bad_item', field: 'replicates', index: r });
    }
    const o = rep as Record<string, unknown>;
    const unknown = Object.keys(o).filter((k) => !['seed', 'treatment', 'baseline'].includes(k));
    if (unknown.length > 0) {
      throw new RlAdvantagesError(`replicates[${r}] has unknown field(s) ${unknown.join(', ')}: a replicate is { seed, treatment, baseline }`, { code: 'unknown_field', field: `replicates[${r}].${unknown[0] as string}` });
    }
    if (typeof o.seed !== 'number' || !Number.isSafeInteger(o.seed)) {
      throw new RlAdvantagesError(`replicates[${r}].seed must be an integer, got ${describe(o.seed)}`, { code: 'bad_seed', field: `replicates[${r}].seed` });
    }
    const first = seen.get(o.seed);
    if (first !== undefined) {
      throw new RlAdvantagesError(`${at(r, o.seed)} repeats the seed of replicates[${first}]; each seed must appear once`, { code: 'duplicate_seed', field: `replicates[${r}].seed` });
    }
    seen.set(o.seed, r);
    return { seed: o.seed, treatment: o.treatment, baseline: o.baseline };
  });
}

/**
 * Every replicate's pairs in the first replicate's item order; refuses a replicate with another item set, unless the
 * rule says each seed has its own items (`per_seed`: the pairs are kept as they are).
 */
export function alignItems(reps: readonly { seed: number }[], pairsOf: readonly Pairs[], itemSets: 'shared' | 'per_seed' = 'shared'): Pairs[] {
  if (itemSets === 'per_seed') return [...pairsOf];
  const first = pairsOf[0] as Pairs;
  const order = first.map(([t]) => t.id);
  return pairsOf.map((pairs, r) => {
    if (r === 0) return pairs;
    const byId = new Map(pairs.map((p) => [p[0].id, p] as const));
    const missing = order.filter((id) => !byId.has(id));
    const firstIds = new Set(order);
    const extra = pairs.filter(([t]) => !firstIds.has(t.id)).map(([t]) => t.id);
    if (missing.length > 0 || extra.length > 0) {
      const show = (ids: string[]): string => ids.slice(0, 5).map((id) => JSON.stringify(id)).join(', ') + (ids.length > 5 ? ` and ${ids.length - 5} more` : '');
      const parts = [
        ...(missing.length > 0 ? [`lacks ${missing.length} item(s) of replicates[0] (seed ${(reps[0] as { seed: number }).seed}): ${show(missing)}`] : []),
        ...(extra.length > 0 ? [`has ${extra.length} item(s) replicates[0] lacks: ${show(extra)}`] : []),
      ];
      throw new RlAdvantagesError(`${at(r, (reps[r] as { seed: number }).seed)} ${parts.join('; ')}: every seed must be evaluated on the same items (if each seed has its own items by design, say so: decision_rule.seed_items "per_seed", or rl-adv decide --seed-items per_seed)`, {
        code: 'item_set_mismatch',
        field: `replicates[${r}].treatment`,
      });
    }
    return order.map((id) => byId.get(id) as Pairs[number]);
  });
}

