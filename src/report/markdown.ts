// report.md of a study run: what was run, every phase's result and wall time, the gate table, the arms' rewards,
// the eval accuracies and the decision, written from summary.json alone (so it can be regenerated from it).
// report/ reads artifacts only: it imports the summary's types and the phase order, never the runner.
import { formatFigure } from '../internal/figures.js';
import { OPTIONAL_PHASES, STUDY_PHASES, type StudySummary } from '../study/summary.js';
import { designPowerMarkdown } from './design-power.js';

const num = formatFigure;

/** Where the study's questions came from, for the header. */
function questionsLine(data: StudySummary['data']): string {
  if (data.questions === 'clustered') return 'the built-in clustered set (templated families; `--sim-questions clustered`)';
  if (data.questions === 'arith') return "the spec's arith world, generated in code from its `dataset` section";
  return `GSM8K from \`${data.dir ?? '?'}\``;
}

/** The title, the simulation banner and what was run. */
function renderHeader(s: StudySummary, out: string[]): void {
  const sim = s.simulation;
  out.push(`# Study report: ${s.spec.title ?? '(untitled spec)'}`, '');
  const clustered = s.data.questions === 'clustered';
  if (sim) {
    out.push(
      ...(clustered
        ? [
            '> **This is a SIMULATION** (`--backend sim`) on the built-in CLUSTERED question set (`--sim-questions clustered`:',
            '> templated question families, not GSM8K), with a logistic success model, not a language model.',
          ]
        : [
            '> **This is a SIMULATION** (`--backend sim`): a logistic success model on the real GSM8K questions, not a language',
            '> model.',
          ]),
      '> It exercises the protocol, the artifacts and the report; its accuracies and rewards say nothing about',
      '> Qwen or any other model. See docs/sim.md.',
      '',
    );
  }
  out.push(
    `- spec: \`${s.spec.path}\``,
    `- spec sha256: \`${s.spec.sha256}\``,
    `- questions: ${questionsLine(s.data)}` +
      ` (${s.data.train} train, ${s.data.test} test questions; sha256 \`${s.data.sha256.slice(0, 16)}…\`)`,
    `- seed: ${s.seed}`,
    `- backend: ${s.backend}${sim ? ' (simulation)' : ''}`,
    `- backend settings: \`${JSON.stringify(s.backend_settings)}\``,
    `- rl-advantages version: ${s.version}`,
    `- calibration settings: ${s.options.calibration_batches} batches, ${s.options.calibration_bootstrap} bootstrap replicates`,
  );
  if (s.options.steps !== null) out.push(`- steps overridden: ${s.options.steps} per arm (not the spec's)`);
  if (s.options.eval_limit !== null) {
    out.push(
      s.options.eval_limit >= s.data.test
        ? `- eval on all ${s.data.test} test items (--eval-limit ${s.options.eval_limit} is not below their number)`
        : `- eval limited to the first ${s.options.eval_limit} of ${s.data.test} test items (not all)`,
    );
  }
}

/** Every phase's status, wall time and result line, in protocol order. */
function renderPhases(s: StudySummary, out: string[]): void {
  const total = Object.values(s.phases).reduce((sum, p) => sum + (p?.wall_seconds ?? 0), 0);
  out.push('', '## Phases', '', `Total wall time: ${total.toFixed(1)} s.`, '', '| phase | status | wall time (s) | result |', '| --- | --- | ---: | --- |');
  for (const name of STUDY_PHASES) {
    const p = s.phases[name];
    // An optional phase the run does not have (tuning without --tune-kernel) is not listed.
    if (p === undefined && OPTIONAL_PHASES.includes(name) && s.options.tuning_tasks === undefined) continue;
    out.push(p ? `| ${name} | ${p.status} | ${p.wall_seconds.toFixed(3)} | ${p.result.replace(/\|/g, '\\|')} |` : `| ${name} | not reached | | |`);
  }
}

/** The preflight checks. */
function renderPreflight(s: StudySummary, out: string[]): void {
  if (s.preflight) {
    const failed = s.preflight.checks.filter((c) => !c.passed).map((c) => c.id);
    out.push('', `## Preflight: ${s.preflight.passed ? 'PASSED' : 'FAILED'}`, '');
    if (!s.preflight.passed) {
      out.push(`The preflight FAILED (${failed.length > 0 ? failed.join(', ') : 'the report says so'}): the run stopped before calibration.`, '');
    }
    out.push('| check | passed | detail |', '| --- | --- | --- |');
    for (const c of s.preflight.checks) out.push(`| ${c.id} | ${c.passed ? 'yes' : 'NO'} | ${c.detail.replace(/\|/g, '\\|')} |`);
  }
}

