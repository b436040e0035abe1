// rl-adv decide end to end on real per-item labels: the GSM8K test solutions of four models in
// shared/data/gsm8k/example_model_solutions.jsonl (OpenAI grade-school-math), one line per test item.
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { gsm8kDir, readJsonl } from '../../helpers/paths.js';
import { rlAdv, specPath, tempDir, writeJsonl } from '../run.js';

const MODELS = ['6b_finetuning', '6b_verification', '175b_finetuning', '175b_verification'] as const;
type Model = (typeof MODELS)[number];

const dir = tempDir();
const files = {} as Record<Model, string>;
const labels = {} as Record<Model, boolean[]>;

beforeAll(() => {
  const rows = readJsonl<Record<Model, { is_correct: boolean }>>(resolve(gsm8kDir, 'example_model_solutions.jsonl'));
  for (const model of MODELS) {
    labels[model] = rows.map((row) => row[model].is_correct);
    files[model] = writeJsonl(dir, `${model}.jsonl`, labels[model].map((correct, i) => ({ item_id: `gsm8k_test_${i}`, correct })));
  }
});

/** What docs/method.md section 5 gives for the spec's rule (bounds [0, 1], weights +1/-1, alpha 0.05, k = 1, margin -0.05). */
function byHand(treatment: Model, baseline: Model) {
  const t = labels[treatment];
  const b = labels[baseline];
  const n = t.length;
  let sum = 0;
  for (let i = 0; i < n; i++) sum += (t[i] ? 1 : 0) - (b[i] ? 1 : 0);
  const estimate = sum / n;
  const h = 2 * Math.sqrt(Math.log(2 / 0.05) / (2 * n));
  return { n, estimate, lower: estimate - h, upper: estimate + h };
}

interface DecisionJson {
  method: string;
  alpha: number;
  n: number;
  verdict: string;
  criteria: { id: string; metric: string; estimate: number; lower: number; upper: number; margin: number; verdict: string }[];
}

