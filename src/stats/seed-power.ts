// The power of the seed-level decision over S seeds x n items (docs/method.md section 5.9), by simulation of the
// normal crossed random-effects model's sufficient statistics, seeded, with its Monte-Carlo error.
import seedrandom from 'seedrandom';
import { RlAdvantagesError } from '../errors.js';
import { studentTUpperQuantile } from '../internal/student-t.js';
import { describe } from '../internal/validate.js';
import { isAccuracyDifference } from './criteria.js';
import { parseDecisionRule, type DecisionRule } from './decision-rule.js';
import { DEFAULT_SEED_METHOD, isSeedMethodName, SEED_METHOD_NAMES, type SeedMethodName } from './seed-method-names.js';

/** The cap of the n search. */
export const SEED_POWER_N_CAP = 100000;
/** The cap of the S search. */
export const SEED_POWER_SEEDS_CAP = 50;
/** The seed counts whose n for 80% power `seedDesignPower` lists. */
export const SEED_POWER_FRONTIER = [2, 3, 4, 5, 6, 8, 10, 15, 20] as const;

/** A seed-level design: what the power depends on. */
export interface SeedDesign {
  readonly method: SeedMethodName;
  readonly seeds: number;
  readonly n: number;
  /** Delta, the true expected difference. */
  readonly effect: number;
  readonly margin: number;
  readonly alpha: number;
  readonly comparisons: number;
  /** sigma_a, the SD over training runs of a run's expected difference. */
  readonly seedSd: number;
  /** sigma_b, the SD over items of an item's expected difference. */
  readonly itemSd: number;
  /** D, the share of items a treatment run and a baseline run disagree on. */
  readonly discordance: number;
}

/** P(validated) and P(failed) of a design, with the Monte-Carlo error of each. */
export interface SeedPower {
  readonly pValidated: number;
  readonly pFailed: number;
  readonly mcErrorValidated: number;
  readonly mcErrorFailed: number;
  readonly replicates: number;
}

/** Marsaglia and Tsang's (2000) Gamma(shape, 1) draw; shape < 1 by Gamma(shape + 1) U^(1/shape). */
function gamma(rng: () => number, shape: number): number {
  if (shape < 1) return gamma(rng, shape + 1) * (1 - rng()) ** (1 / shape);
  const d = shape - 1 / 3;
  const c = 1 / Math.sqrt(9 * d);
  for (;;) {
    let x: number;
    let v: number;
    do {
      x = normal(rng);
      v = 1 + c * x;
    } while (v <= 0);
    v = v * v * v;
    const u = 1 - rng();
    if (Math.log(u) < 0.5 * x * x + d - d * v + d * Math.log(v)) return d * v;
  }
}

function normal(rng: () => number): number {
  const u1 = 1 - rng();
  return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * rng());
}

/** sigma_e^2 = D - Delta^2 - sigma_a^2 - sigma_b^2: what is left of Var(d) = D - Delta^2 for the run-by-item noise. */
export function residualVariance(d: Pick<SeedDesign, 'discordance' | 'effect' | 'seedSd' | 'itemSd'>): number {
  return d.discordance - d.effect * d.effect - d.seedSd * d.seedSd - d.itemSd * d.itemSd;
}

/**
 * P(validated) and P(failed) of a seed-level design under the normal crossed random-effects model d_si = Delta + a_s +
 * b_i + e_si (docs/method.md section 5.9): the grand mean ~ N(Delta, sigma_a^2/S + sigma_b^2/n + sigma_e^2/(S n)),
 * MS_seed ~ (n sigma_a^2 + sigma_e^2) chi2_{S-1}/(S-1), MS_item ~ (S sigma_b^2 + sigma_e^2) chi2_{n-1}/(n-1),
 * MS_error ~ sigma_e^2 chi2_{(S-1)(n-1)}/((S-1)(n-1)), all independent (the balanced two-way layout); each draw gets the method's interval
 * (MS_seed floored at MS_error) and verdict. Seeded (seedrandom `rl-adv/seed-power/<seed>`), so a
 * design's figure is reproducible and designs share their normal draws.
 */
