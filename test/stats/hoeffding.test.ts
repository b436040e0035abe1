import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { combineVerdicts, criterionVerdict, decide, hoeffdingHalfWidth, pairedHoeffding, planDecision, type PairedItem, type Verdict } from '../../src/stats/index.js';
import { loadStudySpec, parseDecisionRule, StudySpecError, type DecisionRule } from '../../src/study/spec.js';
import { gsm8kDir, specPath } from '../helpers/paths.js';
import { thrown } from '../helpers/errors.js';

const spec = loadStudySpec(readFileSync(specPath, 'utf8'));

// With alpha = 2k * e^-2, ln(2k / alpha) = 2, so h = R * sqrt(2 / (2n)) = R / sqrt(n): hand-checkable figures.
const ALPHA_LN2 = 2 * Math.exp(-2); // k = 1
const ALPHA_LN2_K2 = 4 * Math.exp(-2); // k = 2

function accuracyRule(margin: number, alpha = 0.05): DecisionRule {
  return parseDecisionRule({
    method: 'paired_hoeffding',
    alpha,
    criteria: [{ id: 'primary', metric: 'accuracy', bounds: [0, 1], margin, weights: { treatment: 1, baseline: -1 } }],
  });
}

function items(correct: readonly boolean[], prefix = 'q'): PairedItem[] {
  return correct.map((c, i) => ({ item_id: `${prefix}${i}`, correct: c }));
}

describe('hoeffdingHalfWidth', () => {
  it('gives the spec figure: n = 1319, alpha = 0.05, R = 2 -> 0.0748 (docs/method.md section 5)', () => {
    // 2 * sqrt(ln(40) / 2638) = 2 * sqrt(3.6888794541139363 / 2638) = 2 * 0.0373946812905601 = 0.0747893625811203
    const h = hoeffdingHalfWidth({ n: 1319, alpha: 0.05, range: 2 });
    expect(h).toBeCloseTo(0.07478936258112029, 14);
    expect(h.toFixed(4)).toBe('0.0748');
  });

  it('is R / sqrt(n) when ln(2k / alpha) = 2', () => {
    expect(hoeffdingHalfWidth({ n: 4, alpha: ALPHA_LN2, range: 2 })).toBeCloseTo(1, 14);
    expect(hoeffdingHalfWidth({ n: 100, alpha: ALPHA_LN2, range: 1 })).toBeCloseTo(0.1, 14);
    expect(hoeffdingHalfWidth({ n: 100, alpha: ALPHA_LN2_K2, range: 1, comparisons: 2 })).toBeCloseTo(0.1, 14);
  });

  it('with Bonferroni, k comparisons at alpha equal one comparison at alpha / k', () => {
    const k2 = hoeffdingHalfWidth({ n: 1319, alpha: 0.05, range: 2, comparisons: 2 });
    expect(k2).toBeCloseTo(hoeffdingHalfWidth({ n: 1319, alpha: 0.025, range: 2 }), 14);
    // 2 * sqrt(ln(80) / 2638) = 0.0818993...
    expect(k2).toBeCloseTo(2 * Math.sqrt(Math.log(80) / 2638), 14);
    expect(k2).toBeGreaterThan(hoeffdingHalfWidth({ n: 1319, alpha: 0.05, range: 2 }));
  });

  it('rejects bad n, alpha, range and comparisons', () => {
    expect(thrown(() => hoeffdingHalfWidth({ n: 0, alpha: 0.05, range: 2 })).code).toBe('bad_integer');
    expect(thrown(() => hoeffdingHalfWidth({ n: 2.5, alpha: 0.05, range: 2 })).field).toBe('n');
    expect(thrown(() => hoeffdingHalfWidth({ n: 10, alpha: 1, range: 2 })).code).toBe('bad_alpha');
    expect(thrown(() => hoeffdingHalfWidth({ n: 10, alpha: 0, range: 2 })).code).toBe('bad_alpha');
    expect(thrown(() => hoeffdingHalfWidth({ n: 10, alpha: 0.05, range: 0 })).code).toBe('bad_range');
    expect(thrown(() => hoeffdingHalfWidth({ n: 10, alpha: 0.05, range: 2, comparisons: 0 })).field).toBe('comparisons');
  });

  test.prop([fc.integer({ min: 1, max: 100_000 }), fc.double({ min: 1e-6, max: 0.999, noNaN: true }), fc.double({ min: 1e-3, max: 100, noNaN: true })])(
    'shrinks as 1 / sqrt(n): h(4n) = h(n) / 2',
    (n, alpha, range) => {
      const h = hoeffdingHalfWidth({ n, alpha, range });
      expect(hoeffdingHalfWidth({ n: 4 * n, alpha, range })).toBeCloseTo(h / 2, 12);
    },
  );
});

