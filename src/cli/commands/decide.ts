// rl-adv decide: the spec's paired Hoeffding decision on two arms' per-item results.
import type { Command } from 'commander';
import { RlAdvantagesError } from '../../errors.js';
import { describe } from '../../internal/validate.js';
import { decide, decisionJson, notSpecMethodNote, type Decision } from '../../stats/decision.js';
import type { PairedItem } from '../../stats/items.js';
import { num, plural, signed, table } from '../format.js';
import { inputError, readJsonl, type Row } from '../io.js';
import { CliUsageError, withExamples, type CliIo } from '../core.js';
import { readSpec } from '../spec.js';

interface DecideOptions {
  spec: string;
  treatment: string;
  baseline: string;
  json?: boolean;
}

/** One arm's prediction file: its rows (for line numbers) and the items they give. */
interface Arm {
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
function checkPairs(a: Arm, b: Arm): void {
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


/** Each arm's mean of a criterion's metric (its accuracy for `correct` rows), shown beside the difference. */
export interface ArmMeans {
  readonly treatment: number;
  readonly baseline: number;
}

/** The mean over an arm's items of `metric`: `correct` counts 1 or 0, `score` itself, `metrics` its entry. */
export function armMean(items: readonly PairedItem[], metric: string): number {
  let total = 0;
  for (const item of items) {
    const i = item as { correct?: boolean; score?: number; metrics?: Record<string, number> };
    total += i.metrics !== undefined ? (i.metrics[metric] as number) : i.score !== undefined ? i.score : i.correct === true ? 1 : 0;
  }
  return total / items.length;
}

/** The readable form; `means` (by criterion id) adds each arm's mean beside the difference. */
export function decisionText(d: Decision, means: Readonly<Record<string, ArmMeans>> = {}): string {
  const k = d.comparisons;
  const head =
    `paired Hoeffding decision: n = ${plural(d.n, 'paired item')}, alpha = ${d.alpha}` +
    (k > 1 ? `, ${k} criteria (Bonferroni: alpha/${k} each)` : ', 1 criterion') +
    '\n\n';
  const shown = d.criteria.every((c) => Object.hasOwn(means, c.id));
  const rows = d.criteria.map((c) => [
    c.id,
    c.metric,
    ...(shown ? [num(means[c.id]?.treatment), num(means[c.id]?.baseline)] : []),
    signed(c.estimate),
    `±${num(c.halfWidth)}`,
    `[${signed(c.lower)}, ${signed(c.upper)}]`,
    signed(c.margin),
    c.verdict,
  ]);
  const arms = shown ? ['treatment', 'baseline'] : [];
  return head + table(['criterion', 'metric', ...arms, 'estimate', 'half-width', 'interval', 'margin', 'verdict'], rows) + `\nverdict: ${d.verdict}\n`;
}

async function run(options: DecideOptions, io: CliIo): Promise<void> {
  const spec = await readSpec(options.spec, io);
  const treatment = await readPredictions(options.treatment, '--treatment', io);
  const baseline = await readPredictions(options.baseline, '--baseline', io);
  checkPairs(treatment, baseline);
  let decision: Decision;
  try {
    decision = decide(spec.decisionRule, treatment.items, baseline.items);
  } catch (error) {
    if (!(error instanceof RlAdvantagesError)) throw error;
    // The library names the side ("treatment"/"baseline") and the item's index: say file and line.
    const arm = error.field === 'baseline' ? baseline : error.field === 'treatment' ? treatment : undefined;
    if (arm === undefined) throw new CliUsageError(error.message);
    const line = error.index === undefined ? undefined : arm.rows[error.index]?.line;
    throw inputError(arm.file, line, undefined, error.message);
  }
  const means: Record<string, ArmMeans> = {};
  for (const c of decision.criteria) means[c.id] = { treatment: armMean(treatment.items, c.metric), baseline: armMean(baseline.items, c.metric) };
  io.stdout.write(options.json === true ? JSON.stringify(decisionJson(decision), null, 2) + '\n' : decisionText(decision, means));
}

/** Registers `rl-adv decide`. */
export function register(program: Command, io: CliIo): void {
  const command = program
    .command('decide')
    .summary("decide the study with the spec's paired Hoeffding rule")
    .description(
      "Applies the spec's decision_rule (docs/method.md section 5): items are paired by item_id, each criterion " +
        'gets the interval mean(d) ± R·sqrt(ln(2k/alpha)/(2n)) and the verdict validated (lower > margin), ' +
        'failed (upper < margin) or inconclusive. Prediction files are JSON lines, one item a line: ' +
        '{"item_id": "gsm8k_test_0", "correct": true} or {"item_id": 0, "score": 0.5}.',
    )
    .requiredOption('--spec <file>', 'the study spec (JSON)')
    .requiredOption('--treatment <file>', "the treatment arm's per-item results (JSON lines)")
    .requiredOption('--baseline <file>', "the baseline arm's per-item results (JSON lines)")
    .option('--json', 'print {method, alpha, n, verdict, criteria: [{id, metric, estimate, lower, upper, margin, verdict}]}')
    .action(async (options: DecideOptions) => run(options, io));
  withExamples(command, ['rl-adv decide --spec gs1-vs-grpo.spec.json --treatment gs1.jsonl --baseline grpo.jsonl']);
}