/** The B_eff calibration figures. */
function renderCalibration(s: StudySummary, out: string[]): void {
  if (s.calibration) {
    const c = s.calibration;
    out.push(
      '',
      '## Calibration (B_eff, docs/method.md section 4)',
      '',
      `${c.tasks} held-out train tasks, ${c.rollouts} rollouts of the starting policy; mean reward ${num(c.mean_reward, 3)}, ` +
        `sigma_eps^2 ${num(c.sigma_eps2)}; B = ${c.batch_size}, ${c.batches} batches, 95% intervals: ${c.interval_method}; reference ${c.reference}.`,
      '',
      `| estimator | MSE corrected | B_eff ratio | MC s.e. | 95% interval (${c.interval_method}) |`,
      '| --- | ---: | ---: | ---: | --- |',
    );
    for (const [name, e] of Object.entries(c.estimators)) {
      out.push(`| ${name} | ${num(e.mse_corrected)} | ${num(e.ratio)} | ${num(e.ratio_se)} | ${e.ratio_ci95 ? `[${num(e.ratio_ci95[0])}, ${num(e.ratio_ci95[1])}]` : 'n/a'} |`);
    }
  }
}

/** The tuning phase's rows and the kernel tuned on them (not adopted by this run). */
function renderTuning(s: StudySummary, out: string[]): void {
  const t = s.tuning;
  if (t === undefined) return;
  out.push(
    '',
    '## Tuning (not adopted by this run)',
    '',
    `${t.rows} rollouts of the starting policy, one per train task, on positions ${t.order_first}-${t.order_end - 1} of the data order ` +
      `(tasks neither arm reaches nor the gate uses); mean reward ${num(t.mean_reward, 3)}; \`${t.file}\` sha256 \`${t.sha256}\`.`,
  );
  const k = t.kernel;
  if (k === null) return;
  const ci = k.held_out.ratio_ci95 ? ` [${num(k.held_out.ratio_ci95[0])}, ${num(k.held_out.ratio_ci95[1])}] (${k.held_out.interval_method ?? '?'})` : '';
  out.push(
    '',
    `Kernel \`${k.file}\` (sha256 \`${k.sha256}\`): family ${k.family}, ${k.candidates ?? '?'} candidates; B_eff ratio to loo_batch_mean ` +
      `${num(k.tuning_ratio)} on the tuning part, ${num(k.held_out.ratio)}${ci} held out; selection bias ${num(k.selection_bias)}.`,
    '',
    'This run\'s arms are unchanged. To adopt the kernel: `rl-adv study revise --spec SPEC --kernel ' + k.file + ' --out SPEC.v2.json`, then a new run of the revised spec.',
  );
  if (k.per_family.length > 0) {
    out.push('', '| family | tuning ratio | held-out ratio |', '| --- | ---: | ---: |');
    for (const f of k.per_family) out.push(`| ${f.family} | ${num(f.tuning)} | ${f.held_out === null ? 'n/a' : num(f.held_out)} |`);
  }
}

/** The pilot's accuracies and rewards. */
function renderPilot(s: StudySummary, out: string[]): void {
  if (s.pilot) {
    out.push('', '## Pilot', '', '| policy | accuracy | items |', '| --- | ---: | ---: |');
    for (const [name, e] of Object.entries(s.pilot.eval)) out.push(`| ${name} | ${num(e.accuracy)} | ${e.n} |`);
    out.push('', '| arm | reward per step |', '| --- | --- |');
    for (const [name, a] of Object.entries(s.pilot.arms)) out.push(`| ${name} | ${a.reward_per_step.map((r) => num(r, 3)).join(', ')} |`);
    const accuracies = Object.values(s.pilot.eval).map((e) => e.accuracy);
    if (s.simulation && accuracies.length > 1 && accuracies.every((a) => a === accuracies[0])) {
      out.push(
        '',
        'Every pilot accuracy is the same: in the simulation a greedy answer is correct exactly when the item\'s success ' +
          'probability is at least 0.5, and 3 training steps move no item of these across 0.5, so the pilot eval cannot ' +
          'tell the arms apart (docs/sim.md). The full arms and the eval on every test item can.',
      );
    }
  }
}

