// rl-adv decide: the spec's paired decision (docs/method.md section 5) on two arms' per-item results.
import { Option, type Command } from 'commander';
import { RlAdvantagesError } from '../../errors.js';
import { DECISION_SCOPE_WORDS, decide, decisionJson, notSpecMethodNote, type Decision } from '../../stats/decision.js';
import type { PairedItem } from '../../stats/items.js';
import { decisionPage } from '../../report/pages.js';
import { ASYMPTOTIC_DECISION_METHODS, DECISION_METHOD_NAMES, asymptoticMethodsWords, asymptoticWords } from '../../stats/method-names.js';
import { num, plural, signed, table } from '../format.js';
import { forceOption, inputOption, outputOption, writeOutput } from '../outputs.js';
import { checkPairs, itemError, readPredictions, type Arm } from '../predictions.js';
import { CliUsageError, withExamples, type CliIo } from '../core.js';
import { readSpec } from '../spec.js';
import { shippedSpecPath, specOption } from '../shipped-spec.js';
import { SEED_METHOD_NAMES, type SeedMethodName } from '../../stats/seed-method-names.js';
import { seedDecisionJson } from '../../stats/seeds.js';
import { decideReplicates, seedDecisionText } from './decide-replicates.js';

interface DecideOptions {
  spec?: string;
  treatment?: string;
  baseline?: string;
  replicates?: string;
  seedMethod?: SeedMethodName;
  seedItems?: 'shared' | 'per_seed';
  method?: string;
  json?: boolean;
  html?: string;
  force?: boolean;
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

/** Each method in words, for the heading. */
const METHOD_WORDS: Readonly<Record<Decision['method'], string>> = {
  paired_hoeffding: 'paired Hoeffding',
  paired_empirical_bernstein: 'paired empirical Bernstein',
  paired_exact_binomial: 'paired exact binomial',
  paired_exact_unconditional: 'paired exact unconditional',
  paired_tango: `paired Tango score (${asymptoticWords('paired_tango')}; coverage not guaranteed)`,
  paired_newcombe: `paired Newcombe method 10 (${asymptoticWords('paired_newcombe')}; coverage not guaranteed)`,
};

/** What the interval covers: the words `decide` and the report print under a decision. */
const DECISION_SCOPE = `scope: ${DECISION_SCOPE_WORDS}`;

/** Correct counts per arm (treatment first) when every item of both arms is a `correct` row; else none. */
function accuracies(treatment: Arm, baseline: Arm): { arm: string; correct: number; n: number }[] {
  const arms = [
    ['treatment', treatment],
    ['baseline', baseline],
  ] as const;
  if (!arms.every(([, a]) => a.items.every((item) => item.correct !== undefined))) return [];
  return arms.map(([arm, a]) => ({ arm, correct: a.items.filter((item) => item.correct === true).length, n: a.items.length }));
}

/** The readable form; `means` (by criterion id) adds each arm's mean beside the difference. */
export function decisionText(d: Decision, means: Readonly<Record<string, ArmMeans>> = {}): string {
  const k = d.comparisons;
  const note = d.method === d.specMethod ? '' : `note: ${notSpecMethodNote(d.method, d.specMethod)}\n`;
  const head =
    `${METHOD_WORDS[d.method]} decision: n = ${plural(d.n, 'paired item')}, alpha = ${d.alpha}` +
    (k > 1 ? `, ${k} criteria (Bonferroni: alpha/${k} each)` : ', 1 criterion') +
    '\n' +
    note +
    '\n';
  const shown = d.criteria.every((c) => Object.hasOwn(means, c.id));
  const rows = d.criteria.map((c) => [
    c.id,
    c.metric,
    ...(shown ? [num(means[c.id]?.treatment), num(means[c.id]?.baseline)] : []),
    signed(c.estimate),
    // The 0/1 methods' intervals are not centred on the estimate: the half-width is (upper - lower) / 2, shown without ±.
    d.method === 'paired_hoeffding' || d.method === 'paired_empirical_bernstein' ? `±${num(c.halfWidth)}` : num(c.halfWidth),
    `[${signed(c.lower)}, ${signed(c.upper)}]`,
    signed(c.margin),
    c.verdict,
  ]);
  const arms = shown ? ['treatment', 'baseline'] : [];
  return head + table(['criterion', 'metric', ...arms, 'estimate', 'half-width', 'interval', 'margin', 'verdict'], rows) + `\nverdict: ${d.verdict}\n${DECISION_SCOPE}\n`;
}

/** Which inputs were given: the two arms of one seed, or --replicates; never both, never neither. */
function checkInputs(options: DecideOptions): void {
  const arms = options.treatment !== undefined || options.baseline !== undefined;
  if (options.replicates !== undefined) {
    if (arms) throw new CliUsageError('give --replicates FILE or --treatment and --baseline, not both');
    if (options.method !== undefined) throw new CliUsageError("--method applies to one seed's decision; with --replicates use --seed-method");
    if (options.html !== undefined) throw new CliUsageError('--html draws one seed\'s decision; it is not available with --replicates');
    return;
  }
  if (options.seedMethod !== undefined) throw new CliUsageError('--seed-method needs --replicates FILE');
  if (options.seedItems !== undefined) throw new CliUsageError('--seed-items needs --replicates FILE');
  if (options.treatment === undefined || options.baseline === undefined) {
    throw new CliUsageError(`give --treatment FILE and --baseline FILE (one seed), or --replicates FILE (several seeds); missing ${options.treatment === undefined ? '--treatment' : '--baseline'}`);
  }
}

async function run(options: DecideOptions, io: CliIo): Promise<void> {
  checkInputs(options);
  const spec = await readSpec(options.spec ?? shippedSpecPath(), io);
  if (options.replicates !== undefined) {
    const d = await decideReplicates(options.replicates, spec.decisionRule, io, options.seedMethod, options.seedItems);
    io.stdout.write(options.json === true ? JSON.stringify(seedDecisionJson(d), null, 2) + '\n' : seedDecisionText(d));
    return;
  }
  const treatment = await readPredictions(options.treatment as string, '--treatment', io);
  const baseline = await readPredictions(options.baseline as string, '--baseline', io);
  checkPairs(treatment, baseline);
  let decision: Decision;
  try {
    decision = decide(spec.decisionRule, treatment.items, baseline.items, options.method === undefined ? {} : { method: options.method });
  } catch (error) {
    if (error instanceof RlAdvantagesError && error.field === 'method') throw new CliUsageError(`--method ${options.method ?? ''}: ${error.message}`);
    throw itemError(error, treatment, baseline);
  }
  const means: Record<string, ArmMeans> = {};
  for (const c of decision.criteria) means[c.id] = { treatment: armMean(treatment.items, c.metric), baseline: armMean(baseline.items, c.metric) };
  const json = decisionJson(decision);
  if (options.html !== undefined) await writeOutput(options.html, await decisionPage(json, accuracies(treatment, baseline)), io, '--html', options.force === true);
  io.stdout.write(options.json === true ? JSON.stringify(json, null, 2) + '\n' : decisionText(decision, means));
}

/** Registers `rl-adv decide`. */
export function register(program: Command, io: CliIo): void {
  const command = program
    .command('decide')
    .summary("decide the study with the spec's paired decision rule")
    .description(
      "Applies the spec's decision_rule (docs/method.md section 5): items are paired by item_id, each criterion " +
        "gets the interval of the rule's method (paired_hoeffding: mean(d) ± R·sqrt(ln(2k/alpha)/(2n))) and the " +
        'verdict validated (lower > margin), failed (upper < margin) or inconclusive. For 0/1 outcomes ' +
        'paired_exact_unconditional keeps the guarantee with the narrowest interval; ' +
        `${ASYMPTOTIC_DECISION_METHODS.join(' and ')} are asymptotic (their coverage falls below the level at small n: ` +
        'docs/method.md section 5.7). Each arm is one training run: ' +
        'the interval covers the sampling of test items, not run-to-run variation; --replicates decides across several ' +
        'seeds (the expected difference over training runs, decision_rule.seed_method). Prediction files are JSON ' +
        'lines, one item a line: {"item_id": "gsm8k_test_0", "correct": true} or {"item_id": 0, "score": 0.5}.',
    )
    .addOption(specOption())
    .addOption(inputOption('--treatment <file>', "the treatment arm's per-item results (JSON lines)"))
    .addOption(inputOption('--baseline <file>', "the baseline arm's per-item results (JSON lines)"))
    .addOption(
      inputOption(
        '--replicates <file>',
        'several training seeds instead of one: JSON lines {"seed": 0, "treatment": "gs1-seed0.jsonl", "baseline": "grpo-seed0.jsonl"}, paths relative to the file\'s folder; decides across seeds (docs/method.md section 5.8)',
      ),
    )
    .addOption(new Option('--seed-method <name>', "with --replicates, another seed-level method than the spec's decision_rule.seed_method, for exploration").choices(SEED_METHOD_NAMES))
    .addOption(
      new Option(
        '--seed-items <sets>',
        "with --replicates: shared (every seed on the same items, the default) or per_seed (each seed its own items: a t on the per-seed means); overrides the spec's decision_rule.seed_items",
      ).choices(['shared', 'per_seed']),
    )
    .addOption(
      new Option('--method <name>', `another interval than the spec's, for exploration (the output says it is not the spec's method); asymptotic: ${asymptoticMethodsWords()}`).choices(
        DECISION_METHOD_NAMES,
      ),
    )
    .option('--json', 'print {method, alpha, n, verdict, criteria: [{id, metric, estimate, lower, upper, margin, verdict}]}; with --replicates {method, estimate, interval: [lower, upper], verdict, per_seed: [...], per_seed_difference_sd, run_to_run_sd, level, fallback, outliers, ...}')
    .addOption(outputOption('--html <file>', 'also write the decision chart as a self-contained HTML page'))
    .addOption(forceOption())
    .action(async (options: DecideOptions) => run(options, io));
  withExamples(command, [
    'rl-adv decide --spec gs1-vs-grpo.spec.json --treatment gs1.jsonl --baseline grpo.jsonl',
    'rl-adv decide --spec gs1-vs-grpo.spec.json --treatment gs1.jsonl --baseline grpo.jsonl --method paired_exact_binomial --html decision.html',
    'rl-adv decide --spec gs1-vs-grpo.spec.json --replicates seeds.jsonl --json',
  ]);
}
