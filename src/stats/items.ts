// Pairing two arms' items by item_id and reading a criterion's paired differences (docs/method.md section 5.1).
import { RlAdvantagesError } from '../errors.js';
import { describe } from '../internal/validate.js';
import type { DecisionCriterion } from './decision-rule.js';

/**
 * One item of one arm's evaluation, paired across arms by `item_id`. Give exactly one of:
 * `correct` (true = 1, false = 0), `score` (a number, used for every criterion), or `metrics`
 * (a value per metric name, for rules whose criteria use several metrics).
 */
export interface PairedItem {
  /** The item's id; `7` and `"7"` are the same item. */
  readonly item_id: string | number;
  readonly correct?: boolean;
  readonly score?: number;
  readonly metrics?: Readonly<Record<string, number | boolean>>;
}

export type Side = 'treatment' | 'baseline';

export interface IndexedItem {
  readonly index: number;
  readonly id: string;
  readonly item: Readonly<Record<string, unknown>>;
}

function itemLabel(side: Side, index: number, id: string): string {
  return `${side}[${index}] (item_id ${JSON.stringify(id)})`;
}

function indexItems(side: Side, items: unknown): Map<string, IndexedItem> {
  if (!Array.isArray(items)) {
    throw new RlAdvantagesError(`${side} must be an array of items, got ${describe(items)}`, {
      code: 'bad_type',
      field: side,
    });
  }
  if (items.length === 0) {
    throw new RlAdvantagesError(`${side} must hold at least one item`, { code: 'empty', field: side });
  }
  const byId = new Map<string, IndexedItem>();
  items.forEach((item: unknown, index) => {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) {
      throw new RlAdvantagesError(`${side}[${index}] must be an object { item_id, ... }, got ${describe(item)}`, {
        code: 'bad_item',
        field: side,
        index,
      });
    }
    const raw = (item as Record<string, unknown>).item_id;
    const ok = (typeof raw === 'string' && raw !== '') || (typeof raw === 'number' && Number.isInteger(raw));
    if (!ok) {
      throw new RlAdvantagesError(`${side}[${index}].item_id must be a non-empty string or an integer, got ${describe(raw)}`, {
        code: 'bad_item',
        field: side,
        index,
      });
    }
    const id = String(raw);
    const first = byId.get(id);
    if (first !== undefined) {
      throw new RlAdvantagesError(
        `${itemLabel(side, index, id)} repeats the item_id of ${side}[${first.index}]; each item must appear once per arm`,
        { code: 'duplicate_item', field: side, index },
      );
    }
    const given = ['correct', 'score', 'metrics'].filter((k) => (item as Record<string, unknown>)[k] !== undefined);
    if (given.length !== 1) {
      throw new RlAdvantagesError(
        `${itemLabel(side, index, id)} must give exactly one of correct, score, metrics; got ${given.length === 0 ? 'none' : given.join(', ')}`,
        { code: 'bad_item', field: side, index },
      );
    }
    byId.set(id, { index, id, item: item as Record<string, unknown> });
  });
  return byId;
}

function missingPairs(from: Side, a: Map<string, IndexedItem>, other: Map<string, IndexedItem>): string | undefined {
  const missing = [...a.values()].filter((x) => !other.has(x.id));
  if (missing.length === 0) return undefined;
  const shown = missing.slice(0, 5).map((x) => itemLabel(from, x.index, x.id));
  const more = missing.length > 5 ? ` and ${missing.length - 5} more` : '';
  return `${missing.length} item(s) of ${from} have no pair in ${from === 'treatment' ? 'baseline' : 'treatment'}: ${shown.join(', ')}${more}`;
}

