// rl-adv plan: before training, what the spec's decision rule can conclude with n items, and with what power.
import { InvalidArgumentError, Option, type Command } from 'commander';
import { powerPage } from '../../report/pages.js';
import { ASSUMED_CONTROL_ACCURACY, ASSUMED_DISCORDANCE, designPower, type DesignPowerJson } from '../../stats/design-power.js';
import { RlAdvantagesError } from '../../errors.js';
import { ASYMPTOTIC_DECISION_METHODS, CONCORDANT_SPLIT_METHODS, DECISION_METHOD_NAMES, asymptoticMethodsWords, asymptoticWords } from '../../stats/method-names.js';
import { planDecision, type DecisionPlan } from '../../stats/plan.js';
import { num, plural, signed, table } from '../format.js';
import { forceOption, inputOption, outputOption, writeOutput } from '../outputs.js';
import { integerOption } from '../options.js';
import { CliUsageError, withExamples, type CliIo } from '../core.js';
import { readSpec } from '../spec.js';
import { shippedSpecPath, specOption } from '../shipped-spec.js';
import { pilotDiscordance } from '../predictions.js';
import { SEED_METHOD_NAMES } from '../../stats/seed-method-names.js';
import { applyFromDecision, effectOption, sdOption, seedFlagsWithoutSeeds, seedPlan, seedPlanText, type SeedPlanOptions } from './plan-seeds.js';
import { comparisonEffectOption, comparisonsPlan, comparisonsPlanText } from './plan-comparisons.js';

interface PlanOptions extends SeedPlanOptions {
  spec?: string;
  n?: number;
  discordance?: number;
  controlAccuracy?: number;
  pilot?: string[];
  method?: string;
  json?: boolean;
  html?: string;
  force?: boolean;
  comparisonEffect?: Record<string, number>;
}

/** The `--json` form, snake_case: the Hoeffding plan's keys, then `power` (null when no criterion compares 0/1 outcomes). */
export function planJson(plan: DecisionPlan, power: DesignPowerJson | null = null): object {
  return {
    n: plan.n,
    alpha: plan.alpha,
    comparisons: plan.comparisons,
    criteria: plan.criteria.map((c) => ({
      id: c.id,
      metric: c.metric,
      margin: c.margin,
      range: c.range,
      half_width: c.halfWidth,
      validates_above: c.validatesAbove,
      fails_below: c.failsBelow,
      can_validate: c.canValidate,
      can_fail: c.canFail,
    })),
    ...(power === null
      ? { power: null }
      : {
          power_criterion: power.criterion,
          discordance: power.discordance,
          control_accuracy: power.control_accuracy,
          thresholds: power.thresholds,
          power: power.power,
          n_for_80_percent_power: power.n_for_80_percent_power,
          n_cap: power.n_cap,
        }),
  };
}

/** What the half-width means beside the margin, in words that hold for every sign of the margin. */
function marginWords(halfWidth: number, margin: number): string {
  if (margin < 0) return halfWidth > -margin ? ` (wider than the margin ${num(-margin)})` : '';
  if (margin === 0) return ' (the margin 0 asks for superiority: the observed difference must exceed the half-width itself)';
  return ` (the margin ${signed(margin)} asks for a gain above ${num(margin)}: the observed difference must exceed margin + half-width)`;
}

/** The readable form: per criterion the half-width and the thresholds, in words. */
export function planText(plan: DecisionPlan): string {
  const rows = plan.criteria.map((c) => [
    c.id,
    c.metric,
    signed(c.margin),
    num(c.range),
    num(c.halfWidth),
    c.canValidate ? `> ${signed(c.validatesAbove)}` : 'never',
    c.canFail ? `< ${signed(c.failsBelow)}` : 'never',
  ]);
  const k = plan.comparisons;
  const lines = plan.criteria.map((c) => {
    const validate = c.canValidate
      ? `validates only if the observed mean difference is above ${signed(c.validatesAbove)}`
      : 'can never validate, whatever the models do';
    const fail = c.canFail ? `fails only if it is below ${signed(c.failsBelow)}` : 'can never fail';
    return `${c.id}: half-width ${num(c.halfWidth)}${marginWords(c.halfWidth, c.margin)}; ${validate}; ${fail}; otherwise inconclusive.`;
  });
  return (
    `decision plan (paired_hoeffding): n = ${plural(plan.n, 'paired item')}, alpha = ${plan.alpha}` +
    (k > 1 ? `, ${k} criteria (Bonferroni: alpha/${k} each)` : ', 1 criterion') +
    '\n\n' +
    table(['criterion', 'metric', 'margin', 'range R', 'half-width', 'validates if', 'fails if'], rows) +
    '\n' +
    lines.join('\n') +
    '\n'
  );
}

