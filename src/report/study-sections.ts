// The sections of a study's report, built once from summary.json (and, for the charts, the run's other artifacts):
// report.md renders their blocks as markdown, report.html as HTML with the charts added, so the two reports carry
// the same sections, headings, tables and sentences (docs/method.md section 9).
import { formatFigure } from '../internal/figures.js';
import { DECISION_SCOPE_WORDS } from '../stats/decision.js';
import { OPTIONAL_PHASES, STUDY_PHASES, type StudySummary } from '../study/summary.js';
import type { Block, ReportSection } from './blocks.js';
import type { KernelFamilyRow } from './charts/kernel.js';
import type { PowerRow } from './charts/power.js';
import { pairedTable, wilsonInterval } from './charts/accuracy.js';
import { tableHtml } from './html.js';
import { designPowerSection } from './power-sections.js';
import { methodLabel } from '../stats/method-names.js';
import { isSeedDecisionJson } from '../stats/seeds.js';
import { learningInputs } from './learning-inputs.js';
import { lrSection } from './lr-section.js';
import { learningSection, seedDecisionSection } from './seed-sections.js';
import { answerSection, comparisonsSection } from './comparison-sections.js';
import { kernelArmsSection } from './kernel-arm-sections.js';
import type { LedgerLine } from '../study/executor/ledger.js';
import { jobsSection } from './jobs-section.js';
import { calibrationFigure, decisionFigure, evalFigure, gateFigure, kernelFigure, rewardFigure } from './sections.js';

const num = formatFigure;

/** What the charts read beyond summary.json; absent, the sections have no charts (report.md). */
export interface ChartInputs {
  /** Per-item correctness of each evaluated arm, keyed by arm name. */
  readonly evalItems?: ReadonlyMap<string, ReadonlyMap<string, boolean>>;
  /** The power rows of the design (summary.json's design_power.power when absent). */
  readonly power?: readonly PowerRow[];
  /** Per-family tuning results of a tuned kernel (with intervals). */
  readonly kernelFamilies?: readonly KernelFamilyRow[];
}

/** The gate's bar for the kernel's B_eff ratio (the min of `offline_beff_ratio_tfidf_vs_loo_mean`), or null. */
export function gateBar(s: StudySummary): number | null {
  return s.gate?.checks.find((c) => c.metric === 'offline_beff_ratio_tfidf_vs_loo_mean')?.min ?? null;
}

/** A chart block, only when the charts are drawn. */
function chart(charts: ChartInputs | undefined, render: () => Promise<string | null>): Block[] {
  return charts === undefined ? [] : [{ kind: 'chart', render: async () => (await render()) ?? '' }];
}

/** Where the study's questions came from, for the header. */
function questionsLine(data: StudySummary['data']): string {
  if (data.questions === 'clustered') return 'the built-in clustered set (templated families; `--sim-questions clustered`)';
  if (data.questions === 'arith') return "the spec's arith world, generated in code from its `dataset` section";
  return `GSM8K from \`${data.dir ?? '?'}\``;
}

/** What was run: spec, data, seed, backend, version and the overridden settings. */
export function runFacts(s: StudySummary): string[] {
  const facts = [
    `spec: \`${s.spec.path}\``,
    `spec sha256: \`${s.spec.sha256}\``,
    `questions: ${questionsLine(s.data)}` +
      ` (${s.data.train} train, ${s.data.test} test questions; sha256 \`${s.data.sha256.slice(0, 16)}…\`)`,
    `seed: ${s.seed}`,
    `backend: ${s.backend}${s.simulation ? ' (simulation)' : ''}`,
    `backend settings: \`${JSON.stringify(s.backend_settings)}\``,
    `rl-advantages version: ${s.version}`,
    `calibration settings: ${s.options.calibration_batches} batches, ${s.options.calibration_bootstrap === 0 ? 'no interval' : 'delete-one-task jackknife 95% interval'}`,
  ];
  if (s.options.steps !== null) facts.push(`steps overridden: ${s.options.steps} per arm (not the spec's)`);
  if (s.options.eval_limit !== null) {
    facts.push(
      s.options.eval_limit >= s.data.test
        ? `eval on all ${s.data.test} test items (--eval-limit ${s.options.eval_limit} is not below their number)`
        : `eval limited to the first ${s.options.eval_limit} of ${s.data.test} test items (not all)`,
    );
  }
  return facts;
}

