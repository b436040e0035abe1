// rl-adv plan --seeds S: the power of the decision across seeds (docs/method.md section 5.9) at S seeds x n items.
import { InvalidArgumentError } from 'commander';
import { RlAdvantagesError } from '../../errors.js';
import type { DecisionRule } from '../../stats/decision-rule.js';
import { seedDesignPower, type SeedDesignPowerJson } from '../../stats/seed-power.js';
import type { SeedMethodName } from '../../stats/seed-method-names.js';
import { num, signed, table } from '../format.js';
import { CliUsageError, type CliIo } from '../core.js';
import { displayName, readJson } from '../io.js';

/** The seed-level options of `plan`. */
export interface SeedPlanOptions {
  seeds?: number;
  betweenSeedSd?: number;
  itemSd?: number;
  effect?: number;
  seedMethod?: SeedMethodName;
  fromDecision?: string;
  /** From a K-arm decision (`--from-decision`): each comparison's run-to-run SD and item SD, by comparison id. */
  comparisonSd?: Readonly<Record<string, { seedSd: number; itemSd?: number }>>;
}

/** A number field of a decision's JSON, when it is one. */
function field(o: unknown, key: string): number | undefined {
  const v = typeof o === 'object' && o !== null ? (o as Record<string, unknown>)[key] : undefined;
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

/**
 * `--from-decision FILE`: the run-to-run SD (and item SD and seed count) of a `rl-adv decide --replicates --json`
 * output, a study's decision.json or summary.json (their `decision`); a file from before the SDs were named apart
 * gives its `seed_component_sd`, the same quantity. Sets --between-seed-sd, and --item-sd and --seeds unless given.
 *
 * @throws {CliUsageError} the file is not a decision across seeds, or --between-seed-sd is given too.
 */
export async function applyFromDecision(o: SeedPlanOptions, io: CliIo): Promise<SeedPlanOptions> {
  if (o.fromDecision === undefined) return o;
  if (o.betweenSeedSd !== undefined) throw new CliUsageError('give --between-seed-sd X or --from-decision FILE (its run-to-run SD), not both');
  const raw = await readJson(o.fromDecision, io, '--from-decision');
  const list = (raw as { comparisons?: unknown } | null)?.comparisons;
  if (Array.isArray(list)) return fromComparisons(o, list, o.fromDecision);
  const d = field(raw, 'run_to_run_sd') !== undefined || field(raw, 'seed_component_sd') !== undefined ? raw : (raw as { decision?: unknown } | null)?.decision;
  const sd = field(d, 'run_to_run_sd') ?? field(d, 'seed_component_sd');
  if (sd === undefined) {
    throw new CliUsageError(`--from-decision ${displayName(o.fromDecision)}: no run_to_run_sd: give the JSON of rl-adv decide --replicates --json (or a replicated study's decision.json)`);
  }
  const itemSd = o.itemSd ?? field(d, 'item_component_sd');
  const seeds = o.seeds ?? field(d, 'seeds');
  return { ...o, betweenSeedSd: sd, ...(itemSd === undefined ? {} : { itemSd }), ...(seeds === undefined ? {} : { seeds }) };
}

/**
 * A K-arm decision (decision.json or summary.json with `comparisons`): each comparison's run-to-run SD (and item SD
 * when recorded) by id, and the seed count unless --seeds is given (docs/method.md section 5.10).
 *
 * @throws {CliUsageError} a comparison without an id or a run-to-run SD (a one-seed run has none), naming its index.
 */
function fromComparisons(o: SeedPlanOptions, list: readonly unknown[], file: string): SeedPlanOptions {
  const name = displayName(file);
  if (list.length === 0) throw new CliUsageError(`--from-decision ${name}: comparisons is empty`);
  const comparisonSd: Record<string, { seedSd: number; itemSd?: number }> = {};
  list.forEach((c, i) => {
    const id = typeof c === 'object' && c !== null ? (c as { id?: unknown }).id : undefined;
    const sd = field(c, 'run_to_run_sd');
    if (typeof id !== 'string' || sd === undefined) {
      throw new CliUsageError(
        `--from-decision ${name}: comparisons[${i}] has no ${typeof id === 'string' ? `run_to_run_sd (comparison "${id}": a run with one seed has no run-to-run SD)` : 'id'}: give the decision.json of a K-arm study run with several seeds`,
      );
    }
    const itemSd = field(c, 'item_component_sd');
    comparisonSd[id] = { seedSd: sd, ...(itemSd === undefined ? {} : { itemSd }) };
  });
  const seeds = o.seeds ?? field(list[0], 'seeds');
  return { ...o, comparisonSd, ...(seeds === undefined ? {} : { seeds }) };
}

/** Parser for an SD in [0, 1). */
export function sdOption(value: string): number {
  const x = Number(value);
  if (value.trim() === '' || !Number.isFinite(x) || x < 0 || x >= 1) throw new InvalidArgumentError('must be a number in [0, 1).');
  return x;
}

/** Parser for a true difference in [-1, 1]. */
export function effectOption(value: string): number {
  const x = Number(value);
  if (value.trim() === '' || !Number.isFinite(x) || x < -1 || x > 1) throw new InvalidArgumentError('must be a number in [-1, 1].');
  return x;
}

/** The seed-level flags given without --seeds, by their names as typed. */
export function seedFlagsWithoutSeeds(o: SeedPlanOptions): string[] {
  return [
    ['--between-seed-sd', o.betweenSeedSd],
    ['--from-decision', o.fromDecision],
    ['--item-sd', o.itemSd],
    ['--effect', o.effect],
    ['--seed-method', o.seedMethod],
  ]
    .filter(([, v]) => v !== undefined)
    .map(([k]) => k as string);
}

const FLAGS: Readonly<Record<string, string>> = {
  seeds: '--seeds',
  n: '--n',
  effect: '--effect',
  seedSd: '--between-seed-sd',
  itemSd: '--item-sd',
  discordance: '--discordance',
  controlAccuracy: '--control-accuracy',
};

/** The seed-level power of a design, errors restated with the flag as typed. */
export function seedPlan(
  o: SeedPlanOptions & { rule: DecisionRule; n: number; discordance: SeedDesignPowerJson['discordance']; controlAccuracy: SeedDesignPowerJson['control_accuracy'] },
): SeedDesignPowerJson | null {
  if (o.betweenSeedSd === undefined) {
    throw new CliUsageError(
      "--seeds needs --between-seed-sd X: the run-to-run SD of a run pair's accuracy difference (e.g. 0.01 or 0.02; no default is honest), or --from-decision FILE to take a decision's run_to_run_sd",
    );
  }
  try {
    return seedDesignPower({
      rule: o.rule,
      seeds: o.seeds as number,
      n: o.n,
      effect: o.effect ?? 0,
      seedSd: o.betweenSeedSd,
      itemSd: o.itemSd ?? 0,
      discordance: o.discordance,
      controlAccuracy: o.controlAccuracy,
      ...(o.seedMethod === undefined ? {} : { method: o.seedMethod }),
      frontier: true,
    });
  } catch (error) {
    if (error instanceof RlAdvantagesError && error.field !== undefined && FLAGS[error.field] !== undefined) {
      throw new CliUsageError(`${FLAGS[error.field] as string}: ${error.message}`);
    }
    throw error;
  }
}

/** The readable form of a seed-level plan. */
export function seedPlanText(p: SeedDesignPowerJson): string {
  const pm = (x: number, e: number) => `${x.toFixed(4)} ± ${e.toFixed(4)}`;
  const frontier = (p.frontier ?? []).map((f) => [String(f.seeds), f.n_for_80_percent_power === null ? `not below ${p.n_cap}` : String(f.n_for_80_percent_power)]);
  return (
    `seed-level power (${p.method}) of criterion ${p.criterion}: margin ${signed(p.margin)}, alpha ${p.alpha}, S = ${p.seeds} seeds x n = ${p.n} items,\n` +
    `true difference ${signed(p.effect)}, run-to-run SD ${num(p.run_to_run_sd)} (--between-seed-sd), item SD ${num(p.item_sd)}, discordance D = ${num(p.discordance.value)} (${p.discordance.source}), ` +
    `control accuracy ${num(p.control_accuracy.value)} (${p.control_accuracy.source})\n` +
    `by simulation of the normal crossed random-effects model (docs/method.md section 5.9), ${p.replicates} draws, seed ${p.seed}:\n\n` +
    `P(validated) = ${pm(p.p_validated, p.mc_error.p_validated)}   P(failed) = ${pm(p.p_failed, p.mc_error.p_failed)}\n` +
    `n for 80% power at ${p.seeds} seeds: ${p.n_for_80_percent_power ?? `not below ${p.n_cap}`}; seeds for 80% power at ${p.n} items: ${p.seeds_for_80_percent_power ?? `not below ${p.seeds_cap}`}\n\n` +
    `n for 80% power by number of seeds:\n\n${table(['seeds', 'n for 80% power'], frontier)}`
  );
}