const SOURCE_WORDS: Readonly<Record<DesignPowerJson['discordance']['source'], string>> = {
  given: 'given',
  pilot: 'from the pilot files',
  observed: 'observed',
  assumed: 'assumed: give --discordance D or --pilot T.jsonl,B.jsonl',
};

const CONTROL_SOURCE_WORDS: Readonly<Record<DesignPowerJson['control_accuracy']['source'], string>> = {
  given: 'given',
  pilot: "the pilot files' mean accuracy",
  observed: "the two arms' mean accuracy",
  assumed: 'assumed: give --control-accuracy P',
};

/** The exact unconditional interval's refined lowest coverage (validation/decision-coverage-refined.mjs). */
const EXACT_UNCONDITIONAL_WORST = 'enumerated over delta and D at n = 10 to 1319, is 0.9501 (n = 1319; docs/method.md section 5.7)';

/** The power section: thresholds and n for 80% power per method, then P(validated) / P(failed) per true difference. */
export function powerText(p: DesignPowerJson): string {
  const methods = p.thresholds.map((t) => t.method);
  const head =
    `power of criterion ${p.criterion} (margin ${signed(p.margin)}), discordance D = ${num(p.discordance.value)} (${SOURCE_WORDS[p.discordance.source]}); ` +
    (methods.some((m) => CONCORDANT_SPLIT_METHODS.includes(m))
      ? `control accuracy ${num(p.control_accuracy.value)} (${CONTROL_SOURCE_WORDS[p.control_accuracy.source]}; paired_newcombe only); `
      : '') +
    `exact over the paired counts (docs/method.md section 5.6)\n\n`;
  const asymptotic = methods.filter((m) => ASYMPTOTIC_DECISION_METHODS.includes(m));
  const exact = methods.includes('paired_exact_unconditional')
    ? `\npaired_exact_unconditional: each end misses with probability <= alpha/(2k) whatever D; its lowest coverage, ${EXACT_UNCONDITIONAL_WORST}.\n`
    : '';
  const warn =
    exact +
    (asymptotic.length === 0
      ? ''
      : `${exact === '' ? '\n' : ''}` +
        asymptotic.map((m) => `${m}: ${asymptoticWords(m)} (docs/method.md section 5.7), its coverage is not guaranteed.\n`).join('') +
        'paired_exact_unconditional keeps the guarantee at nearly the same power.\n');
  const first = table(
    ['method', 'validates if observed >=', 'fails if observed <=', 'n for 80% power at 0'],
    p.thresholds.map((t) => [
      ASYMPTOTIC_DECISION_METHODS.includes(t.method) ? `${t.method} (asymptotic)` : t.method,
      t.validates_at === null ? 'never' : signed(t.validates_at),
      t.fails_at === null ? 'never' : signed(t.fails_at),
      String(p.n_for_80_percent_power[t.method] ?? `not below ${p.n_cap}`),
    ]),
  );
  const differences = [...new Set(p.power.map((r) => r.difference))];
  const second = table(
    ['true difference', ...methods.map((m) => m.replace(/^paired_/, ''))],
    differences.map((d) => [
      signed(d, 2),
      ...methods.map((m) => {
        const r = p.power.find((x) => x.method === m && x.difference === d);
        return r === undefined ? 'n/a' : `${r.p_validated.toFixed(4)} / ${r.p_failed.toFixed(4)}`;
      }),
    ]),
  );
  return (
    `${head}${first}\n(observed differences at ${p.thresholds[0]?.discordant ?? 0} discordant pairs, round(nD))\n${warn}\n` +
    `P(validated) / P(failed) at each true difference:\n\n${second}`
  );
}

