// The report's sections of a study with decision_rule.comparisons (docs/report.md): the answer first (each
// comparison's verdict, estimate and interval, as an abstract), then the comparisons with their table and forest chart.
import { formatFigure } from '../internal/figures.js';
import type { ComparisonJson, MultiplicityJson } from '../study/decide-comparisons.js';
import type { StudySummary } from '../study/summary.js';
import type { Block, ReportSection } from './blocks.js';
import { comparisonsChartSpec, type ComparisonRow } from './charts/comparisons.js';
import { renderChartSvg } from './charts/render.js';
import { figureHtml } from './html.js';
import { collapseWords } from '../stats/seed-collapse.js';

const num = formatFigure;
const interval = (x: readonly [number, number]): string => `[${num(x[0])}, ${num(x[1])}]`;
const KIND_WORDS: Readonly<Record<ComparisonJson['kind'], string>> = { non_inferiority: 'non-inferiority', superiority: 'superiority' };

/** The level of a comparison's interval as a percentage, e.g. 98.3% for alpha/3 at alpha 0.05. */
function level(c: ComparisonJson): string {
  return `${formatFigure((1 - c.alpha) * 100, 1)}%`;
}

/** One comparison in words: its verdict, estimate and interval, what it claims. */
function answerLine(c: ComparisonJson): string {
  const claim = c.kind === 'superiority' ? `${c.treatment} better than ${c.reference}` : `${c.treatment} not worse than ${c.reference} by more than ${num(-c.margin, 3)}`;
  return `**${c.id}: ${c.verdict}** (${KIND_WORDS[c.kind]}: ${claim}): ${c.treatment} − ${c.reference} = ${num(c.estimate)}, ${level(c)} interval ${interval(c.interval)}, margin ${c.margin}`;
}

/** The procedure in words. */
function procedureWords(m: MultiplicityJson, c: readonly ComparisonJson[]): string {
  const seeds = c[0]?.seeds ?? 1;
  const method = c[0]?.method ?? '?';
  return m.procedure === 'holm'
    ? `Each comparison decided across ${seeds} training seeds by \`${method}\` (docs/method.md section 5.8); family-wise error ${m.alpha} over the ${m.comparisons} comparisons by **Holm's step-down** (section 5.10: round r decides the m comparisons still open at 1 − ${m.alpha}/m). Each seed's own paired decision at ${m.alpha}/${m.comparisons} (Bonferroni).`
    : `Each comparison decided by \`${method}\` on one seed; family-wise error ${m.alpha} over the ${m.comparisons} comparisons by **Bonferroni** (each interval at 1 − ${m.alpha}/${m.comparisons}; docs/method.md section 5.10).`;
}

/** What the seed-level decision flagged per comparison: a fallback instead of a t interval, an outlying seed. */
function seedWarnings(list: readonly ComparisonJson[]): string[] {
  const out: string[] = [];
  for (const c of list) {
    if (c.fallback) out.push(`**${c.id}: ${c.fallback.rule === 'whole_range' ? 'no interval' : 'variance floor'}**: ${c.fallback.text}`);
    for (const o of c.outliers ?? []) out.push(`**${c.id}: seed ${o.seed} is outlying** (difference ${num(o.estimate)}, leave-one-out score ${num(o.score)} above the cutoff ${num(o.cutoff)}): check that run before trusting the verdict (docs/method.md section 5.8).`);
  }
  return out;
}

/** The answer first: every comparison's verdict, estimate and interval, and the procedure; null without comparisons. */
export function answerSection(s: StudySummary): ReportSection | null {
  const list = s.comparisons;
  const m = s.multiplicity;
  if (list === undefined || m === undefined) return null;
  const blocks: Block[] = [{ kind: 'list', items: list.map(answerLine) }, { kind: 'text', text: procedureWords(m, list) }];
  // Across seeds, every verdict assumes no run collapsed: the rate its S seeds cannot rule out (docs/method.md section 5.8).
  const seeds = list[0]?.seeds ?? 1;
  if (seeds >= 2) blocks.push({ kind: 'text', text: `Collapse: ${collapseWords(seeds, m.alpha)}.` });
  if (s.learning?.no_arm_improved === true) blocks.push({ kind: 'text', text: '**No arm improved on the starting policy**: the verdicts compare arms that did not learn measurably.' });
  for (const warning of seedWarnings(list)) blocks.push({ kind: 'text', text: warning });
  return { id: 'answer', heading: 'Answer', blocks };
}

function forestRows(list: readonly ComparisonJson[]): ComparisonRow[] {
  return list.map((c) => ({
    label: `${c.id} (${c.verdict})`,
    estimate: c.estimate,
    lower: c.interval[0],
    upper: c.interval[1],
    margin: c.margin,
    verdict: c.verdict,
    seeds: c.per_seed.map((p) => ({ seed: p.seed, estimate: p.estimate })),
  }));
}

/** The comparisons: the table, the forest chart (report.html) and each seed's paired decisions; null without comparisons. */
export function comparisonsSection(s: StudySummary, charts: boolean): ReportSection | null {
  const list = s.comparisons;
  const m = s.multiplicity;
  if (list === undefined || m === undefined) return null;
  const blocks: Block[] = [
    { kind: 'text', text: procedureWords(m, list) },
    {
      kind: 'table',
      header: ['comparison', 'treatment − reference', 'kind', 'margin', 'estimate', 'interval', 'level', 'Holm round', 'verdict', 'each seed (paired)'],
      rows: list.map((c) => [c.id, `${c.treatment} − ${c.reference}`, KIND_WORDS[c.kind], String(c.margin), num(c.estimate), interval(c.interval), level(c), String(c.round), c.verdict, c.per_seed.map((p) => p.verdict).join(', ')]),
      align: ['l', 'l', 'l', 'r', 'r', 'l', 'r', 'r', 'l', 'l'],
    },
  ];
  if (charts) {
    blocks.push({
      kind: 'chart',
      render: async () =>
        figureHtml(
          await renderChartSvg(comparisonsChartSpec(forestRows(list), `${list[0]?.method ?? '?'}, ${m.procedure}`), 'Each comparison across seeds and each seed'),
          "Thick bars: each comparison's interval for the expected difference over training runs and items, at the level its verdict was decided at; filled points: the estimate; hollow points: each seed's own difference; red ticks: each comparison's margin (0 for superiority).",
        ),
    });
  }
  const seedRows = list.flatMap((c) => c.per_seed.map((p) => [c.id, String(p.seed), num(p.treatment_accuracy), num(p.reference_accuracy), num(p.estimate), interval(p.interval), p.verdict]));
  blocks.push({ kind: 'text', text: `Each seed alone (the rule's paired method \`${list[0]?.per_seed[0]?.method ?? '?'}\` at 1 − ${m.alpha}/${m.comparisons}, about that seed's checkpoints only):` });
  blocks.push({ kind: 'table', header: ['comparison', 'seed', 'treatment', 'reference', 'difference', 'paired interval', 'verdict'], rows: seedRows, align: ['l', 'r', 'r', 'r', 'r', 'l', 'l'] });
  const heading = `Comparisons: ${list.map((c) => `${c.id} ${c.verdict}`).join(', ')}`;
  return { id: 'comparisons', heading, blocks };
}