describe('pairedHoeffding', () => {
  it('hand-computed: d = [1, 0, 1, 0], R = 2, ln(2/alpha) = 2 -> 0.5 +- 1', () => {
    const iv = pairedHoeffding({ differences: [1, 0, 1, 0], range: 2, alpha: ALPHA_LN2 });
    expect(iv.n).toBe(4);
    expect(iv.estimate).toBe(0.5);
    expect(iv.halfWidth).toBeCloseTo(1, 14);
    expect(iv.lower).toBeCloseTo(-0.5, 14);
    expect(iv.upper).toBeCloseTo(1.5, 14);
  });

  it('accepts typed arrays', () => {
    const iv = pairedHoeffding({ differences: new Float64Array([0.25, -0.25, 0.5, 0.5]), range: 1, alpha: 0.05 });
    expect(iv.estimate).toBe(0.25);
  });

  it('rejects a non-finite difference by index, no items, and a spread wider than R', () => {
    const e = thrown(() => pairedHoeffding({ differences: [0, Number.NaN], range: 2, alpha: 0.05 }));
    expect(e.message).toBe('differences[1] must be a finite number, got NaN');
    expect(e.index).toBe(1);
    expect(thrown(() => pairedHoeffding({ differences: [], range: 2, alpha: 0.05 })).code).toBe('empty');
    expect(thrown(() => pairedHoeffding({ differences: [-1, 1.5], range: 2, alpha: 0.05 })).code).toBe('out_of_range');
    // A spread of exactly R is allowed.
    expect(pairedHoeffding({ differences: [-1, 1], range: 2, alpha: 0.05 }).estimate).toBe(0);
  });

  test.prop([fc.array(fc.double({ min: -1, max: 1, noNaN: true }), { minLength: 1, maxLength: 200 }), fc.double({ min: 1e-4, max: 0.5, noNaN: true })])(
    'the interval contains the estimate, which lies within the data, and is symmetric about it',
    (differences, alpha) => {
      const iv = pairedHoeffding({ differences, range: 2, alpha });
      expect(iv.lower).toBeLessThanOrEqual(iv.estimate);
      expect(iv.upper).toBeGreaterThanOrEqual(iv.estimate);
      expect(iv.estimate).toBeGreaterThanOrEqual(Math.min(...differences) - 1e-12);
      expect(iv.estimate).toBeLessThanOrEqual(Math.max(...differences) + 1e-12);
      expect(iv.upper - iv.estimate).toBeCloseTo(iv.estimate - iv.lower, 12);
    },
  );
});

describe('criterionVerdict and combineVerdicts', () => {
  it('validates only when lower > m strictly, fails only when upper < m strictly', () => {
    expect(criterionVerdict({ lower: -0.049, upper: 0.1, margin: -0.05 })).toBe('validated');
    expect(criterionVerdict({ lower: -0.05, upper: 0.1, margin: -0.05 })).toBe('inconclusive');
    expect(criterionVerdict({ lower: -0.2, upper: -0.05, margin: -0.05 })).toBe('inconclusive');
    expect(criterionVerdict({ lower: -0.2, upper: -0.051, margin: -0.05 })).toBe('failed');
    expect(thrown(() => criterionVerdict({ lower: Number.NaN, upper: 0, margin: 0 })).field).toBe('lower');
  });

  it('is validated only if every criterion is, failed if any is', () => {
    expect(combineVerdicts(['validated', 'validated'])).toBe('validated');
    expect(combineVerdicts(['validated', 'inconclusive'])).toBe('inconclusive');
    expect(combineVerdicts(['validated', 'failed'])).toBe('failed');
    expect(combineVerdicts(['inconclusive', 'failed'])).toBe('failed');
    expect(combineVerdicts(['inconclusive'])).toBe('inconclusive');
    expect(thrown(() => combineVerdicts([])).code).toBe('empty');
  });

  const rank: Record<Verdict, number> = { validated: 0, inconclusive: 1, failed: 2 };
  test.prop([fc.double({ min: -2, max: 2, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: -3, max: 3, noNaN: true }), fc.double({ min: -3, max: 3, noNaN: true })])(
    'moves from validated towards failed as the margin rises',
    (estimate, h, m1, m2) => {
      const [lo, hi] = m1 <= m2 ? [m1, m2] : [m2, m1];
      const iv = { lower: estimate - h, upper: estimate + h };
      expect(rank[criterionVerdict({ ...iv, margin: lo })]).toBeLessThanOrEqual(rank[criterionVerdict({ ...iv, margin: hi })]);
    },
  );
});