export function seedPowerBySimulation(d: SeedDesign, options: { replicates?: number; seed?: number } = {}): SeedPower {
  const R = options.replicates ?? 4000;
  const rng = seedrandom(`rl-adv/seed-power/${options.seed ?? 0}`);
  const { seeds: S, n } = d;
  const e2 = residualVariance(d);
  const sdMean = Math.sqrt((d.seedSd * d.seedSd) / S + (d.itemSd * d.itemSd) / n + e2 / (S * n));
  const eSeed = n * d.seedSd * d.seedSd + e2;
  const eItem = S * d.itemSd * d.itemSd + e2;
  const dfError = (S - 1) * (n - 1);
  const t = studentTUpperQuantile(d.alpha / (2 * d.comparisons), S - 1);
  let validated = 0;
  let failed = 0;
  for (let r = 0; r < R; r++) {
    const mean = d.effect + sdMean * normal(rng);
    const msSeed = (eSeed * 2 * gamma(rng, (S - 1) / 2)) / (S - 1);
    const msError = (e2 * 2 * gamma(rng, dfError / 2)) / dfError;
    // MS_seed floored at MS_error, as seedInterval does (docs/method.md section 5.8).
    let v = Math.max(msSeed, msError);
    if (d.method === 'seed_item_t') v += Math.max(0, (eItem * 2 * gamma(rng, (n - 1) / 2)) / (n - 1) - msError);
    const se = Math.sqrt(v / (S * n));
    const reject = (x: number): boolean => x > t;
    if (reject((mean - d.margin) / se)) validated++;
    else if (reject((d.margin - mean) / se)) failed++;
  }
  const pv = validated / R;
  const pf = failed / R;
  return { pValidated: pv, pFailed: pf, mcErrorValidated: Math.sqrt((pv * (1 - pv)) / R), mcErrorFailed: Math.sqrt((pf * (1 - pf)) / R), replicates: R };
}

/**
 * The smallest n in [2, cap] with P(validated) >= target at S seeds, by doubling then bisection (power is
 * monotone in n up to Monte-Carlo noise; the draws are shared, so it is the first n the search finds); null when even
 * the cap falls short (with sigma_a > 0 power is bounded as n grows: Var(mean) >= sigma_a^2 / S).
 */
export function seedNForPower(d: Omit<SeedDesign, 'n'>, options: { target?: number; replicates?: number; seed?: number } = {}): number | null {
  const target = options.target ?? 0.8;
  const ok = (n: number): boolean => seedPowerBySimulation({ ...d, n }, options).pValidated >= target;
  if (!ok(SEED_POWER_N_CAP)) return null;
  let lo = 1;
  let hi = 2;
  while (hi < SEED_POWER_N_CAP && !ok(hi)) {
    lo = hi;
    hi = Math.min(SEED_POWER_N_CAP, hi * 2);
  }
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (ok(mid)) hi = mid;
    else lo = mid;
  }
  return hi;
}

/** The smallest S in [2, cap] with P(validated) >= target at n items (S by S); null when the cap falls short. */
export function seedsForPower(d: Omit<SeedDesign, 'seeds'>, options: { target?: number; replicates?: number; seed?: number } = {}): number | null {
  const target = options.target ?? 0.8;
  for (let S = 2; S <= SEED_POWER_SEEDS_CAP; S++) {
    if (seedPowerBySimulation({ ...d, seeds: S }, options).pValidated >= target) return S;
  }
  return null;
}

/** The plain JSON of a seed-level design's power, as `rl-adv plan --seeds S --json` prints it. */
export interface SeedDesignPowerJson {
  method: SeedMethodName;
  /** The criterion (the first comparing 0/1 outcomes: bounds [0, 1], weights (1, -1) or (-1, 1)). */
  criterion: string;
  margin: number;
  alpha: number;
  comparisons: number;
  seeds: number;
  n: number;
  effect: number;
  /** sigma_a, the run-to-run SD assumed. */
  run_to_run_sd: number;
  /** @deprecated the same as run_to_run_sd. */
  seed_sd: number;
  item_sd: number;
  discordance: { value: number; source: 'given' | 'pilot' | 'observed' | 'assumed' };
  control_accuracy: { value: number; source: 'given' | 'pilot' | 'observed' | 'assumed' };
  /** sigma_e = sqrt(D - effect^2 - seed_sd^2 - item_sd^2). */
  residual_sd: number;
  p_validated: number;
  p_failed: number;
  /** The Monte-Carlo errors of p_validated and p_failed. */
  mc_error: { p_validated: number; p_failed: number };
  replicates: number;
  seed: number;
  /** The smallest n for 80% power at these seeds (null: not below n_cap). */
  n_for_80_percent_power: number | null;
  /** The smallest S for 80% power at this n (null: not below seeds_cap). */
  seeds_for_80_percent_power: number | null;
  /** Per S of the frontier (2, 3, 4, 5, 6, 8, 10, 15, 20) the smallest n for 80% power; only with `frontier`. */
  frontier?: { seeds: number; n_for_80_percent_power: number | null }[];
  n_cap: number;
  seeds_cap: number;
}

