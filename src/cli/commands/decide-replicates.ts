// rl-adv decide --replicates FILE: the decision across training seeds (docs/method.md section 5.8) from a JSON-lines
// file naming each seed's two eval files.
import { dirname, isAbsolute, resolve } from 'node:path';
import { RlAdvantagesError } from '../../errors.js';
import { describe } from '../../internal/validate.js';
import type { DecisionRule } from '../../stats/decision-rule.js';
import { decideAcrossSeeds, seedDecisionJson, type SeedDecision } from '../../stats/seeds.js';
import type { SeedMethodName } from '../../stats/seed-method-names.js';
import { methodLabel } from '../../stats/method-names.js';
import { num, plural, signed, table } from '../format.js';
import { CliUsageError, type CliIo } from '../core.js';
import { displayName, inputError, readJsonl, STDIO, type Row } from '../io.js';
import { readPredictions, type Arm } from '../predictions.js';
import { collapseWords } from '../../stats/seed-collapse.js';

/** One line of the replicates file, read: its row and both arms' files. */
interface ReplicateLine {
  readonly row: Row;
  readonly seed: number;
  readonly treatment: Arm;
  readonly baseline: Arm;
}

const FIELDS = ['seed', 'treatment', 'baseline', 'items'];

/** The replicates file's `items` ("shared" or "per_seed"), which every line that gives it must agree on. */
function itemSetsOf(lines: readonly ReplicateLine[]): 'shared' | 'per_seed' | undefined {
  let found: { value: 'shared' | 'per_seed'; line: number } | undefined;
  for (const l of lines) {
    const v = l.row.value.items;
    if (v === undefined) continue;
    if (v !== 'shared' && v !== 'per_seed') throw l.row.error('items', `must be "shared" (every seed on the same items) or "per_seed" (each seed its own items), got ${describe(v)}`);
    if (found !== undefined && found.value !== v) throw l.row.error('items', `is "${v}" but line ${found.line} says "${found.value}": every line must agree`);
    found ??= { value: v, line: l.row.line };
  }
  return found?.value;
}

/** A path of the replicates file, relative to its folder (the working folder for stdin). */
function pathOf(file: string, path: string): string {
  return isAbsolute(path) ? path : resolve(file === STDIO ? process.cwd() : dirname(file), path);
}

/**
 * Reads the replicates file: JSON lines `{seed, treatment, baseline}`, the two paths relative to the file's folder;
 * every eval file read as `decide` reads `--treatment` / `--baseline`.
 *
 * @throws {CliUsageError} `FILE:LINE: field "F": ...` for an unknown field, a seed that is not an integer or repeats
 *   one, a missing or empty path; fewer than 2 lines; an eval file's own errors name that file and line.
 */
export async function readReplicates(file: string, io: CliIo): Promise<ReplicateLine[]> {
  const rows = await readJsonl(file, io, '--replicates');
  const seen = new Map<number, number>();
  const lines: ReplicateLine[] = [];
  for (const row of rows) {
    const unknown = Object.keys(row.value).find((k) => !FIELDS.includes(k));
    if (unknown !== undefined) throw row.error(unknown, 'is not a field of a replicate: each line is {seed, treatment, baseline} (and optionally items: "shared" or "per_seed")');
    const seed = row.number('seed', 'the training seed, an integer');
    if (!Number.isSafeInteger(seed)) throw row.error('seed', `must be an integer, got ${describe(seed)}`);
    const first = seen.get(seed);
    if (first !== undefined) throw row.error('seed', `${seed} repeats the seed of line ${first}; each seed appears once`);
    seen.set(seed, row.line);
    const paths = ['treatment', 'baseline'].map((side) => {
      const path = row.string(side, `the path of the ${side} arm's per-item results for this seed, relative to ${displayName(file)}'s folder`);
      if (path === '') throw row.error(side, 'must be a non-empty path');
      return pathOf(file, path);
    }) as [string, string];
    const where = `${displayName(file)}:${row.line} (seed ${seed})`;
    const treatment = await readPredictions(paths[0], `--replicates ${where} treatment`, io);
    const baseline = await readPredictions(paths[1], `--replicates ${where} baseline`, io);
    lines.push({ row, seed, treatment, baseline });
  }
  if (lines.length < 2) {
    throw inputError(file, undefined, undefined, `holds ${plural(lines.length, 'replicate')}${lines.length === 1 ? ` (seed ${lines[0]?.seed})` : ''}: a decision across seeds needs at least 2 seeds`);
  }
  return lines;
}

/** A library error about replicates[r] restated at the replicates file's line or the eval file's line. */
function replicateError(error: unknown, file: string, lines: readonly ReplicateLine[]): unknown {
  if (!(error instanceof RlAdvantagesError)) return error;
  const m = /^replicates\[(\d+)\](?:\.(treatment|baseline|seed))?/.exec(error.field ?? '');
  const line = m === null ? undefined : lines[Number(m[1])];
  if (m === null || line === undefined) return new CliUsageError(error.message);
  const side = m[2];
  if (error.code === 'item_set_mismatch' || side === 'seed' || side === undefined) {
    return line.row.error(error.code === 'item_set_mismatch' ? 'treatment' : side, error.message);
  }
  const arm = side === 'treatment' ? line.treatment : line.baseline;
  const at = error.index === undefined ? undefined : arm.rows[error.index]?.line;
  return inputError(arm.file, at, undefined, `${displayName(file)}:${line.row.line}: ${error.message}`);
}

