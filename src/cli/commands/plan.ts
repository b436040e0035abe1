// rl-adv plan: before training, what the spec's decision rule can conclude with n items.
import type { Command } from 'commander';
import { planDecision, type DecisionPlan } from '../../stats/plan.js';
import { num, plural, signed, table } from '../format.js';
import { integerOption } from '../options.js';
import { CliUsageError, withExamples, type CliIo } from '../core.js';
import { readSpec } from '../spec.js';

interface PlanOptions {
  spec: string;
  n?: number;
  json?: boolean;
}

/** The `--json` form, snake_case. */
export function planJson(plan: DecisionPlan): object {
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
  };
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
    const wide = c.halfWidth > Math.abs(c.margin) ? ` (wider than the margin ${num(Math.abs(c.margin))})` : '';
    const validate = c.canValidate
      ? `validates only if the observed mean difference is above ${signed(c.validatesAbove)}`
      : 'can never validate, whatever the models do';
    const fail = c.canFail ? `fails only if it is below ${signed(c.failsBelow)}` : 'can never fail';
    return `${c.id}: half-width ${num(c.halfWidth)}${wide}; ${validate}; ${fail}; otherwise inconclusive.`;
  });
  return (
    `decision plan: n = ${plural(plan.n, 'paired item')}, alpha = ${plan.alpha}` +
    (k > 1 ? `, ${k} criteria (Bonferroni: alpha/${k} each)` : ', 1 criterion') +
    '\n\n' +
    table(['criterion', 'metric', 'margin', 'range R', 'half-width', 'validates if', 'fails if'], rows) +
    '\n' +
    lines.join('\n') +
    '\n'
  );
}

/** The spec's eval size, `eval.n_examples`, when it is a positive integer. */
function specN(raw: Readonly<Record<string, unknown>>): number | undefined {
  const evaluation = raw.eval;
  if (typeof evaluation !== 'object' || evaluation === null) return undefined;
  const n = (evaluation as Record<string, unknown>).n_examples;
  return typeof n === 'number' && Number.isInteger(n) && n >= 1 ? n : undefined;
}

async function run(options: PlanOptions, io: CliIo): Promise<void> {
  const spec = await readSpec(options.spec, io);
  const n = options.n ?? specN(spec.raw);
  if (n === undefined) {
    throw new CliUsageError(`${options.spec} has no eval.n_examples: give the number of paired items with --n N`);
  }
  const plan = planDecision({ n, alpha: spec.decisionRule.alpha, criteria: spec.decisionRule.criteria });
  io.stdout.write(options.json === true ? JSON.stringify(planJson(plan), null, 2) + '\n' : planText(plan));
}

/** Registers `rl-adv plan`. */
export function register(program: Command, io: CliIo): void {
  const command = program
    .command('plan')
    .summary('before training: can the decision rule conclude with n items?')
    .description(
      "For the spec's decision_rule and n paired items, prints each criterion's Hoeffding half-width " +
        'R·sqrt(ln(2k/alpha)/(2n)) and the observed mean difference needed to validate (margin + half-width) ' +
        'or to fail (margin - half-width) (docs/method.md section 5). n defaults to the spec\'s eval.n_examples.',
    )
    .requiredOption('--spec <file>', 'the study spec (JSON)')
    .option('--n <n>', 'the number of paired items (default: eval.n_examples of the spec)', integerOption(1))
    .option('--json', 'print the plan as JSON (snake_case keys)')
    .action(async (options: PlanOptions) => run(options, io));
  withExamples(command, ['rl-adv plan --spec gs1-vs-grpo.spec.json', 'rl-adv plan --spec gs1-vs-grpo.spec.json --n 5000 --json']);
}