/** The spec's eval size, `eval.n_examples`, when it is a positive integer. */
function specN(raw: Readonly<Record<string, unknown>>): number | undefined {
  const evaluation = raw.eval;
  if (typeof evaluation !== 'object' || evaluation === null) return undefined;
  const n = (evaluation as Record<string, unknown>).n_examples;
  return typeof n === 'number' && Number.isInteger(n) && n >= 1 ? n : undefined;
}

function discordanceOption(value: string): number {
  const d = Number(value);
  if (value.trim() === '' || !Number.isFinite(d) || d <= 0 || d > 1) throw new InvalidArgumentError('must be a number in (0, 1].');
  return d;
}

function controlAccuracyOption(value: string): number {
  const p = Number(value);
  if (value.trim() === '' || !Number.isFinite(p) || p < 0 || p > 1) throw new InvalidArgumentError('must be a number in [0, 1].');
  return p;
}

function pilotOption(value: string): string[] {
  const files = value.split(',').map((s) => s.trim());
  if (files.length !== 2 || files.some((f) => f === '')) throw new InvalidArgumentError('must be two files, TREATMENT.jsonl,BASELINE.jsonl.');
  return files;
}

/**
 * What the decision is about, from `decision_rule.seeds`: one run per arm makes it a statement about two
 * checkpoints; what more seeds would buy (docs/method.md section 5.1).
 */
export function scopeText(seeds: unknown): string {
  const list = Array.isArray(seeds) ? seeds : [];
  const base =
    'scope: each arm is one training run, so the interval covers which test items were drawn, not the run-to-run ' +
    'variation of training; a validated verdict is about these two checkpoints, not yet about the methods.';
  if (list.length <= 1) {
    return (
      `${base} decision_rule.seeds lists ${list.length === 1 ? `one seed (${JSON.stringify(list[0])})` : 'no seed'}. ` +
      'Listing S seeds (S runs per arm, paired by item and seed) would let the decision average over training runs: ' +
      'Var(mean difference) = Var_items / (n S) + Var_runs / S, and Var_runs, which one seed cannot see, could then be estimated: ' +
      '`rl-adv decide --replicates FILE` decides across seeds, `rl-adv plan --seeds S --between-seed-sd X` gives its power (docs/method.md sections 5.8-5.9).\n'
    );
  }
  return (
    `${base} decision_rule.seeds lists ${list.length} seeds (${list.map((x) => JSON.stringify(x)).join(', ')}): with one run ` +
    `per arm per seed, Var(mean difference) = Var_items / (n ${list.length}) + Var_runs / ${list.length}, and the run-to-run part can be ` +
    'estimated from the seeds; `rl-adv study` trains one seed per arm (the arms must share it), so the other seeds ' +
    'need their own runs; `rl-adv decide --replicates FILE` combines them (decision_rule.seed_method, docs/method.md section 5.8).\n'
  );
}