/** Decides across the seeds of a replicates file. */
export async function decideReplicates(file: string, rule: DecisionRule, io: CliIo, method?: SeedMethodName, seedItems?: 'shared' | 'per_seed'): Promise<SeedDecision> {
  const lines = await readReplicates(file, io);
  const itemSets = seedItems ?? itemSetsOf(lines);
  try {
    return decideAcrossSeeds({
      replicates: lines.map((l) => ({ seed: l.seed, treatment: l.treatment.items, baseline: l.baseline.items })),
      rule,
      ...(method === undefined ? {} : { method }),
      ...(itemSets === undefined ? {} : { itemSets }),
    });
  } catch (error) {
    throw replicateError(error, file, lines);
  }
}

const SEED_METHOD_WORDS: Readonly<Record<SeedMethodName, string>> = {
  seed_item_t: "seed_item_t (seeds and items both sampled: seed_t's variance plus the items' sampling variance, S - 1 df)",
  seed_t: 'seed_t (t on the per-seed differences, S - 1 df; for these test items only)',
};

function methodWords(d: SeedDecision): string {
  return d.itemSets === 'per_seed' ? 't on the per-seed means (each seed on its own items, S - 1 df)' : SEED_METHOD_WORDS[d.method];
}

/** What the interval is about, said honestly: never "items as a sample" when n = 1 or seed_t. */
function scopeWords(d: SeedDecision): string {
  const runs = `${plural(d.seeds, 'run')} per arm (docs/method.md section 5.8)`;
  if (d.fallback?.rule === 'whole_range') return `no interval could be made (${d.fallback.reason}); ${runs}`;
  if (d.itemSets === 'per_seed') return `the expected difference over training runs (seeds) and test items (each seed's own items as a sample of their population), ${runs}`;
  if (d.n === 1) return `the expected difference over training runs (seeds) on this one test item only (items are not covered), ${runs}`;
  if (d.method === 'seed_t') return `the expected difference over training runs (seeds) on these test items, ${runs}`;
  return `the expected difference over training runs (seeds) and test items (as a sample of their population), ${runs}`;
}

/** The fallback and outlier lines of the readable form. */
function warningLines(d: SeedDecision): string {
  const lines: string[] = [];
  if (d.fallback !== null) lines.push(`${d.fallback.rule === 'whole_range' ? 'NO INTERVAL' : 'variance floor'}: ${d.fallback.text}`);
  for (const o of d.outliers) {
    lines.push(`WARNING: seed ${o.seed} is an outlier (difference ${signed(o.estimate)}, score ${num(o.score, 3)} against the other seeds, cutoff ${num(o.cutoff, 3)}: 1% false alarms under normal runs; a collapsed run?): the t interval assumes normal run effects (docs/method.md section 5.8)`);
  }
  return lines.map((l) => `${l}\n`).join('');
}

/** The readable form: each seed with its own paired decision, then the pooled answer. */
export function seedDecisionText(d: SeedDecision): string {
  const json = seedDecisionJson(d);
  const rows = d.perSeed.map((p) => {
    const c = p.decision.criteria[0];
    return [String(p.seed), String(p.n), num(p.treatmentAccuracy), num(p.baselineAccuracy), signed(p.estimate), c === undefined ? '-' : `[${signed(c.lower)}, ${signed(c.upper)}]`, p.decision.verdict];
  });
  const level = `${Number((d.level * 100).toPrecision(6))}%`;
  const criteria = d.criteria.map((c) => [c.id, c.metric, signed(c.estimate), `[${signed(c.lower)}, ${signed(c.upper)}]`, num(c.df, 1), signed(c.margin), c.verdict]);
  return (
    `decision across ${plural(d.seeds, 'seed')} x ${plural(d.n, 'paired item')}${d.itemSets === 'per_seed' ? ' (the smallest seed; each seed its own items)' : ''}: ${methodWords(d)}, alpha = ${d.alpha}` +
    (d.comparisons > 1 ? `, ${d.comparisons} criteria (Bonferroni: alpha/${d.comparisons} each)` : '') +
    '\n' +
    (json.note === undefined ? '' : `note: ${json.note}\n`) +
    `\neach seed alone (${methodLabel(d.pairedMethod)}, about that seed's two checkpoints only; first criterion):\n\n` +
    table(['seed', 'n', 'treatment', 'baseline', 'difference', 'interval', 'verdict'], rows) +
    `\nSD of the per-seed differences: ${num(d.perSeedDifferenceSd)} (what the data show: run-to-run spread plus each seed's item noise)\n` +
    `run-to-run SD: ${num(d.runToRunSd)} (item noise taken out; what plan --between-seed-sd takes: rl-adv plan --from-decision FILE)\n` +
    warningLines(d) +
    `\nacross seeds (${level} intervals${d.comparisons > 1 ? `: 1 - alpha/${d.comparisons}` : ''}):\n\n` +
    table(['criterion', 'metric', 'estimate', 'interval', 'df', 'margin', 'verdict'], criteria) +
    `\nverdict: ${d.verdict}\n` +
    `collapse: ${collapseWords(d.seeds, d.alpha)}\n` +
    `scope: ${scopeWords(d)}\n`
  );
}