function phases(s: StudySummary): ReportSection {
  const total = Object.values(s.phases).reduce((sum, p) => sum + (p?.wall_seconds ?? 0), 0);
  const rows: string[][] = [];
  for (const name of STUDY_PHASES) {
    const p = s.phases[name];
    // An optional phase the run does not have (tuning without --tune-kernel, kernel_arms without kernel arms) is not listed.
    const has = name === 'tuning' ? s.options.tuning_tasks !== undefined : name === 'kernel_arms' ? s.kernel_arms !== undefined : true;
    if (p === undefined && OPTIONAL_PHASES.includes(name) && !has) continue;
    rows.push(p ? [name, p.status, p.wall_seconds.toFixed(3), p.result] : [name, 'not reached', '', '']);
  }
  return {
    id: 'phases',
    heading: 'Phases',
    blocks: [
      { kind: 'text', text: `Total wall time: ${total.toFixed(1)} s.` },
      { kind: 'table', header: ['phase', 'status', 'wall time (s)', 'result'], rows, align: ['l', 'l', 'r', 'l'] },
    ],
  };
}

function preflight(s: StudySummary): ReportSection | null {
  const p = s.preflight;
  if (!p) return null;
  const failed = p.checks.filter((c) => !c.passed).map((c) => c.id);
  const note: Block[] = p.passed
    ? []
    : [{ kind: 'text', text: `The preflight FAILED (${failed.length > 0 ? failed.join(', ') : 'the report says so'}): the run stopped before calibration.` }];
  return {
    id: 'preflight',
    heading: `Preflight: ${p.passed ? 'PASSED' : 'FAILED'}`,
    blocks: [...note, { kind: 'table', header: ['check', 'passed', 'detail'], rows: p.checks.map((c) => [c.id, c.passed ? 'yes' : 'NO', c.detail]) }],
  };
}

function calibration(s: StudySummary, charts: ChartInputs | undefined): ReportSection | null {
  const c = s.calibration;
  if (!c) return null;
  const ci = (x: readonly [number, number] | null): string => (x ? `[${num(x[0])}, ${num(x[1])}]` : 'n/a');
  const rows = Object.entries(c.estimators).map(([name, e]) => [name, num(e.mse_corrected), num(e.ratio), num(e.ratio_se), ci(e.ratio_ci95)]);
  // The fallback scored after a failed gate, on the same calibration set: a row of its own.
  const fallback = s.fallback;
  if (fallback && !(fallback.estimator in c.estimators)) rows.push([`${fallback.estimator} (fallback)`, 'n/a', num(fallback.ratio), 'n/a', ci(fallback.ratio_ci95)]);
  const extra = fallback ? [{ estimator: `${fallback.estimator} (fallback)`, ratio: fallback.ratio, ci95: fallback.ratio_ci95 }] : [];
  return {
    id: 'calibration',
    heading: 'Calibration (B_eff, docs/method.md section 4)',
    blocks: [
      {
        kind: 'text',
        text:
          `${c.tasks} held-out train tasks, ${c.rollouts} rollouts of the starting policy; mean reward ${num(c.mean_reward, 3)}, ` +
          `sigma_eps^2 ${num(c.sigma_eps2)}; B = ${c.batch_size}, ${c.batches} batches, 95% intervals: ${c.interval_method}; reference ${c.reference}.`,
      },
      ...chart(charts, () => calibrationFigure(c, gateBar(s), extra)),
      { kind: 'table', header: ['estimator', 'MSE corrected', 'B_eff ratio', 'MC s.e.', `95% interval (${c.interval_method})`], rows, align: ['l', 'r', 'r', 'r', 'l'] },
    ],
  };
}

function tuning(s: StudySummary, charts: ChartInputs | undefined): ReportSection | null {
  const t = s.tuning;
  if (t === undefined) return null;
  const blocks: Block[] = [
    {
      kind: 'text',
      text:
        `${t.rows} rollouts of the starting policy, one per train task, on positions ${t.order_first}-${t.order_end - 1} of the data order ` +
        `(tasks neither arm reaches nor the gate uses); mean reward ${num(t.mean_reward, 3)}; \`${t.file}\` sha256 \`${t.sha256}\`.`,
    },
  ];
  const k = t.kernel;
  const tunedArms = (s.kernel_arms?.arms ?? []).filter((a) => a.advantage === 'tuned_kernel').map((a) => a.arm);
  if (k !== null) {
    const ci = k.held_out.ratio_ci95 ? ` [${num(k.held_out.ratio_ci95[0])}, ${num(k.held_out.ratio_ci95[1])}] (${k.held_out.interval_method ?? '?'})` : '';
    blocks.push(
      {
        kind: 'text',
        text:
          `Kernel \`${k.file}\` (sha256 \`${k.sha256}\`): family ${k.family}, ${k.candidates ?? '?'} candidates; B_eff ratio to loo_batch_mean ` +
          `${num(k.tuning_ratio)} on the tuning part, ${num(k.held_out.ratio)}${ci} held out; selection bias ${num(k.selection_bias)}.`,
      },
      {
        kind: 'text',
        text:
          tunedArms.length > 0
            ? `The kernel of arm ${tunedArms.join(', ')} (\`tuned_kernel\`): frozen before the pilot, its sha256 recorded in run.json.`
            : "This run's arms are unchanged. To adopt the kernel: `rl-adv study revise --spec SPEC --kernel " + k.file + ' --out SPEC.v2.json`, then a new run of the revised spec.',
      },
      ...chart(charts, async () => (charts?.kernelFamilies?.length ? kernelFigure(charts.kernelFamilies, gateBar(s)) : null)),
    );
    if (k.per_family.length > 0) {
      const rows = k.per_family.map((f) => [f.family, num(f.tuning), f.held_out === null ? 'n/a' : num(f.held_out)]);
      blocks.push({ kind: 'table', header: ['family', 'tuning ratio', 'held-out ratio'], rows, align: ['l', 'r', 'r'] });
    }
  }
  return { id: 'tuning', heading: tunedArms.length > 0 ? `Tuning (the kernel of ${tunedArms.join(', ')})` : 'Tuning (not adopted by this run)', blocks };
}