describe('rl-adv decide on the GSM8K test labels of the example models', () => {
  it.each([
    ['175b_verification', '6b_verification', 'validated'],
    ['175b_finetuning', '6b_verification', 'inconclusive'],
    ['6b_finetuning', '175b_verification', 'failed'],
  ] as const)('%s vs %s: %s, with the interval docs/method.md section 5 gives', async (treatment, baseline, verdict) => {
    const run = await rlAdv(['decide', '--spec', specPath, '--treatment', files[treatment], '--baseline', files[baseline], '--json']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const result = JSON.parse(run.stdout) as DecisionJson;
    const hand = byHand(treatment, baseline);
    expect(Object.keys(result)).toEqual(['method', 'alpha', 'n', 'verdict', 'criteria']);
    expect(result).toMatchObject({ method: 'paired_hoeffding', alpha: 0.05, n: 1319, verdict });
    const c = result.criteria[0];
    expect(Object.keys(c ?? {})).toEqual(['id', 'metric', 'estimate', 'lower', 'upper', 'margin', 'verdict']);
    expect(c?.id).toBe('primary');
    expect(c?.margin).toBe(-0.05);
    expect(c?.verdict).toBe(verdict);
    expect(c?.estimate).toBeCloseTo(hand.estimate, 14);
    expect(c?.lower).toBeCloseTo(hand.lower, 14);
    expect(c?.upper).toBeCloseTo(hand.upper, 14);
  });

  it('pairs by item_id, not by line: a shuffled baseline file gives the same decision; the text form shows it', async () => {
    const shuffled = writeJsonl(
      dir,
      'shuffled.jsonl',
      labels['6b_verification'].map((correct, i) => ({ item_id: `gsm8k_test_${i}`, correct, model: '6b' })).reverse(),
    );
    const a = await rlAdv(['decide', '--spec', specPath, '--treatment', files['175b_verification'], '--baseline', shuffled, '--json']);
    const b = await rlAdv(['decide', '--spec', specPath, '--treatment', files['175b_verification'], '--baseline', files['6b_verification'], '--json']);
    expect(a.stdout).toBe(b.stdout);
    const text = await rlAdv(['decide', '--spec', specPath, '--treatment', files['175b_verification'], '--baseline', shuffled]);
    expect(text.stdout).toMatch(/n = 1319 paired items, alpha = 0\.05/);
    // Each arm's accuracy beside the difference: 742/1319 = 0.56255 and 515/1319 = 0.39045 of the example solutions.
    expect([labels['175b_verification'], labels['6b_verification']].map((l) => l.filter(Boolean).length)).toEqual([742, 515]);
    expect(text.stdout).toMatch(/criterion\s+metric\s+treatment\s+baseline\s+estimate\s+half-width/);
    expect(text.stdout).toMatch(/primary\s+accuracy\s+0\.5625\s+0\.3904\s+\+0\.1721\s+±0\.0748\s+\[\+0\.0973, \+0\.2469\]\s+-0\.05\s+validated/);
    expect(text.stdout).toMatch(/verdict: validated\nscope: each arm is one training run \(one seed\); the interval covers which test items were drawn, not the run-to-run variation of training\n$/);
  });

  it('--method paired_exact_unconditional and paired_tango decide the 0/1 items; Tango says it is asymptotic', async () => {
    const eu = await rlAdv(['decide', '--spec', specPath, '--treatment', files['175b_finetuning'], '--baseline', files['6b_verification'], '--method', 'paired_exact_unconditional', '--json']);
    expect(eu.code).toBe(0);
    const r = JSON.parse(eu.stdout) as DecisionJson;
    expect(r.method).toBe('paired_exact_unconditional');
    // Narrower than the exact binomial box on the same items ([-0.0831, -0.0092] in docs/cli.md), same estimate.
    expect(r.criteria[0]?.estimate).toBeCloseTo(-0.0432, 4);
    expect((r.criteria[0]?.upper ?? 0) - (r.criteria[0]?.lower ?? 0)).toBeLessThan(0.0831 - 0.0092);
    const tango = await rlAdv(['decide', '--spec', specPath, '--treatment', files['175b_finetuning'], '--baseline', files['6b_verification'], '--method', 'paired_tango']);
    expect(tango.code).toBe(0);
    expect(tango.stdout).toMatch(/^paired Tango score \(asymptotic: lowest measured coverage 0\.835 at n = 10; coverage not guaranteed\) decision/);
    // paired_newcombe uses the items both arms got right too (docs/method.md section 5.4.3).
    const nc = await rlAdv(['decide', '--spec', specPath, '--treatment', files['175b_finetuning'], '--baseline', files['6b_verification'], '--method', 'paired_newcombe']);
    expect(nc.code).toBe(0);
    expect(nc.stdout).toMatch(/^paired Newcombe method 10 \(asymptotic: lowest measured coverage 0\.835 at n = 10; coverage not guaranteed\) decision/);
    expect(nc.stdout).toMatch(/primary\s+accuracy\s+\S+\s+\S+\s+-0\.0432\s/);
  });

  it('{item_id, score} rows work too', async () => {
    const t = writeJsonl(dir, 'st.jsonl', [0.5, 1, 0.25].map((score, i) => ({ item_id: i, score })));
    const b = writeJsonl(dir, 'sb.jsonl', [0, 1, 0.25].map((score, i) => ({ item_id: String(i), score })));
    const run = await rlAdv(['decide', '--spec', specPath, '--treatment', t, '--baseline', b, '--json']);
    expect(run.code).toBe(0);
    const result = JSON.parse(run.stdout) as DecisionJson;
    expect(result.n).toBe(3);
    expect(result.criteria[0]?.estimate).toBeCloseTo(0.5 / 3, 15);
    expect(result.verdict).toBe('inconclusive');
  });

  describe('bad input: exit 2 naming the file, line and field', () => {
    function bad(name: string, text: string): string {
      const file = join(dir, name);
      writeFileSync(file, text);
      return file;
    }
    const good = () => writeJsonl(dir, 'good.jsonl', [{ item_id: 'a', correct: true }, { item_id: 'b', correct: false }]);
    it.each([
      ['correct is not a boolean', '{"item_id": "a", "correct": true}\n{"item_id": "b", "correct": "no"}\n', /x\.jsonl:2: field "correct": must be true or false, got "no"/],
      ['no item_id', '{"item_id": "a", "correct": true}\n{"correct": false}\n', /x\.jsonl:2: field "item_id": must be a non-empty string or an integer/],
      ['a repeated item', '{"item_id": "a", "correct": true}\n{"item_id": "a", "correct": false}\n', /x\.jsonl:2: field "item_id": "a" repeats the item of line 1/],
      ['neither correct nor score', '{"item_id": "a", "correct": true}\n{"item_id": "b"}\n', /x\.jsonl:2: field "correct": is missing/],
      ['both correct and score', '{"item_id": "a", "correct": true}\n{"item_id": "b", "correct": true, "score": 1}\n', /x\.jsonl:2: field "score": gives correct and score/],
      ['an unpaired item', '{"item_id": "a", "correct": true}\n{"item_id": "c", "correct": true}\n', /x\.jsonl:2: field "item_id": "c" has no pair in .*good\.jsonl/],
      ['a score outside the bounds [0, 1]', '{"item_id": "a", "score": 1}\n\n{"item_id": "b", "score": 1.5}\n', /x\.jsonl:3: treatment\[1\] \(item_id "b"\)\.score is 1\.5, outside the bounds \[0, 1\]/],
    ])('%s', async (_, text, message) => {
      const run = await rlAdv(['decide', '--spec', specPath, '--treatment', bad('x.jsonl', text), '--baseline', good()]);
      expect(run.code).toBe(2);
      expect(run.stdout).toBe('');
      expect(run.stderr).toMatch(message);
      expect(run.stderr).not.toMatch(/\n\s+at /);
    });

    it('a missing option', async () => {
      const run = await rlAdv(['decide', '--spec', specPath, '--treatment', good()]);
      expect([run.code, run.stderr]).toEqual([2, expect.stringMatching(/give --treatment FILE and --baseline FILE \(one seed\), or --replicates FILE \(several seeds\); missing --baseline/)]);
    });
  });
});

describe('rl-adv decide --method and --html', () => {
  it('--method M decides with another method and says, in text and JSON, that it is not the spec\'s', async () => {
    const args = ['decide', '--spec', specPath, '--treatment', files['175b_finetuning'], '--baseline', files['6b_verification']];
    const json = JSON.parse((await rlAdv([...args, '--method', 'paired_exact_binomial', '--json'])).stdout) as DecisionJson & { spec_method: string; note: string };
    expect(Object.keys(json)).toEqual(['method', 'spec_method', 'note', 'alpha', 'n', 'verdict', 'criteria']);
    expect(json.method).toBe('paired_exact_binomial');
    expect(json.spec_method).toBe('paired_hoeffding');
    expect(json.note).toBe("paired_exact_binomial is not the spec's method (paired_hoeffding): for exploration only");
    // The exact interval is narrower than Hoeffding's: the same data conclude where Hoeffding's are inconclusive.
    const hoeffding = JSON.parse((await rlAdv([...args, '--json'])).stdout) as DecisionJson;
    expect(hoeffding.verdict).toBe('inconclusive');
    const c = json.criteria[0];
    const h = hoeffding.criteria[0];
    expect((c?.upper ?? 0) - (c?.lower ?? 0)).toBeLessThan(((h?.upper ?? 0) - (h?.lower ?? 0)) * 0.6);
    const text = (await rlAdv([...args, '--method', 'paired_empirical_bernstein'])).stdout;
    expect(text).toMatch(/^paired empirical Bernstein decision: n = 1319 paired items, alpha = 0\.05, 1 criterion\nnote: paired_empirical_bernstein is not the spec's method \(paired_hoeffding\): for exploration only\n/);
  });

  it('--method refuses an unknown method (exit 2, naming the choices); the exact method refuses a score of 0.5', async () => {
    const args = ['decide', '--spec', specPath, '--treatment', files['175b_finetuning'], '--baseline', files['6b_verification']];
    const run = await rlAdv([...args, '--method', 'wald']);
    expect([run.code, run.stderr]).toEqual([2, expect.stringMatching(/argument 'wald' is invalid\. Allowed choices are paired_hoeffding, paired_empirical_bernstein, paired_exact_binomial/)]);
    const t = writeJsonl(dir, 'half.jsonl', [{ item_id: 'a', score: 1 }, { item_id: 'b', score: 0.5 }]);
    const b = writeJsonl(dir, 'whole.jsonl', [{ item_id: 'a', score: 1 }, { item_id: 'b', score: 0 }]);
    const bad = await rlAdv(['decide', '--spec', specPath, '--treatment', t, '--baseline', b, '--method', 'paired_exact_binomial']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/half\.jsonl:2: treatment\[1\] \(item_id "b"\) has accuracy 0\.5: paired_exact_binomial needs 0\/1 outcomes/);
  });

  it('--html writes the decision page: an <svg>, the eval chart, no <script>', async () => {
    const out = join(dir, 'decision.html');
    const run = await rlAdv(['decide', '--spec', specPath, '--treatment', files['175b_verification'], '--baseline', files['6b_verification'], '--html', out]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/verdict: validated/);
    const html = readFileSync(out, 'utf8');
    expect(html).toContain('<svg');
    expect(html).not.toMatch(/<script/i);
    expect(html).toContain('<h2>Decision: validated</h2>');
    expect(html).toContain('aria-label="Eval accuracy per arm"');
  });
});
