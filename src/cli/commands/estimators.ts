// rl-adv estimators: the estimator catalogue (src/estimators/catalogue.ts), as a table or as JSON for other
// languages (the Python drivers read `rl-adv estimators --json`).
import type { Command } from 'commander';
import { catalogueJson, type EstimatorJson, type ParameterJson } from '../../estimators/catalogue-json.js';
import { table } from '../format.js';
import { withExamples, type CliIo } from '../core.js';
import { addEstimatorModuleOption, loadEstimatorModules } from '../estimator-modules.js';

/** A parameter as the table shows it: `temperature (required)`, `epsilon=1e-6`. */
function parameterText(p: ParameterJson): string {
  if (p.required) return `${p.name} (required)`;
  return p.default === null ? p.name : `${p.name}=${String(p.default)}`;
}

/** What an estimator needs beyond the batch: `vectorizer`, `kernel file`, `state`. */
function needs(e: EstimatorJson): string {
  const out: string[] = [];
  if (e.needs_vectorizer) out.push(e.parameters.some((p) => p.name === 'prior_temperature') ? 'vectorizer (prior)' : 'vectorizer');
  if (e.needs_kernel_file) out.push('kernel file');
  if (e.stateful) out.push('stateful');
  if (e.user_defined) out.push('user');
  return out.join(', ') || '-';
}

/** A short form as the table shows it: the part after the name (`_T<temperature>`), or the whole (`kernel:<path>`). */
function shortForm(e: EstimatorJson): string {
  if (e.short_form === null) return '-';
  return e.short_form.startsWith(e.name) ? `+ ${e.short_form.slice(e.name.length)}` : e.short_form;
}

/** `head` then the items, comma-separated, wrapped at {@link PARAMETER_WIDTH} columns (continuation lines indented). */
function wrap(head: string, items: readonly string[]): string {
  if (items.length === 0) return `${head}-`;
  const lines = [head.trimEnd()];
  for (const [i, item] of items.entries()) {
    const text = item + (i < items.length - 1 ? ',' : '');
    const last = lines.length - 1;
    const line = lines[last] as string;
    if (line.length + 1 + text.length > PARAMETER_WIDTH && line.trim().endsWith(',')) lines.push(`      ${text}`);
    else lines[last] = `${line} ${text}`;
  }
  return lines.join('\n');
}

/** The width the parameter lines wrap at. */
const PARAMETER_WIDTH = 100;

/** The readable form: one table row per estimator, then each one's parameters with their defaults. */
export function estimatorsText(json = catalogueJson()): string {
  const rows = json.estimators.map((e) => [e.name, shortForm(e), e.family, e.fields.required.filter((f) => f !== 'rewards').join(', ') || '-', needs(e)]);
  const parameters = json.estimators.map((e) => wrap(`  ${e.name}: `, e.parameters.map(parameterText)));
  return (
    `${json.estimators.length} estimators (rl-advantages ${json.version}); details: rl-adv estimators --json, docs/estimators.md\n\n` +
    table(['name', 'short form', 'family', 'reads', 'needs'], rows) +
    `\nParameters (snake_case; =default):\n${parameters.join('\n')}\n`
  );
}

/** Registers `rl-adv estimators`. */
export function register(program: Command, io: CliIo): void {
  const command = program
    .command('estimators')
    .summary('list the estimators: names, parameters, batch fields')
    .description(
      'Lists every estimator of the catalogue (docs/estimators.md): its name and short form (a name that carries one ' +
        'parameter, e.g. tfidf_kernel_loo_T0.1), its family, the batch fields it reads besides the rewards, what it ' +
        'needs (a vectorizer, a kernel file, state across steps) and its parameters with their defaults.\n' +
        '--json prints {"protocol": 1, "version", "estimators": [...]}, each estimator with its parameters (type, ' +
        'default, range, choices, unit), fields, group-of-one behaviour and sources: what serve\'s {"op": ' +
        '"describe"} answers and what other languages read.',
    )
    .option('--json', 'print the catalogue as JSON');
  addEstimatorModuleOption(command).action(async (options: { json?: boolean; estimatorModule?: string[] }) => {
    await loadEstimatorModules(options.estimatorModule);
    const json = catalogueJson();
    io.stdout.write(options.json === true ? JSON.stringify(json, null, 2) + '\n' : estimatorsText(json));
  });
  withExamples(command, ['rl-adv estimators', 'rl-adv estimators --json > estimators.json']);
}