async function run(given: PlanOptions, io: CliIo): Promise<void> {
  const options: PlanOptions = { ...given, ...(await applyFromDecision(given, io)) };
  if (options.discordance !== undefined && options.pilot !== undefined) {
    throw new CliUsageError('give --discordance D or --pilot T.jsonl,B.jsonl, not both');
  }
  const stray = options.seeds === undefined ? [...seedFlagsWithoutSeeds(options), ...(options.comparisonEffect === undefined ? [] : ['--comparison-effect'])] : [];
  if (stray.length > 0) throw new CliUsageError(`${stray.join(', ')} need${stray.length === 1 ? 's' : ''} --seeds S (the seed-level power)`);
  const spec = await readSpec(options.spec ?? shippedSpecPath(), io);
  const n = options.n ?? specN(spec.raw);
  if (n === undefined) {
    throw new CliUsageError(`${options.spec ?? shippedSpecPath()} has no eval.n_examples: give the number of paired items with --n N`);
  }
  const rule = spec.decisionRule;
  const plan = planDecision({ n, alpha: rule.alpha, criteria: rule.criteria });
  const pilot = options.pilot === undefined ? undefined : await pilotDiscordance(options.pilot, rule, io);
  const discordance: DesignPowerJson['discordance'] =
    options.discordance !== undefined
      ? { value: options.discordance, source: 'given' }
      : pilot !== undefined
        ? { value: pilot.discordance, source: 'pilot' }
        : { value: ASSUMED_DISCORDANCE, source: 'assumed' };
  const controlAccuracy: DesignPowerJson['control_accuracy'] =
    options.controlAccuracy !== undefined
      ? { value: options.controlAccuracy, source: 'given' }
      : pilot !== undefined
        ? { value: pilot.controlAccuracy, source: 'pilot' }
        : { value: ASSUMED_CONTROL_ACCURACY, source: 'assumed' };
  if (options.seeds !== undefined) {
    if (options.method !== undefined) throw new CliUsageError('--method names a one-seed method; with --seeds use --seed-method');
    if (options.html !== undefined) throw new CliUsageError('--html draws the one-seed power chart; it is not available with --seeds');
    if (spec.comparisons !== undefined) {
      const c = comparisonsPlan({ ...options, rule, comparisons: spec.comparisons, n, discordance, controlAccuracy });
      io.stdout.write(options.json === true ? JSON.stringify(c, null, 2) + '\n' : comparisonsPlanText(c));
      return;
    }
    if (options.comparisonEffect !== undefined) throw new CliUsageError('--comparison-effect needs a spec with decision_rule.comparisons');
    if (options.comparisonSd !== undefined) {
      throw new CliUsageError(`--from-decision ${options.fromDecision ?? ''}: a K-arm decision (comparisons ${Object.keys(options.comparisonSd).join(', ')}): give --spec the spec with those decision_rule.comparisons`);
    }
    const p = seedPlan({ ...options, rule, n, discordance, controlAccuracy });
    if (p === null) throw new CliUsageError('--seeds: no criterion compares 0/1 outcomes (bounds [0, 1], weights (1, -1) or (-1, 1)), so there is no seed-level power');
    io.stdout.write(options.json === true ? JSON.stringify(p, null, 2) + '\n' : seedPlanText(p));
    return;
  }
  let power: DesignPowerJson | null;
  try {
    power = designPower({ rule, n, discordance, controlAccuracy, ...(options.method === undefined ? {} : { methods: [options.method] }) });
  } catch (error) {
    if (error instanceof RlAdvantagesError && error.field === 'controlAccuracy') {
      throw new CliUsageError(`--control-accuracy ${controlAccuracy.value}: ${error.message.replace(/^controlAccuracy \S+ /, '')} (paired_newcombe needs it; pick another or --method)`);
    }
    throw error;
  }
  if (options.html !== undefined) {
    if (power === null) throw new CliUsageError('--html: no criterion compares 0/1 outcomes, so there is no power chart to draw');
    const subtitle = `criterion ${power.criterion}, n = ${n}, alpha = ${rule.alpha}, discordance ${num(discordance.value)} (${discordance.source})`;
    await writeOutput(options.html, await powerPage(power.power, power.margin, subtitle), io, '--html', options.force === true);
  }
  if (options.json === true) {
    io.stdout.write(JSON.stringify(planJson(plan, power), null, 2) + '\n');
    return;
  }
  const none = 'no power: no criterion compares 0/1 outcomes (bounds [0, 1], weights (1, -1) or (-1, 1))\n';
  io.stdout.write(`${planText(plan)}\n${power === null ? none : powerText(power)}\n${scopeText(rule.seeds)}`);
}

