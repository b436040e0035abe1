// Per-item result files of two arms (as decide and plan --pilot read them), paired by item_id.
import { RlAdvantagesError } from '../errors.js';
import { describe } from '../internal/validate.js';
import { isAccuracyDifference } from '../stats/criteria.js';
import { criterionBothOnes, criterionDifferences, pairItems, type PairedItem } from '../stats/items.js';
import type { DecisionRule } from '../study/spec.js';
import { CliUsageError, type CliIo } from './core.js';
import { plural } from './format.js';
import { inputError, readJsonl, type Row } from './io.js';

/** One arm's prediction file: its rows (for line numbers) and the items they give. */
export interface Arm {
  readonly file: string;
  readonly rows: readonly Row[];
  readonly items: PairedItem[];
}

const FORMS = ['correct', 'score', 'metrics'] as const;

/**
 * Reads a prediction file: JSON lines `{item_id, correct: boolean}`, `{item_id, score: number}` or
 * `{item_id, metrics: {name: value}}`; other fields are ignored. Each item_id appears once.
 */
export async function readPredictions(file: string, option: string, io: CliIo): Promise<Arm> {
  const rows = await readJsonl(file, io, option);
  const seen = new Map<string, number>();
  const items = rows.map((row): PairedItem => {
    const id = row.value.item_id;
    if (!((typeof id === 'string' && id !== '') || (typeof id === 'number' && Number.isInteger(id)))) {
      throw row.error('item_id', `must be a non-empty string or an integer, got ${describe(id)}`);
    }
    const first = seen.get(String(id));
    if (first !== undefined) throw row.error('item_id', `${JSON.stringify(id)} repeats the item of line ${first}; each item appears once`);
    seen.set(String(id), row.line);
    const given = FORMS.filter((f) => row.has(f));
    if (given.length !== 1) {
      throw row.error(
        given[1] ?? 'correct',
        given.length === 0
          ? 'is missing: each row gives {item_id, correct: true|false} or {item_id, score: number}'
          : `gives ${given.join(' and ')}; give exactly one of correct, score, metrics`,
      );
    }
    const form = given[0] as (typeof FORMS)[number];
    if (form === 'correct') return { item_id: id, correct: row.boolean('correct') };
    if (form === 'score') return { item_id: id, score: row.number('score') };
    const metrics = row.value.metrics;
    if (typeof metrics !== 'object' || metrics === null || Array.isArray(metrics)) {
      throw row.error('metrics', 'must be an object of metric name -> number');
    }
    return { item_id: id, metrics: metrics as Record<string, number> };
  });
  return { file, rows, items };
}

/** Items must pair one-to-one by id: the first unpaired row of either file is the error. */
export function checkPairs(a: Arm, b: Arm): void {
  for (const [from, other] of [
    [a, b],
    [b, a],
  ] as const) {
    const ids = new Set(other.items.map((item) => String(item.item_id)));
    const unpaired = from.items.map((item, i) => [item, i] as const).filter(([item]) => !ids.has(String(item.item_id)));
    const first = unpaired[0];
    if (first !== undefined) {
      const more = unpaired.length > 1 ? ` (and ${plural(unpaired.length - 1, 'more item')} of ${from.file})` : '';
      throw inputError(
        from.file,
        from.rows[first[1]]?.line,
        'item_id',
        `${JSON.stringify(first[0].item_id)} has no pair in ${other.file}${more}; items pair one-to-one by item_id`,
      );
    }
  }
}

/**
 * A library error about an item, in command-line words: the library names the side ("treatment"/"baseline") and
 * the item's index, which become the file and line.
 */
export function itemError(error: unknown, treatment: Arm, baseline: Arm): unknown {
  if (!(error instanceof RlAdvantagesError)) return error;
  const arm = error.field === 'baseline' ? baseline : error.field === 'treatment' ? treatment : undefined;
  if (arm === undefined) return new CliUsageError(error.message);
  const line = error.index === undefined ? undefined : arm.rows[error.index]?.line;
  return inputError(arm.file, line, undefined, error.message);
}

/**
 * D from two arms' pilot results: the share of paired items where the 0/1 outcomes of the rule's first 0/1
 * criterion differ, and the two arms' mean accuracy on it (paired_newcombe's control accuracy; docs/method.md
 * section 5.6).
 *
 * @throws {CliUsageError} for unreadable or unpaired files, a value that is not 0/1 (file and line), no 0/1
 *   criterion, or no discordant pair at all (D = 0 says nothing about power).
 */
export async function pilotDiscordance(files: readonly string[], rule: DecisionRule, io: CliIo): Promise<{ discordance: number; controlAccuracy: number }> {
  const [t, b] = files as [string, string];
  const treatment = await readPredictions(t, '--pilot', io);
  const baseline = await readPredictions(b, '--pilot', io);
  checkPairs(treatment, baseline);
  const criterion = rule.criteria.find(isAccuracyDifference);
  if (criterion === undefined) throw new CliUsageError('--pilot: no criterion of the spec compares 0/1 outcomes, so D means nothing here');
  let d: Float64Array;
  let n11: number;
  try {
    const pairs = pairItems(treatment.items, baseline.items);
    d = criterionDifferences(pairs, criterion, true);
    n11 = criterionBothOnes(pairs, criterion);
  } catch (error) {
    throw itemError(error, treatment, baseline);
  }
  const discordant = d.reduce((sum, x) => sum + (x !== 0 ? 1 : 0), 0);
  if (discordant === 0) {
    throw new CliUsageError(`--pilot: the two files agree on all ${d.length} items (D = 0); power needs D > 0: give --discordance D`);
  }
  // The mean accuracy of the two arms, (2 n11 + m) / (2n): what each arm has if they are equal (paired_newcombe's p2).
  return { discordance: discordant / d.length, controlAccuracy: (2 * n11 + discordant) / (2 * d.length) };
}