/** The activation gate table and, on failure, the fallback. */
function renderGate(s: StudySummary, out: string[]): void {
  if (s.gate) {
    out.push('', `## Activation gate: ${s.gate.passed ? 'PASSED' : 'FAILED'}`, '', '| metric | value | min | max | status |', '| --- | ---: | ---: | ---: | --- |');
    for (const c of s.gate.checks) out.push(`| ${c.metric} | ${num(c.value)} | ${num(c.min)} | ${num(c.max)} | ${c.status} |`);
    if (!s.gate.passed) {
      out.push('', 'The gate failed, so the run stopped before any full training. The gate is never relaxed.');
      if (s.fallback) {
        out.push(
          `The pre-approved fallback \`${s.fallback.estimator}\`, scored on the same calibration set, has B_eff ratio ${num(s.fallback.ratio)}` +
            `${s.fallback.ratio_ci95 ? ` (95% interval [${num(s.fallback.ratio_ci95[0])}, ${num(s.fallback.ratio_ci95[1])}])` : ''}; ` +
            'it can be adopted only through a recorded revised spec before any training.',
        );
      }
    }
  }
}

/** The arms' mean reward per step. */
function renderArms(s: StudySummary, out: string[]): void {
  if (s.arms) {
    out.push('', '## Arms: mean reward per step', '');
    for (const [name, a] of Object.entries(s.arms)) {
      out.push(`- ${name} (\`${a.advantage}\`, ${a.steps} steps): ${a.reward_per_step.map((r) => num(r, 3)).join(', ')}`);
    }
  }
}

/** The eval accuracies. */
function renderEval(s: StudySummary, out: string[]): void {
  if (s.eval) {
    out.push('', '## Eval (greedy)', '', '| arm | accuracy | items |', '| --- | ---: | ---: |');
    for (const [name, e] of Object.entries(s.eval)) out.push(`| ${name} | ${num(e.accuracy)} | ${e.n} |`);
  }
}

/** The paired decision and its plan. */
function renderDecision(s: StudySummary, out: string[]): void {
  if (s.decision) {
    const d = s.decision;
    out.push(
      '',
      `## Decision: ${d.verdict}`,
      '',
      `${d.method} (docs/method.md section 5), treatment ${s.comparison?.treatment ?? '?'} vs baseline ${s.comparison?.baseline ?? '?'}, n = ${d.n}, alpha = ${d.alpha}.`,
      '',
      '| criterion | metric | estimate | interval | margin | half-width (planDecision) | verdict |',
      '| --- | --- | ---: | --- | ---: | ---: | --- |',
    );
    for (const c of d.criteria) {
      const plan = s.plan?.criteria.find((p) => p.id === c.id);
      out.push(
        `| ${c.id} | ${c.metric} | ${num(c.estimate)} | [${num(c.lower)}, ${num(c.upper)}] | ${c.margin} | ${num(plan?.half_width)} | ${c.verdict} |`,
      );
    }
    if (s.plan) {
      for (const p of s.plan.criteria) {
        out.push('', `${p.id}: validates only if the observed difference is above ${num(p.validates_above)}; fails only below ${num(p.fails_below)}.`);
      }
    }
  }
}

/** What the design can conclude (its power, from summary.json's design_power). */
function renderDesignPower(s: StudySummary, out: string[]): void {
  if (s.design_power) out.push(...designPowerMarkdown(s.design_power, s.eval !== undefined));
}

/**
 * Renders report.md from a study summary. For the sim backend the report says, at the top and beside every
 * figure table, that the numbers come from a simulation.
 *
 * @example
 * ```ts
 * writeFileSync('out/report.md', renderReport(summary));
 * ```
 */
export function renderReport(s: StudySummary): string {
  const out: string[] = [];
  for (const section of [renderHeader, renderPhases, renderPreflight, renderCalibration, renderTuning, renderPilot, renderGate, renderArms, renderEval, renderDecision, renderDesignPower]) {
    section(s, out);
  }
  if (s.simulation) out.push('', '_All figures above come from the simulated backend (a simulation, not a model)._');
  return out.join('\n') + '\n';
}