function pilot(s: StudySummary, charts: ChartInputs | undefined): ReportSection | null {
  const p = s.pilot;
  if (!p) return null;
  const blocks: Block[] = [
    { kind: 'table', header: ['policy', 'accuracy', 'items'], rows: Object.entries(p.eval).map(([name, e]) => [name, num(e.accuracy), String(e.n)]), align: ['l', 'r', 'r'] },
    ...chart(charts, () => rewardFigure(Object.entries(p.arms).map(([arm, a]) => ({ arm, phase: 'pilot' as const, rewardPerStep: a.reward_per_step })))),
    { kind: 'table', header: ['arm', 'reward per step'], rows: Object.entries(p.arms).map(([name, a]) => [name, a.reward_per_step.map((r) => num(r, 3)).join(', ')]) },
  ];
  const accuracies = Object.values(p.eval).map((e) => e.accuracy);
  if (s.simulation && accuracies.length > 1 && accuracies.every((a) => a === accuracies[0])) {
    blocks.splice(1, 0, {
      kind: 'text',
      text:
        "Every pilot accuracy is the same: in the simulation a greedy answer is correct exactly when the item's success " +
        'probability is at least 0.5, and 3 training steps move no item of these across 0.5, so the pilot eval cannot ' +
        'tell the arms apart (docs/sim.md). The full arms and the eval on every test item can.',
    });
  }
  return { id: 'pilot', heading: 'Pilot', blocks };
}

function gate(s: StudySummary, charts: ChartInputs | undefined): ReportSection | null {
  const g = s.gate;
  if (!g) return null;
  const blocks: Block[] = [
    { kind: 'text', text: g.passed ? 'The gate PASSED: every check is within its bounds.' : 'The gate FAILED: the run stopped before any full training. The gate is never relaxed.' },
    ...chart(charts, () => gateFigure(g.checks)),
    { kind: 'table', header: ['metric', 'value', 'min', 'max', 'status'], rows: g.checks.map((c) => [c.metric, num(c.value), num(c.min), num(c.max), c.status]), align: ['l', 'r', 'r', 'r', 'l'] },
  ];
  if (!g.passed) {
    const f = s.fallback;
    if (f) {
      blocks.push({
        kind: 'text',
        text:
          `The pre-approved fallback \`${f.estimator}\`, scored on the same calibration set, has B_eff ratio ${num(f.ratio)}` +
          `${f.ratio_ci95 ? ` (95% interval [${num(f.ratio_ci95[0])}, ${num(f.ratio_ci95[1])}])` : ''}; ` +
          'it can be adopted only through a recorded revised spec before any training.',
      });
    }
  }
  return { id: 'gate', heading: `Activation gate: ${g.passed ? 'PASSED' : 'FAILED'}`, blocks };
}

function arms(s: StudySummary, charts: ChartInputs | undefined): ReportSection | null {
  const a = s.arms;
  if (!a) return null;
  return {
    id: 'arms',
    heading: 'Arms: mean reward per step',
    blocks: [
      ...chart(charts, () => rewardFigure(Object.entries(a).map(([arm, x]) => ({ arm, phase: 'full' as const, rewardPerStep: x.reward_per_step })))),
      { kind: 'list', items: Object.entries(a).map(([name, x]) => `${name} (\`${x.advantage}\`, ${x.steps} steps): ${x.reward_per_step.map((r) => num(r, 3)).join(', ')}`) },
    ],
  };
}

function learning(s: StudySummary, charts: ChartInputs | undefined): ReportSection | null {
  const inputs = learningInputs(s);
  return inputs === null ? null : learningSection(inputs, charts !== undefined);
}