function metricValue(side: Side, entry: IndexedItem, c: DecisionCriterion): number {
  const label = itemLabel(side, entry.index, entry.id);
  const { item } = entry;
  let value: unknown;
  let what: string;
  if (item.metrics !== undefined) {
    if (typeof item.metrics !== 'object' || item.metrics === null || Array.isArray(item.metrics)) {
      throw new RlAdvantagesError(`${label}.metrics must be an object of metric values, got ${describe(item.metrics)}`, {
        code: 'bad_item',
        field: side,
        index: entry.index,
      });
    }
    value = (item.metrics as Record<string, unknown>)[c.metric];
    what = `metrics.${c.metric}`;
    if (value === undefined) {
      throw new RlAdvantagesError(`${label}.metrics has no value for metric ${JSON.stringify(c.metric)} of criterion ${JSON.stringify(c.id)}`, {
        code: 'missing_metric',
        field: side,
        index: entry.index,
      });
    }
  } else if (item.score !== undefined) {
    value = item.score;
    what = 'score';
  } else {
    value = item.correct;
    what = 'correct';
    if (typeof value !== 'boolean') {
      throw new RlAdvantagesError(`${label}.correct must be a boolean, got ${describe(value)}`, {
        code: 'bad_item',
        field: side,
        index: entry.index,
      });
    }
  }
  const y = typeof value === 'boolean' ? (value ? 1 : 0) : value;
  if (typeof y !== 'number' || !Number.isFinite(y)) {
    throw new RlAdvantagesError(`${label}.${what} must be a finite number, got ${describe(value)}`, {
      code: 'non_finite',
      field: side,
      index: entry.index,
    });
  }
  const [lo, hi] = c.bounds;
  if (y < lo || y > hi) {
    throw new RlAdvantagesError(
      `${label}.${what} is ${y}, outside the bounds [${lo}, ${hi}] of criterion ${JSON.stringify(c.id)} (metric ${JSON.stringify(c.metric)})`,
      { code: 'out_of_bounds', field: side, index: entry.index },
    );
  }
  return y;
}

/**
 * The items of both arms paired one-to-one by item_id, in treatment order (so the sum, and the estimate, is
 * deterministic for a given input).
 *
 * @throws {RlAdvantagesError} `missing_pair`, `duplicate_item`, `bad_item`, `bad_type`, `empty`, naming side and index.
 */
export function pairItems(treatmentItems: unknown, baselineItems: unknown): (readonly [IndexedItem, IndexedItem])[] {
  const treatment = indexItems('treatment', treatmentItems);
  const baseline = indexItems('baseline', baselineItems);
  const problems = [missingPairs('treatment', treatment, baseline), missingPairs('baseline', baseline, treatment)].filter(
    (x): x is string => x !== undefined,
  );
  if (problems.length > 0) {
    throw new RlAdvantagesError(`items must pair one-to-one by item_id: ${problems.join('; ')}`, {
      code: 'missing_pair',
      field: treatment.size >= baseline.size ? 'treatment' : 'baseline',
    });
  }
  return [...treatment.values()].map((t) => [t, baseline.get(t.id) as IndexedItem] as const);
}

/**
 * d_i = w_t * y_t,i + w_b * y_b,i for every pair. With `binary` (true, or the name of a method for 0/1 outcomes, used
 * in the message) each y must be 0 or 1.
 *
 * @throws {RlAdvantagesError} as {@link pairItems} for a bad value; `not_binary` naming side, index and item id.
 */
export function criterionDifferences(
  pairs: readonly (readonly [IndexedItem, IndexedItem])[],
  c: DecisionCriterion,
  binary: boolean | string,
): Float64Array {
  const d = new Float64Array(pairs.length);
  const value = (side: Side, entry: IndexedItem): number => {
    const y = metricValue(side, entry, c);
    if (binary !== false && y !== 0 && y !== 1) {
      throw new RlAdvantagesError(
        `${itemLabel(side, entry.index, entry.id)} has ${c.metric} ${y}: ${typeof binary === 'string' ? binary : 'this criterion'} needs 0/1 outcomes (correct true/false, or a score of 0 or 1)`,
        { code: 'not_binary', field: side, index: entry.index },
      );
    }
    return y;
  };
  pairs.forEach(([t, b], i) => {
    d[i] = c.weights.treatment * value('treatment', t) + c.weights.baseline * value('baseline', b);
  });
  return d;
}

/**
 * n11 of a criterion over 0/1 outcomes: the pairs where both arms' value is 1 (the concordant both-right items,
 * which the differences d_i = 0 do not tell from both-wrong; `paired_newcombe` needs them). Call it after
 * {@link criterionDifferences} with `binary` set, which has checked every value is 0 or 1.
 *
 * @throws {RlAdvantagesError} as {@link criterionDifferences}.
 */
export function criterionBothOnes(pairs: readonly (readonly [IndexedItem, IndexedItem])[], c: DecisionCriterion): number {
  let n11 = 0;
  for (const [t, b] of pairs) {
    if (metricValue('treatment', t, c) === 1 && metricValue('baseline', b, c) === 1) n11 += 1;
  }
  return n11;
}