function checkNumber(field: string, value: unknown, lo: number, hi: number, open = false): number {
  const ok = typeof value === 'number' && Number.isFinite(value) && (open ? value > lo : value >= lo) && value <= hi;
  if (!ok) throw new RlAdvantagesError(`${field} must be a number in ${open ? '(' : '['}${lo}, ${hi}], got ${describe(value)}`, { code: 'bad_design', field });
  return value as number;
}

function checkInteger(field: string, value: unknown, min: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min) {
    throw new RlAdvantagesError(`${field} must be an integer >= ${min}, got ${describe(value)}`, { code: 'bad_integer', field });
  }
  return value;
}

/** The 2x2 table of (D, effect, p_b) must exist: p10 = (D + effect)/2 and p01 = (D - effect)/2 fit the arms' accuracies. */
function checkTable(D: number, effect: number, pb: number): void {
  const pt = pb + effect;
  const p10 = (D + effect) / 2;
  const p01 = (D - effect) / 2;
  const fits = pt >= 0 && pt <= 1 && p01 >= 0 && p10 <= Math.min(pt, 1 - pb) + 1e-12 && p01 <= Math.min(pb, 1 - pt) + 1e-12;
  if (!fits) {
    throw new RlAdvantagesError(
      `controlAccuracy ${pb} with effect ${effect} and discordance ${D}: no 2x2 table has them (the treatment's accuracy ${pt} must be in [0, 1], D >= |effect|, and (D + effect)/2 <= min(p_t, 1 - p_b), (D - effect)/2 <= min(p_b, 1 - p_t))`,
      { code: 'bad_control_accuracy', field: 'controlAccuracy' },
    );
  }
}

/**
 * The power of the seed-level decision (docs/method.md section 5.9) at S seeds x n items, for the rule's first
 * 0/1 criterion: P(validated) and P(failed) at a true expected difference `effect`, by simulation of the normal
 * crossed random-effects model (seedPowerBySimulation) with its Monte-Carlo error; the smallest n for 80% power at
 * S seeds and the smallest S at n items; with `frontier`, the smallest n for each S of 2, 3, 4, 5, 6, 8, 10, 15, 20.
 * sigma_e^2 = D - effect^2 - seedSd^2 - itemSd^2 is the run-by-item noise of d (D the discordance, default 0.2 as
 * `designPower`'s). Returns null when no criterion compares 0/1 outcomes.
 *
 * @param options.rule - the decision rule; `seed_method` (or `method`) names the seed-level method.
 * @param options.seeds - S >= 2; options.n - items >= 2.
 * @param options.effect - the true expected difference; options.seedSd - the SD of a run's difference over seeds (>= 0);
 *   options.itemSd - the SD over items of an item's expected difference (default 0).
 * @param options.discordance - D in (0, 1] and its source; options.controlAccuracy - the baseline's accuracy (default
 *   0.5, assumed), checked against D and the effect.
 * @param options.replicates - simulated studies per figure (default 4000); options.seed - the stream's seed (default 0).
 * @throws {RlAdvantagesError} `bad_integer` (seeds, n, replicates), `bad_design` (effect, seedSd, itemSd, or sigma_e^2
 *   <= 0), `bad_control_accuracy`, `unknown_method`; {@link StudySpecError} for an invalid rule.
 * @example
 * ```ts
 * import { parseDecisionRule, seedDesignPower } from 'rl-advantages/stats';
 * const rule = parseDecisionRule({
 *   method: 'paired_hoeffding', alpha: 0.05,
 *   criteria: [{ id: 'primary', metric: 'accuracy', bounds: [0, 1], margin: -0.05, weights: { treatment: 1, baseline: -1 } }],
 * });
 * const p = seedDesignPower({ rule, seeds: 5, n: 1319, effect: 0, seedSd: 0.02, discordance: { value: 0.2, source: 'assumed' } });
 * console.log(p?.p_validated.toFixed(2), p?.mc_error.p_validated.toFixed(3)); // "0.93" "0.004"
 * ```
 */