function evaluation(s: StudySummary, charts: ChartInputs | undefined): ReportSection | null {
  const e = s.eval;
  if (!e) return null;
  const accuracy = Object.entries(e).map(([arm, x]) => ({ arm, correct: Math.round(x.accuracy * x.n), n: x.n }));
  const rows = accuracy.map((x) => {
    const [lo, hi] = wilsonInterval(x.correct, x.n);
    return [x.arm, String(x.correct), String(x.n), num(x.correct / x.n), `[${num(lo)}, ${num(hi)}]`];
  });
  return {
    id: 'eval',
    heading: 'Eval (greedy)',
    blocks: [
      ...chart(charts, () => evalFigure(accuracy)),
      { kind: 'table', header: ['arm', 'correct', 'items', 'accuracy', '95% Wilson interval'], rows, align: ['l', 'r', 'r', 'r', 'l'] },
      ...chart(charts, async () => pairedHtml(s, charts?.evalItems)),
    ],
  };
}

/** The paired 2x2 table of the compared arms' per-item outcomes (eval/<arm>.jsonl; report.html only), or null. */
function pairedHtml(s: StudySummary, items: ChartInputs['evalItems']): string | null {
  const t = s.comparison && items?.get(s.comparison.treatment);
  const b = s.comparison && items?.get(s.comparison.baseline);
  if (!s.comparison || !t || !b) return null;
  const p = pairedTable(t, b);
  const { treatment, baseline } = s.comparison;
  return (
    '<p>Paired outcomes on the same items (the discordant cells drive the decision):</p>' +
    tableHtml(
      ['', `${baseline} correct`, `${baseline} wrong`],
      [
        [`${treatment} correct`, String(p.bothCorrect), String(p.treatmentOnly)],
        [`${treatment} wrong`, String(p.baselineOnly), String(p.bothWrong)],
      ],
      [1, 2],
    )
  );
}

function decision(s: StudySummary, charts: ChartInputs | undefined): ReportSection | null {
  const d = s.decision;
  if (!d) return null;
  if (isSeedDecisionJson(d)) return seedDecisionSection(d, s.comparison ?? { treatment: 'treatment', baseline: 'baseline' }, charts !== undefined);
  const rows = d.criteria.map((c) => {
    const plan = s.plan?.criteria.find((p) => p.id === c.id);
    return [c.id, c.metric, num(c.estimate), `[${num(c.lower)}, ${num(c.upper)}]`, String(c.margin), num(plan?.half_width), c.verdict];
  });
  return {
    id: 'decision',
    heading: `Decision: ${d.verdict}`,
    blocks: [
      { kind: 'text', text: `${methodLabel(d.method)} (docs/method.md section 5), treatment ${s.comparison?.treatment ?? '?'} vs baseline ${s.comparison?.baseline ?? '?'}, n = ${d.n}, alpha = ${d.alpha}.` },
      ...chart(charts, () => decisionFigure(d)),
      { kind: 'table', header: ['criterion', 'metric', 'estimate', 'interval', 'margin', 'half-width (planDecision)', 'verdict'], rows, align: ['l', 'l', 'r', 'l', 'r', 'r', 'l'] },
      ...(s.plan?.criteria ?? []).map(
        (p): Block => ({ kind: 'text', text: `${p.id}: validates only if the observed difference is above ${num(p.validates_above)}; fails only below ${num(p.fails_below)}.` }),
      ),
      { kind: 'text', text: `Scope: ${DECISION_SCOPE_WORDS}.` },
    ],
  };
}

/**
 * The report's sections in protocol order, each only when the run has its data. With `charts` the sections also
 * carry their charts (report.html); without, only what report.md shows, from summary.json alone. `jobs` (the
 * ledger RUN/jobs.jsonl) adds the Jobs section at the end.
 */
export function studySections(s: StudySummary, charts?: ChartInputs, jobs?: readonly LedgerLine[]): ReportSection[] {
  const all = [
    answerSection(s),
    { id: 'run', heading: 'What was run', blocks: [{ kind: 'list', items: runFacts(s) }] } as ReportSection,
    phases(s),
    preflight(s),
    calibration(s, charts),
    tuning(s, charts),
    pilot(s, charts),
    gate(s, charts),
    arms(s, charts),
    learning(s, charts),
    lrSection(s, charts !== undefined),
    evaluation(s, charts),
    decision(s, charts),
    comparisonsSection(s, charts !== undefined),
    kernelArmsSection(s.kernel_arms, charts !== undefined),
    designPowerSection(s, charts),
    jobsSection(jobs, charts !== undefined),
  ];
  return all.filter((x): x is ReportSection => x !== null);
}
