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

/** One line of the replicates file, read: its row and both arms' files. */
interface ReplicateLine {
  readonly row: Row;
  readonly seed: number;
  readonly treatment: Arm;
  readonly baseline: Arm;
}

const FIELDS = ['seed', 'treatment', 'baseline'];

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
    if (unknown !== undefined) throw row.error(unknown, 'is not a field of a replicate: each line is {seed, treatment, baseline}');
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
export async function decideReplicates(file: string, rule: DecisionRule, io: CliIo, method?: SeedMethodName): Promise<SeedDecision> {
  const lines = await readReplicates(file, io);
  try {
    return decideAcrossSeeds({
      replicates: lines.map((l) => ({ seed: l.seed, treatment: l.treatment.items, baseline: l.baseline.items })),
      rule,
      ...(method === undefined ? {} : { method }),
    });
  } catch (error) {
    throw replicateError(error, file, lines);
  }
}

const SEED_METHOD_WORDS: Readonly<Record<SeedMethodName, string>> = {
  seed_item_t: "seed_item_t (seeds and items both sampled: seed_t's variance plus the items' sampling variance, S - 1 df)",
  seed_t: 'seed_t (t on the per-seed differences, S - 1 df; for these test items only)',
};

/** The readable form: each seed with its own paired decision, then the pooled answer. */
export function seedDecisionText(d: SeedDecision): string {
  const json = seedDecisionJson(d);
  const rows = d.perSeed.map((p) => {
    const c = p.decision.criteria[0];
    return [String(p.seed), String(p.n), num(p.treatmentAccuracy), num(p.baselineAccuracy), signed(p.estimate), c === undefined ? '-' : `[${signed(c.lower)}, ${signed(c.upper)}]`, p.decision.verdict];
  });
  const criteria = d.criteria.map((c) => [c.id, c.metric, signed(c.estimate), `[${signed(c.lower)}, ${signed(c.upper)}]`, num(c.df, 1), signed(c.margin), c.verdict]);
  return (
    `decision across ${plural(d.seeds, 'seed')} x ${plural(d.n, 'paired item')}: ${SEED_METHOD_WORDS[d.method]}, alpha = ${d.alpha}` +
    (d.comparisons > 1 ? `, ${d.comparisons} criteria (Bonferroni: alpha/${d.comparisons} each)` : '') +
    '\n' +
    (json.note === undefined ? '' : `note: ${json.note}\n`) +
    `\neach seed alone (${methodLabel(d.pairedMethod)}, about that seed's two checkpoints only; first criterion):\n\n` +
    table(['seed', 'n', 'treatment', 'baseline', 'difference', 'interval', 'verdict'], rows) +
    `\nbetween-seed SD of the difference: ${num(d.betweenSeedSd)} (run-to-run part ${num(d.seedComponentSd)}, item noise taken out)\n\n` +
    `across seeds:\n\n` +
    table(['criterion', 'metric', 'estimate', 'interval', 'df', 'margin', 'verdict'], criteria) +
    `\nverdict: ${d.verdict}\n` +
    `scope: ${d.method === 'seed_t' ? 'the expected difference over training runs (seeds) on these test items' : 'the expected difference over training runs (seeds) and test items (as a sample of their population)'}, ${plural(d.seeds, 'run')} per arm (docs/method.md section 5.8)\n`
  );
}