describe('planDecision', () => {
  it("gives the spec's figures: h = 0.0748, validates only above about +0.025 (docs/method.md section 5)", () => {
    // n = 1319, alpha = 0.05, k = 1, R = (1 + 1) * (1 - 0) = 2:
    // h = 2 * sqrt(ln(40) / 2638) = 0.0747893625811203; margin + h = -0.05 + 0.0747893625811203 = 0.0247893625811203.
    const plan = planDecision({ n: 1319, ...spec.decisionRule });
    expect(plan).toMatchObject({ n: 1319, alpha: 0.05, comparisons: 1 });
    const c = plan.criteria[0];
    expect(c?.id).toBe('primary');
    expect(c?.margin).toBe(-0.05);
    expect(c?.range).toBe(2);
    expect(c?.halfWidth).toBeCloseTo(0.07478936258112029, 14);
    expect(c?.validatesAbove).toBeCloseTo(0.024789362581120286, 14);
    expect(c?.failsBelow).toBeCloseTo(-0.12478936258112029, 14);
    expect(c?.validatesAbove.toFixed(3)).toBe('0.025');
    expect(c?.canValidate).toBe(true);
    expect(c?.canFail).toBe(true);
  });

  it('says when a study is too small to ever validate', () => {
    // d <= 1, so validation needs -0.05 + 2 * sqrt(ln(40) / (2n)) < 1, i.e. n > 2 * ln(40) / 1.05^2 = 6.69:
    // n = 6 gives h = 1.1089 (cannot validate), n = 7 gives h = 1.0266 (can, barely).
    const criteria = spec.decisionRule.criteria;
    expect(planDecision({ n: 6, alpha: 0.05, criteria }).criteria[0]?.canValidate).toBe(false);
    expect(planDecision({ n: 7, alpha: 0.05, criteria }).criteria[0]?.canValidate).toBe(true);
    // Failing needs the mean below -0.05 - h >= -1: n = 1 gives h = 2.716, so neither verdict is reachable.
    expect(planDecision({ n: 1, alpha: 0.05, criteria }).criteria[0]).toMatchObject({ canValidate: false, canFail: false });
  });

  it('splits alpha over two criteria (Bonferroni, k = 2)', () => {
    const plan = planDecision({
      n: 100,
      alpha: ALPHA_LN2_K2,
      criteria: [
        { id: 'a', metric: 'accuracy', bounds: [0, 1], margin: 0, weights: { treatment: 1, baseline: -1 } },
        { id: 'b', metric: 'format', bounds: [0, 0.5], margin: 0, weights: { treatment: 1, baseline: -1 } },
      ],
    });
    expect(plan.comparisons).toBe(2);
    // ln(4 / alpha) = 2, so h = R / sqrt(100): R = 2 and R = 1.
    expect(plan.criteria[0]?.halfWidth).toBeCloseTo(0.2, 14);
    expect(plan.criteria[1]?.halfWidth).toBeCloseTo(0.1, 14);
  });

  it('validates its input', () => {
    expect(thrown(() => planDecision({ n: 0, ...spec.decisionRule })).code).toBe('bad_integer');
    const e = thrown(() => planDecision({ n: 10, alpha: 0.05, criteria: [] }));
    expect(e).toBeInstanceOf(StudySpecError);
    expect((e as StudySpecError).problems[0]?.path).toBe('criteria');
  });
});

