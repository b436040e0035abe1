// The eval files' row format: one `{"item_id": string, "correct": boolean}` a line.
import { RlAdvantagesError } from '../errors.js';

/**
 * Per-item correctness from an eval file (one `{"item_id": string, "correct": boolean}` a line).
 *
 * @throws `RlAdvantagesError` (code `bad_artifact`) naming the file and line of a malformed row.
 */
export function parseEvalItems(text: string, file: string): Map<string, boolean> {
  const items = new Map<string, boolean>();
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    let row: unknown;
    try {
      row = JSON.parse(line);
    } catch {
      throw new RlAdvantagesError(`${file}:${i + 1}: not a JSON object`, { code: 'bad_artifact', field: file, index: i + 1 });
    }
    const r = row as { item_id?: unknown; correct?: unknown };
    if (typeof r.item_id !== 'string' || typeof r.correct !== 'boolean') {
      throw new RlAdvantagesError(`${file}:${i + 1}: field "item_id" must be a string and "correct" a boolean`, {
        code: 'bad_artifact',
        field: typeof r.item_id !== 'string' ? 'item_id' : 'correct',
        index: i + 1,
      });
    }
    items.set(r.item_id, r.correct);
  });
  return items;
}
