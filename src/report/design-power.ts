// "What this design can conclude", in words: the one text report.md and report.html both show, from summary.json.
import { formatFigure } from '../internal/figures.js';
import { ASYMPTOTIC_DECISION_METHODS, methodLabel, type DecisionMethodName } from '../stats/method-names.js';
import type { StudyDesignPower, StudySeedDesignPower } from '../study/summary.js';
import type { Block } from './blocks.js';

/** A method's name, with "(asymptotic)" after one whose coverage is not guaranteed (a column heading). */
function shortLabel(method: string): string {
  return ASYMPTOTIC_DECISION_METHODS.includes(method as DecisionMethodName) ? `${method} (asymptotic)` : method;
}

/** Where D came from, in words; an assumed D says why (no eval, or arms that agreed on every eval item). */
function sourceWords(p: StudyDesignPower, evalReached: boolean): string {
  if (p.discordance.source === 'observed') return 'observed between the two arms on the eval items';
  if (p.discordance.source !== 'assumed') return p.discordance.source;
  return evalReached
    ? 'assumed: the two arms agreed on every eval item, and D = 0 says nothing about power'
    : 'assumed: the run stopped before the eval, so no discordance was observed';
}

/** P(validated) of a method at a true difference of 0, or null when the table lacks it. */
function validatedIfEqual(p: StudyDesignPower, method: string): number | null {
  return p.power.find((r) => r.method === method && r.difference === 0)?.p_validated ?? null;
}

/** The sentence under the heading: the design, where D comes from, and the headline figure for the spec's method. */
export function designPowerNote(p: StudyDesignPower, evalReached: boolean): string {
  const equal = validatedIfEqual(p, p.spec_method);
  const n80 = p.n_for_80_percent_power[p.spec_method as keyof StudyDesignPower['n_for_80_percent_power']];
  const headline =
    equal === null
      ? ''
      : ` If the arms are truly equal, the spec's method (${p.spec_method}) validates with probability ${equal.toFixed(3)}` +
        (n80 === undefined ? '.' : n80 === null ? `, and no n up to ${p.n_cap} gives it 80%.` : `; it needs n = ${n80} for 80%.`);
  const differences = new Set(p.power.map((r) => r.difference)).size;
  const cut = differences < 11 ? ` True differences larger in size than D cannot occur at this D and are left out (${differences} of 11 shown).` : '';
  // A summary written before paired_newcombe has no control accuracy.
  const control = (p as Partial<StudyDesignPower>).control_accuracy;
  const newcombe =
    control !== undefined && p.thresholds.some((t) => t.method === 'paired_newcombe')
      ? ` paired_newcombe's power also takes the control arm's accuracy, ${formatFigure(control.value)} (${control.source === 'observed' ? "the two arms' mean accuracy" : control.source}).`
      : '';
  return (
    `n = ${p.n} paired items, criterion ${p.criterion} (margin ${p.margin}), alpha ${p.alpha}, discordance D = ${formatFigure(p.discordance.value)} ` +
    `(${sourceWords(p, evalReached)}); exact over the paired counts (docs/method.md section 5.6).${headline}${cut}${newcombe}`
  );
}

/** The section's blocks: the note, the thresholds and n for 80% power per method, and the power table. */
export function designPowerBlocks(p: StudyDesignPower, evalReached: boolean): Block[] {
  const methods = p.thresholds.map((t) => t.method);
  const thresholds = p.thresholds.map((t) => {
    const n80 = p.n_for_80_percent_power[t.method];
    return [
      `${methodLabel(t.method)}${t.method === p.spec_method ? " (the spec's)" : ''}`,
      t.validates_at === null ? 'never' : formatFigure(t.validates_at),
      t.fails_at === null ? 'never' : formatFigure(t.fails_at),
      validatedIfEqual(p, t.method)?.toFixed(4) ?? 'n/a',
      n80 === null || n80 === undefined ? `not below ${p.n_cap}` : String(n80),
    ];
  });
  const power = [...new Set(p.power.map((r) => r.difference))].map((d) => [
    d.toFixed(2),
    ...methods.map((m) => {
      const r = p.power.find((x) => x.method === m && x.difference === d);
      return r === undefined ? 'n/a' : `${r.p_validated.toFixed(4)} / ${r.p_failed.toFixed(4)}`;
    }),
  ]);
  return [
    { kind: 'text', text: designPowerNote(p, evalReached) },
    {
      kind: 'table',
      header: ['method', 'validates if observed >=', 'fails if observed <=', 'P(validated) if equal', 'n for 80% power if equal'],
      rows: thresholds,
      align: ['l', 'r', 'r', 'r', 'r'],
    },
    { kind: 'text', text: `P(validated) / P(failed) at each true difference (observed thresholds at ${p.thresholds[0]?.discordant ?? 0} discordant pairs):` },
    { kind: 'table', header: ['true difference', ...methods.map(shortLabel)], rows: power, align: ['r', ...methods.map(() => 'r' as const)] },
  ];
}

/**
 * A replicated run's own design, in words and a table: the seed-level power at its S seeds and n items with the
 * assumptions stated (docs/method.md section 5.9), or why it could not be computed.
 */
export function seedDesignPowerBlocks(p: StudySeedDesignPower): Block[] {
  if ('error' in p) return [{ kind: 'text', text: `The across-seed power could not be computed under its assumptions (${p.assumptions}): ${p.error}` }];
  const pm = (x: number, e: number): string => `${x.toFixed(3)} ± ${e.toFixed(3)}`;
  return [
    {
      kind: 'text',
      text:
        `The design this run used: the decision across S = ${p.seeds} seeds x n = ${p.n} items (\`${p.method}\`, criterion ${p.criterion}, margin ${p.margin}, ` +
        `alpha ${p.alpha}), at ${p.assumptions}; by simulation of the normal crossed random-effects model, ${p.replicates} draws (docs/method.md section 5.9). ` +
        'The run-to-run SD is an assumption, not a measurement: `rl-adv plan --from-decision decision.json` recomputes the power at the SD these seeds show.',
    },
    {
      kind: 'table',
      header: ['P(validated) if equal', 'P(failed) if equal', `n for 80% power at ${p.seeds} seeds`, `seeds for 80% power at n = ${p.n}`],
      rows: [
        [
          pm(p.p_validated, p.mc_error.p_validated),
          pm(p.p_failed, p.mc_error.p_failed),
          p.n_for_80_percent_power === null ? `not below ${p.n_cap}` : String(p.n_for_80_percent_power),
          p.seeds_for_80_percent_power === null ? `not below ${p.seeds_cap}` : String(p.seeds_for_80_percent_power),
        ],
      ],
      align: ['r', 'r', 'r', 'r'],
    },
  ];
}