export function seedDesignPower(options: {
  rule: DecisionRule;
  seeds: number;
  n: number;
  effect: number;
  /** sigma_a, the run-to-run SD (`plan --between-seed-sd`; a decision's `run_to_run_sd`). */
  seedSd?: number;
  /** The same as seedSd, by the name decisions use; give one of the two. */
  runToRunSd?: number;
  itemSd?: number;
  discordance: SeedDesignPowerJson['discordance'];
  controlAccuracy?: SeedDesignPowerJson['control_accuracy'];
  method?: string;
  replicates?: number;
  seed?: number;
  frontier?: boolean;
}): SeedDesignPowerJson | null {
  const rule = parseDecisionRule(options.rule, '');
  const method = options.method ?? rule.seed_method ?? DEFAULT_SEED_METHOD;
  if (!isSeedMethodName(method)) throw new RlAdvantagesError(`method must be one of ${SEED_METHOD_NAMES.join(', ')}, got ${describe(method)}`, { code: 'unknown_method', field: 'method' });
  const criterion = rule.criteria.find(isAccuracyDifference);
  if (criterion === undefined) return null;
  const seeds = checkInteger('seeds', options.seeds, 2);
  const n = checkInteger('n', options.n, 2);
  const replicates = checkInteger('replicates', options.replicates ?? 4000, 100);
  const seed = checkInteger('seed', options.seed ?? 0, 0);
  const effect = checkNumber('effect', options.effect, -1, 1);
  if (options.seedSd !== undefined && options.runToRunSd !== undefined && options.seedSd !== options.runToRunSd) {
    throw new RlAdvantagesError(`seedSd ${options.seedSd} and runToRunSd ${options.runToRunSd} name the same SD: give one`, { code: 'bad_design', field: 'runToRunSd' });
  }
  const seedSd = checkNumber(options.seedSd === undefined ? 'runToRunSd' : 'seedSd', options.seedSd ?? options.runToRunSd, 0, 1);
  const itemSd = checkNumber('itemSd', options.itemSd ?? 0, 0, 1);
  const D = checkNumber('discordance', options.discordance.value, 0, 1, true);
  const controlAccuracy = options.controlAccuracy ?? { value: 0.5, source: 'assumed' as const };
  checkTable(D, effect, checkNumber('controlAccuracy', controlAccuracy.value, 0, 1));
  const design: SeedDesign = { method, seeds, n, effect, margin: criterion.margin, alpha: rule.alpha, comparisons: rule.criteria.length, seedSd, itemSd, discordance: D };
  const e2 = residualVariance(design);
  if (!(e2 > 0)) {
    throw new RlAdvantagesError(`discordance ${D} leaves no run-by-item noise: D - effect^2 - seedSd^2 - itemSd^2 = ${e2} must be > 0`, { code: 'bad_design', field: 'discordance' });
  }
  const sim = { replicates, seed };
  const power = seedPowerBySimulation(design, sim);
  const { n: _n, ...withoutN } = design;
  const { seeds: _s, ...withoutSeeds } = design;
  return {
    method,
    criterion: criterion.id,
    margin: criterion.margin,
    alpha: rule.alpha,
    comparisons: rule.criteria.length,
    seeds,
    n,
    effect,
    run_to_run_sd: seedSd,
    seed_sd: seedSd,
    item_sd: itemSd,
    discordance: options.discordance,
    control_accuracy: controlAccuracy,
    residual_sd: Math.sqrt(e2),
    p_validated: power.pValidated,
    p_failed: power.pFailed,
    mc_error: { p_validated: power.mcErrorValidated, p_failed: power.mcErrorFailed },
    replicates,
    seed,
    n_for_80_percent_power: seedNForPower(withoutN, sim),
    seeds_for_80_percent_power: seedsForPower(withoutSeeds, sim),
    ...(options.frontier === true ? { frontier: SEED_POWER_FRONTIER.map((S) => ({ seeds: S, n_for_80_percent_power: seedNForPower({ ...withoutN, seeds: S }, sim) })) } : {}),
    n_cap: SEED_POWER_N_CAP,
    seeds_cap: SEED_POWER_SEEDS_CAP,
  };
}