/** Registers `rl-adv plan`. */
export function register(program: Command, io: CliIo): void {
  const command = program
    .command('plan')
    .summary('before training: what can the decision rule conclude with n items, and with what power?')
    .description(
      "For the spec's decision_rule and n paired items, prints each criterion's Hoeffding half-width " +
        'R·sqrt(ln(2k/alpha)/(2n)) and the observed mean difference needed to validate (margin + half-width) ' +
        'or to fail (margin - half-width) (docs/method.md section 5). Then, for each decision method, the power ' +
        'at discordance D (the share of items the arms disagree on): P(validated) and P(failed) at true ' +
        'differences -0.05..+0.05 and the n for 80% power at a true difference of 0, exact over the paired counts ' +
        "(section 5.6). n defaults to the spec's eval.n_examples; D to 0.2 (assumed, and said so). paired_newcombe's " +
        "verdict depends on the whole 2x2 table, so its power also takes the control arm's accuracy (--control-accuracy, default 0.5).",
    )
    .addOption(specOption())
    .option('--n <n>', 'the number of paired items (default: eval.n_examples of the spec)', integerOption(1))
    .option('--discordance <d>', 'D, the share of items the two arms disagree on, in (0, 1] (default 0.2, assumed)', discordanceOption)
    .option(
      '--control-accuracy <p>',
      "p2, the control arm's expected accuracy (the arm with weight -1), in [0, 1]: only paired_newcombe's power uses it (default: the pilot's mean accuracy, else 0.5, assumed)",
      controlAccuracyOption,
    )
    .addOption(
      inputOption('--pilot <files>', 'estimate D from two per-item result files, TREATMENT.jsonl,BASELINE.jsonl (as decide reads)', (v) => v as string[]).argParser(pilotOption),
    )
    .addOption(new Option('--method <name>', `the power of this method only (default: all); asymptotic: ${asymptoticMethodsWords()}`).choices(DECISION_METHOD_NAMES))
    .option('--seeds <S>', 'the power of the decision across S >= 2 seeds instead (docs/method.md section 5.9): needs --between-seed-sd', integerOption(2))
    .option('--between-seed-sd <x>', "with --seeds: the run-to-run SD sigma_a of a run pair's accuracy difference (a decision's run_to_run_sd, not its per_seed_difference_sd)", sdOption)
    .addOption(
      inputOption(
        '--from-decision <file>',
        'the seed-level power with the run-to-run SD (and item SD and seed count, unless given) of a `rl-adv decide --replicates --json` output or a replicated study\'s decision.json (a K-arm one: each comparison at its own SD)',
      ),
    )
    .option('--item-sd <x>', "with --seeds: the SD over items of an item's expected difference (default 0)", sdOption)
    .option('--effect <d>', 'with --seeds: the true expected difference (default 0)', effectOption)
    .option('--comparison-effect <id=d>', 'with --seeds and decision_rule.comparisons: the true difference of comparison ID (repeatable; others get --effect)', comparisonEffectOption)
    .addOption(new Option('--seed-method <name>', "with --seeds: another seed-level method than the spec's decision_rule.seed_method").choices(SEED_METHOD_NAMES))
    .option('--json', 'print the plan as JSON (snake_case keys; power: [{method, difference, p_validated, p_failed}])')
    .addOption(outputOption('--html <file>', 'also write the power chart as a self-contained HTML page'))
    .addOption(forceOption())
    .action(async (options: PlanOptions) => run(options, io));
  withExamples(command, [
    'rl-adv plan --spec gs1-vs-grpo.spec.json',
    'rl-adv plan --spec gs1-vs-grpo.spec.json --pilot gs1-pilot.jsonl,grpo-pilot.jsonl --method paired_exact_binomial --html power.html',
    'rl-adv plan --spec gs1-vs-grpo.spec.json --n 5000 --discordance 0.15 --json',
    'rl-adv plan --spec gs1-vs-grpo.spec.json --seeds 5 --between-seed-sd 0.02 --effect 0.02',
    'rl-adv plan --spec gs1-vs-grpo.spec.json --from-decision decision.json --seeds 8',
    'rl-adv plan --spec specs/arith-ablation.json --seeds 5 --between-seed-sd 0.02 --comparison-effect gs1_vs_batchmean=0.02',
  ]);
}
