// report.md of a study run: the title, the simulation banner, what was run, then the report's sections
// (study-sections.ts, the same ones report.html shows) as markdown, written from summary.json alone (so it can be
// regenerated from it). report/ reads artifacts only: it imports the summary's types, never the runner.
import type { StudySummary } from '../study/summary.js';
import type { LedgerLine } from '../study/executor/ledger.js';
import { sectionMarkdown } from './blocks.js';
import { studySections } from './study-sections.js';

/** The simulation banner of report.md (a blockquote), or none. */
function banner(s: StudySummary): string[] {
  if (!s.simulation) return [];
  const clustered = s.data.questions === 'clustered';
  return [
    ...(clustered
      ? [
          '> **This is a SIMULATION** (`--backend sim`) on the built-in CLUSTERED question set (`--sim-questions clustered`:',
          '> templated question families, not GSM8K), with a logistic success model, not a language model.',
        ]
      : ['> **This is a SIMULATION** (`--backend sim`): a logistic success model on the real GSM8K questions, not a language', '> model.']),
    '> It exercises the protocol, the artifacts and the report; its accuracies and rewards say nothing about',
    '> Qwen or any other model. See docs/sim.md.',
    '',
  ];
}

/**
 * Renders report.md from a study summary: the sections of `studySections` (study-sections.ts) without their charts. For the sim
 * backend the report says at the top, and once more at the end, that the numbers come from a simulation. `jobs`
 * (RUN/jobs.jsonl's lines) adds the Jobs section's table.
 *
 * @example
 * ```ts
 * writeFileSync('out/report.md', renderReport(summary));
 * ```
 */
export function renderReport(s: StudySummary, jobs?: readonly LedgerLine[]): string {
  const out = [`# Study report: ${s.spec.title ?? '(untitled spec)'}`, ...(s.simulation ? [''] : []), ...banner(s).slice(0, -1)];
  for (const section of studySections(s, undefined, jobs)) out.push(...sectionMarkdown(section));
  if (s.simulation) out.push('', '_All figures above come from the simulated backend (a simulation, not a model)._');
  return out.join('\n') + '\n';
}