describe('decide', () => {
  it('hand-computed: accuracies 3/4 vs 1/4, d = [1, 0, 1, 0], interval 0.5 +- 1', () => {
    const treatment = items([true, true, true, false]);
    const baseline = items([false, true, false, false]);
    for (const [margin, verdict] of [
      [-0.6, 'validated'],
      [0, 'inconclusive'],
      [1.6, 'failed'],
    ] as const) {
      const r = decide(accuracyRule(margin, ALPHA_LN2), treatment, baseline);
      expect(r).toMatchObject({ method: 'paired_hoeffding', alpha: ALPHA_LN2, comparisons: 1, n: 4, verdict });
      const c = r.criteria[0];
      expect(c).toMatchObject({ id: 'primary', metric: 'accuracy', estimate: 0.5, margin, verdict, range: 2 });
      expect(c?.halfWidth).toBeCloseTo(1, 14);
      expect(c?.lower).toBeCloseTo(-0.5, 14);
      expect(c?.upper).toBeCloseTo(1.5, 14);
    }
  });

  it('a lower bound exactly equal to the margin is not validated; an upper bound equal to it is not failed', () => {
    const treatment = items([true, true, false, true, false, true]);
    const baseline = items([true, false, false, true, true, false]);
    const { lower, upper } = decide(accuracyRule(0), treatment, baseline).criteria[0] ?? { lower: NaN, upper: NaN };
    expect(decide(accuracyRule(lower), treatment, baseline).verdict).toBe('inconclusive');
    expect(decide(accuracyRule(upper), treatment, baseline).verdict).toBe('inconclusive');
    // One float step past each bound flips the verdict.
    const below = lower - Math.abs(lower) * Number.EPSILON - Number.MIN_VALUE;
    const above = upper + Math.abs(upper) * Number.EPSILON + Number.MIN_VALUE;
    expect(decide(accuracyRule(below), treatment, baseline).verdict).toBe('validated');
    expect(decide(accuracyRule(above), treatment, baseline).verdict).toBe('failed');
  });

  it('pairs by item id, not by position, and treats 7 and "7" as the same item', () => {
    const treatment: PairedItem[] = [
      { item_id: 'a', correct: true },
      { item_id: 7, correct: false },
      { item_id: 'c', correct: true },
    ];
    const baseline: PairedItem[] = [
      { item_id: 'c', correct: true },
      { item_id: 'a', correct: false },
      { item_id: '7', correct: true },
    ];
    // d = [1 - 0, 0 - 1, 1 - 1] = [1, -1, 0], mean 0.
    expect(decide(accuracyRule(-0.05), treatment, baseline).criteria[0]?.estimate).toBe(0);
  });

  it('reads score and per-metric values, with Bonferroni over two criteria (k = 2)', () => {
    const rule = parseDecisionRule({
      method: 'paired_hoeffding',
      alpha: ALPHA_LN2_K2,
      criteria: [
        { id: 'acc', metric: 'accuracy', bounds: [0, 1], margin: -0.5, weights: { treatment: 1, baseline: -1 } },
        { id: 'len', metric: 'length', bounds: [0, 2], margin: 1, weights: { treatment: -1, baseline: 1 } },
      ],
    });
    // 4 items: accuracy d = [1, 0, 0, 1] (mean 0.5, R = 2, h = 2 / 2 = 1 -> [-0.5, 1.5]);
    // length d = baseline - treatment = [2, 2, 2, 2] (mean 2, R = 4, h = 4 / 2 = 2 -> [0, 4]).
    const treatment: PairedItem[] = [0, 1, 2, 3].map((i) => ({ item_id: i, metrics: { accuracy: i % 3 === 0, length: 0 } }));
    const baseline: PairedItem[] = [0, 1, 2, 3].map((i) => ({ item_id: i, metrics: { accuracy: 0, length: 2 } }));
    const r = decide(rule, treatment, baseline);
    expect(r.comparisons).toBe(2);
    expect(r.criteria.map((c) => [c.id, c.estimate, c.verdict])).toEqual([
      ['acc', 0.5, 'inconclusive'], // lower -0.5 is not > -0.5
      ['len', 2, 'inconclusive'], // lower 0 < margin 1 < upper 4
    ]);
    expect(r.criteria[0]?.halfWidth).toBeCloseTo(1, 14);
    expect(r.criteria[1]?.halfWidth).toBeCloseTo(2, 14);
    expect(r.verdict).toBe('inconclusive');

    // With scores, the one value is used for every criterion; one failed criterion fails the decision.
    const scored = parseDecisionRule({
      ...rule,
      criteria: [
        { id: 'acc', metric: 'accuracy', bounds: [0, 1], margin: -1.6, weights: { treatment: 1, baseline: -1 } },
        { id: 'acc2', metric: 'accuracy', bounds: [0, 1], margin: 1.6, weights: { treatment: 1, baseline: -1 } },
      ],
    });
    const s = decide(
      scored,
      [0.5, 1, 0.5, 1].map((score, i) => ({ item_id: i, score })),
      [0.5, 0, 0.5, 0].map((score, i) => ({ item_id: i, score })),
    );
    expect(s.criteria.map((c) => c.verdict)).toEqual(['validated', 'failed']);
    expect(s.verdict).toBe('failed');
  });

  it('names the item id and index of every bad item', () => {
    const rule = accuracyRule(-0.05);
    const base = items([true, false, true]);
    let e = thrown(() => decide(rule, items([true, false]), base));
    expect(e.code).toBe('missing_pair');
    expect(e.message).toContain('baseline[2] (item_id "q2")');
    e = thrown(() => decide(rule, [...items([true, false, true]), { item_id: 'q1', correct: true }], base));
    expect(e.code).toBe('duplicate_item');
    expect(e.message).toBe(
      'treatment[3] (item_id "q1") repeats the item_id of treatment[1]; each item must appear once per arm',
    );
    expect(e.index).toBe(3);
    e = thrown(() => decide(rule, [{ item_id: 'q0', score: 1.5 }, ...base.slice(1)], base));
    expect(e.code).toBe('out_of_bounds');
    expect(e.message).toBe('treatment[0] (item_id "q0").score is 1.5, outside the bounds [0, 1] of criterion "primary" (metric "accuracy")');
    e = thrown(() => decide(rule, base, [{ item_id: 'q0', score: Number.NaN }, ...base.slice(1)]));
    expect(e.code).toBe('non_finite');
    expect(e.message).toContain('baseline[0] (item_id "q0").score');
    e = thrown(() => decide(rule, [{ item_id: 'q0', score: 1, correct: true }, ...base.slice(1)], base));
    expect(e.message).toContain('must give exactly one of correct, score, metrics; got correct, score');
    e = thrown(() => decide(rule, [{ item_id: 'q0', metrics: { other: 1 } }, ...base.slice(1)], base));
    expect(e.code).toBe('missing_metric');
    e = thrown(() => decide(rule, [{ item_id: 1.5, correct: true } as PairedItem], base));
    expect(e.message).toContain('treatment[0].item_id must be a non-empty string or an integer');
    expect(thrown(() => decide(rule, [], base)).code).toBe('empty');
  });

  it('validates the rule it is given', () => {
    const e = thrown(() => decide({ method: 'paired_hoeffding', alpha: 0.05 } as unknown as DecisionRule, items([true]), items([true])));
    expect(e).toBeInstanceOf(StudySpecError);
    expect(e.field).toBe('decision_rule.criteria');
  });

  const pairs = fc.array(fc.tuple(fc.boolean(), fc.boolean()), { minLength: 1, maxLength: 300 });

  const scorePairs = fc.array(fc.tuple(fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true })), {
    minLength: 1,
    maxLength: 300,
  });

  test.prop([scorePairs])('swapping treatment and baseline under symmetric weights negates the estimate', (p) => {
    // b - t is exactly -(t - b) in IEEE arithmetic, and so is the sum in the same order.
    const t = p.map(([a], i) => ({ item_id: i, score: a }));
    const b = p.map(([, x], i) => ({ item_id: i, score: x }));
    const forward = decide(spec.decisionRule, t, b).criteria[0];
    const backward = decide(spec.decisionRule, b, t).criteria[0];
    expect(backward?.estimate).toBe(0 - (forward?.estimate ?? NaN)); // 0 - x: the sign of zero is not the point
    expect(backward?.halfWidth).toBe(forward?.halfWidth);
  });

  test.prop([pairs])('the estimate is accuracy(treatment) - accuracy(baseline) and the interval contains it', (p) => {
    const r = decide(spec.decisionRule, items(p.map(([a]) => a)), items(p.map(([, x]) => x)));
    const c = r.criteria[0];
    const acc = (k: 0 | 1) => p.filter((x) => x[k]).length / p.length;
    expect(c?.estimate).toBeCloseTo(acc(0) - acc(1), 12);
    expect(c?.lower).toBeLessThanOrEqual(c?.estimate ?? NaN);
    expect(c?.upper).toBeGreaterThanOrEqual(c?.estimate ?? NaN);
    expect(r.n).toBe(p.length);
  });

  test.prop([pairs, fc.infiniteStream(fc.nat())])('does not depend on the order of the baseline items', (p, keys) => {
    const t = items(p.map(([a]) => a));
    const b = items(p.map(([, x]) => x));
    const shuffled = b.map((item) => ({ item, key: keys.next().value as number })).sort((x, y) => x.key - y.key).map((x) => x.item);
    expect(decide(spec.decisionRule, t, shuffled)).toEqual(decide(spec.decisionRule, t, b));
  });
});

