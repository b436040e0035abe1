// One eval job whose rows are checked against the items asked for: a backend that keeps a finished job's eval file
// (TRL, Tinker: a resumed phase reads it back) may hand back a file cut at a line boundary or of other items; such a
// file is removed and the checkpoint evaluated again, once. A backend that still answers with other rows is named.
import { rmSync } from 'node:fs';
import type { Gsm8kItem } from '../../data/gsm8k.js';
import { RlAdvantagesError } from '../../errors.js';
import type { EvalRow } from '../backends/types.js';
import type { PhaseContext } from './context.js';

/** Where the rows stop covering the items in order, in words, or null when they are exactly the items. */
function rowsDiffer(rows: readonly EvalRow[], items: readonly Gsm8kItem[]): string | null {
  if (rows.length !== items.length) return `${rows.length} rows for ${items.length} items`;
  const i = rows.findIndex((row, k) => row.item_id !== items[k]?.id);
  return i < 0 ? null : `row ${i + 1} is item ${rows[i]?.item_id} where ${items[i]?.id} was asked for`;
}

/**
 * Runs `evaluate` (the backend's eval of a policy on `items` into `out`), and checks the rows are the items, in order.
 *
 * @throws {RlAdvantagesError} `driver_failed` naming `out` when a second evaluation still does not cover the items.
 * @example
 * ```ts
 * const rows = await evaluateWhole(ctx, () => ctx.backend.evaluate(ctx.study, 'init', items, out), items, out);
 * ```
 */
export async function evaluateWhole(ctx: PhaseContext, evaluate: () => Promise<EvalRow[]>, items: readonly Gsm8kItem[], out: string): Promise<EvalRow[]> {
  const rows = await evaluate();
  const kept = rowsDiffer(rows, items);
  if (kept === null) return rows;
  ctx.options.onPhase?.({ kind: 'note', line: `${out}: ${kept} (a kept file cut short or of another run); evaluating again` });
  rmSync(out, { force: true });
  const again = await evaluate();
  const still = rowsDiffer(again, items);
  if (still !== null) throw new RlAdvantagesError(`${out}: the ${ctx.backend.name} backend's eval gave ${still}`, { code: 'driver_failed', field: out });
  return again;
}
