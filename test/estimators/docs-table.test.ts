// docs/estimators.md's table is the catalogue's: the block between its markers must equal the table generated
// from the descriptors. RL_ADV_UPDATE_DOCS=1 rewrites the block (then review the diff).
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { expect, it } from 'vitest';
import { ESTIMATOR_BASE_NAMES, estimatorDescriptors, type EstimatorDescriptor, type ParameterDescriptor } from '../../src/index.js';
import { repoRoot } from '../helpers/paths.js';

const BEGIN = '<!-- catalogue table: generated from src/estimators/descriptors by test/estimators/docs-table.test.ts -->';
const END = '<!-- end of catalogue table -->';

function cell(text: string): string {
  return text.replace(/\|/g, '\\|');
}

function parameter(p: ParameterDescriptor): string {
  const value = p.default === null ? (p.required ? ' (required)' : '') : ` = ${typeof p.default === 'string' ? `'${p.default}'` : String(p.default)}`;
  return `\`${p.name}\`${value}`;
}

function row(d: EstimatorDescriptor): string {
  const short = d.shortForm === undefined ? '' : ` / \`${d.shortForm.prefix}<${d.shortForm.parameter}>\``;
  const name = `\`${d.name}\`${short}${d.createStateful === undefined ? '' : ' (stateful)'}`;
  const needs = [d.needsVectorizer === true ? 'vectorizer' : d.needsVectorizer === 'with_short_form' ? 'vectorizer (prior)' : '', d.needsKernelFile ? 'kernel file' : ''].filter(Boolean);
  const reads = [
    ...d.fields.required.filter((f) => f !== 'rewards').map((f) => `\`${f}\``),
    ...d.fields.optional.filter((f) => f !== 'mask').map((f) => `\`${f}\`?`),
    ...needs,
  ].join(', ');
  const sources = d.sources.map((s) => (s.url === null ? s.title : `[${s.title}](${s.url})`)).join('; ');
  return `| ${[name, cell(d.summary), reads || '—', d.parameters.map(parameter).join(', ') || '—', cell(d.groupOfOne), sources].join(' | ')} |`;
}

/** The table, from the built-in descriptors (user ones registered by other tests are not part of the docs). */
function table(): string {
  const builtIn = estimatorDescriptors().filter((d) => (ESTIMATOR_BASE_NAMES as readonly string[]).includes(d.name));
  return ['| name / short form | baseline | reads | parameters | group of one | sources |', '|---|---|---|---|---|---|', ...builtIn.map(row)].join('\n');
}

it("docs/estimators.md's table is the catalogue's", () => {
  const file = resolve(repoRoot, 'docs', 'estimators.md');
  const text = readFileSync(file, 'utf8');
  const begin = text.indexOf(BEGIN);
  const end = text.indexOf(END);
  expect(begin, `docs/estimators.md must hold the markers ${BEGIN} ... ${END}`).toBeGreaterThan(-1);
  expect(end).toBeGreaterThan(begin);
  const block = text.slice(begin + BEGIN.length, end).trim();
  const expected = table();
  if (block !== expected && process.env.RL_ADV_UPDATE_DOCS === '1') {
    writeFileSync(file, `${text.slice(0, begin + BEGIN.length)}\n${expected}\n${text.slice(end)}`);
    return;
  }
  expect(block).toBe(expected);
});