describe('decide on real per-item correctness (GSM8K example_model_solutions.jsonl, 1319 test items)', () => {
  type Row = Record<string, { is_correct: boolean }>;
  const rows = readFileSync(path.resolve(gsm8kDir, 'example_model_solutions.jsonl'), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Row);
  const arm = (system: string): PairedItem[] =>
    rows.map((row, i) => ({ item_id: `gsm8k_test_${i}`, correct: (row[system] as { is_correct: boolean }).is_correct }));
  const correctCount = (system: string) => rows.filter((row) => row[system]?.is_correct === true).length;

  // h for the spec's rule at n = 1319: 2 * sqrt(ln(40) / 2638), computed here by plain arithmetic.
  const h = 2 * Math.sqrt(Math.log(40) / (2 * 1319));

  it('holds 1319 items with the counts the file states (counted independently with Python)', () => {
    expect(rows).toHaveLength(1319);
    expect(correctCount('6b_finetuning')).toBe(286);
    expect(correctCount('6b_verification')).toBe(515);
    expect(correctCount('175b_finetuning')).toBe(458);
    expect(correctCount('175b_verification')).toBe(742);
  });

  it('6B verification vs 175B fine-tuning: +57/1319 = +0.0432, lower -0.0316 > -0.05: validated', () => {
    // Discordant pairs: 209 items only 6B-verification solves, 152 only 175B-fine-tuning solves: (209 - 152) / 1319.
    const r = decide(spec.decisionRule, arm('6b_verification'), arm('175b_finetuning'));
    const c = r.criteria[0];
    expect(r.n).toBe(1319);
    expect(c?.estimate).toBe(57 / 1319);
    expect(c?.estimate).toBe((515 - 458) / 1319);
    expect(c?.halfWidth).toBeCloseTo(h, 14);
    expect(c?.lower).toBeCloseTo(57 / 1319 - h, 14);
    expect(c?.lower).toBeCloseTo(-0.031574806098936814, 12);
    expect(r.verdict).toBe('validated');
  });

  it('the same pair reversed: -0.0432, interval [-0.1180, 0.0316] straddles -0.05: inconclusive', () => {
    const r = decide(spec.decisionRule, arm('175b_finetuning'), arm('6b_verification'));
    expect(r.criteria[0]?.estimate).toBe(-57 / 1319);
    expect(r.criteria[0]?.upper).toBeCloseTo(-57 / 1319 + h, 14);
    expect(r.verdict).toBe('inconclusive');
  });

  it('6B fine-tuning vs 175B fine-tuning: -172/1319 = -0.1304, upper -0.0556 < -0.05: failed', () => {
    const r = decide(spec.decisionRule, arm('6b_finetuning'), arm('175b_finetuning'));
    expect(r.criteria[0]?.estimate).toBe((286 - 458) / 1319);
    expect(r.criteria[0]?.upper).toBeCloseTo(-172 / 1319 + h, 14);
    expect(r.verdict).toBe('failed');
  });
});
