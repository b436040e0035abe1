// rl-adv decide --replicates: the decision across seeds from a file naming each seed's eval files, equal to the
// library's decideAcrossSeeds on the same items; its input errors name the file, line, field and seed (exit 2).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import seedrandom from 'seedrandom';
import { beforeAll, describe, expect, it } from 'vitest';
import { decideAcrossSeeds, seedDecisionJson, type PairedItem } from '../../../src/stats/index.js';
import { loadStudySpec } from '../../../src/study/spec.js';
import { rlAdv, specPath, tempDir, writeJsonl } from '../run.js';

const dir = tempDir();
const SEEDS = [0, 1, 2, 3];
const arms: Record<number, { treatment: PairedItem[]; baseline: PairedItem[] }> = {};

beforeAll(() => {
  for (const seed of SEEDS) {
    const rng = seedrandom(`decide-replicates/${seed}`);
    const shift = 0.03 * (rng() - 0.5);
    const item = (i: number, p: number) => ({ item_id: `gsm8k_test_${i}`, correct: rng() < p + 0.3 * Math.sin(i) });
    arms[seed] = {
      treatment: Array.from({ length: 300 }, (_, i) => item(i, 0.5 + shift)),
      baseline: Array.from({ length: 300 }, (_, i) => item(i, 0.49)),
    };
    writeJsonl(dir, `gs1-seed${seed}.jsonl`, arms[seed].treatment);
    // The baseline file lists the items in another order: items pair by id.
    writeJsonl(dir, `grpo-seed${seed}.jsonl`, [...arms[seed].baseline].reverse());
  }
  writeJsonl(dir, 'seeds.jsonl', SEEDS.map((seed) => ({ seed, treatment: `gs1-seed${seed}.jsonl`, baseline: `grpo-seed${seed}.jsonl` })));
});

const rule = () => loadStudySpec(JSON.parse(readFileSync(specPath, 'utf8'))).decisionRule;
const library = (method?: 'seed_t') =>
  seedDecisionJson(decideAcrossSeeds({ replicates: SEEDS.map((seed) => ({ seed, ...(arms[seed] as { treatment: PairedItem[]; baseline: PairedItem[] }) })), rule: rule(), ...(method ? { method } : {}) }));

describe('rl-adv decide --replicates', () => {
  it('--json equals the library on the same items (paths relative to the file, from any working folder)', async () => {
    const run = await rlAdv(['decide', '--spec', specPath, '--replicates', join(dir, 'seeds.jsonl'), '--json'], { cwd: '/' });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const json = JSON.parse(run.stdout);
    expect(json).toEqual(library());
    expect(json.method).toBe('seed_item_t');
    expect(json.seeds).toBe(4);
    expect(json.per_seed.map((p: { seed: number }) => p.seed)).toEqual(SEEDS);
    // Beside the verdict: the collapse rate 4 seeds cannot rule out, 1 - 0.05^(1/4) (docs/method.md section 5.8).
    expect(json.collapse_rate_not_ruled_out).toBeCloseTo(1 - 0.05 ** (1 / 4), 15);
  });

  it('identical seeds (every seed the same eval files, as a seed that changes nothing gives): no interval, no verdict, standard error null', async () => {
    const same = Array.from({ length: 6 }, (_, seed) => ({ seed, treatment: 'gs1-seed0.jsonl', baseline: 'grpo-seed0.jsonl' }));
    writeJsonl(dir, 'same.jsonl', same);
    for (const method of ['seed_item_t', 'seed_t']) {
      const run = await rlAdv(['decide', '--spec', specPath, '--replicates', join(dir, 'same.jsonl'), '--seed-method', method, '--json']);
      expect(run.code).toBe(0);
      const json = JSON.parse(run.stdout);
      expect([json.verdict, json.interval, json.standard_error, json.fallback?.reason]).toEqual(['inconclusive', [-1, 1], null, 'no_variation']);
    }
    const text = await rlAdv(['decide', '--spec', specPath, '--replicates', join(dir, 'same.jsonl')]);
    expect(text.stdout).toContain('NO INTERVAL: no variance can be estimated');
    expect(text.stdout).toContain('collapse: 6 seeds cannot rule out a collapse rate up to 0.39 per run');
  });

  it('--seed-method seed_t, and the readable form shows every seed and the answer across seeds', async () => {
    const run = await rlAdv(['decide', '--spec', specPath, '--replicates', join(dir, 'seeds.jsonl'), '--seed-method', 'seed_t', '--json']);
    expect(JSON.parse(run.stdout)).toEqual(library('seed_t'));
    const text = await rlAdv(['decide', '--spec', specPath, '--replicates', join(dir, 'seeds.jsonl')]);
    expect(text.code).toBe(0);
    const d = library();
    expect(text.stdout).toContain('decision across 4 seeds x 300 paired items: seed_item_t');
    for (const p of d.per_seed) expect(text.stdout).toMatch(new RegExp(`^\\s*${p.seed}\\s+300\\s`, 'm'));
    expect(text.stdout).toContain(`verdict: ${d.verdict}`);
    expect(text.stdout).toContain('collapse: 4 seeds cannot rule out a collapse rate up to 0.53 per run');
  });

  const fails = async (rows: unknown[] | string, extra: string[] = []) => {
    const file = join(dir, `bad-${Math.random().toString(36).slice(2)}.jsonl`);
    writeFileSync(file, typeof rows === 'string' ? rows : rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const run = await rlAdv(['decide', '--spec', specPath, '--replicates', file, ...extra]);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    return run.stderr.replace(file, 'FILE');
  };
  const line = (seed: number, t = `gs1-seed${seed}.jsonl`, b = `grpo-seed${seed}.jsonl`) => ({ seed, treatment: t, baseline: b });

  it('refuses a repeated seed, a non-integer seed, an unknown field and a missing path, at their line', async () => {
    expect(await fails([line(0), line(1), line(1)])).toContain('FILE:3: field "seed": 1 repeats the seed of line 2');
    expect(await fails([line(0), { ...line(1), seed: 1.5 }])).toContain('FILE:2: field "seed": must be an integer');
    expect(await fails([line(0), { ...line(1), weight: 1 }])).toContain('FILE:2: field "weight": is not a field of a replicate');
    expect(await fails([line(0), { seed: 1, treatment: 'gs1-seed1.jsonl' }])).toContain('FILE:2: field "baseline": is missing');
    expect(await fails([line(0), line(1, 'nope.jsonl')])).toMatch(/--replicates FILE:2 \(seed 1\) treatment .*nope\.jsonl: cannot read it/);
  });

  it('refuses fewer than 2 seeds, naming the seed', async () => {
    expect(await fails([line(2)])).toContain('FILE: holds 1 replicate (seed 2): a decision across seeds needs at least 2 seeds');
  });

  it('refuses a seed evaluated on other items, and mismatched arms within a seed, naming the seed', async () => {
    writeJsonl(dir, 'short.jsonl', (arms[1] as { treatment: PairedItem[] }).treatment.slice(0, 299));
    writeJsonl(dir, 'short-b.jsonl', (arms[1] as { baseline: PairedItem[] }).baseline.slice(0, 299));
    expect(await fails([line(0), line(1, 'short.jsonl', 'short-b.jsonl')])).toContain(
      'FILE:2: field "treatment": replicates[1] (seed 1) lacks 1 item(s) of replicates[0] (seed 0): "gsm8k_test_299"',
    );
    const mismatch = await fails([line(0), line(1, 'gs1-seed1.jsonl', 'short-b.jsonl')]);
    expect(mismatch).toMatch(/gs1-seed1\.jsonl: FILE:2: replicates\[1\] \(seed 1\): items must pair one-to-one by item_id/);
  });

  it('refuses mixing --replicates with --treatment or --method, and --seed-method without it', async () => {
    expect(await fails([line(0), line(1)], ['--treatment', join(dir, 'gs1-seed0.jsonl')])).toContain('not both');
    expect(await fails([line(0), line(1)], ['--method', 'paired_exact_binomial'])).toContain('use --seed-method');
    const run = await rlAdv(['decide', '--spec', specPath, '--treatment', join(dir, 'gs1-seed0.jsonl'), '--baseline', join(dir, 'grpo-seed0.jsonl'), '--seed-method', 'seed_t']);
    expect([run.code, run.stderr]).toEqual([2, 'rl-adv: --seed-method needs --replicates FILE\n']);
  });
});

describe('library, CLI (and python/tests/test_seeds.py) against the independent reference', () => {
  // test/fixtures/seed_reference.py: 3 seeds x 60 items, the intervals by plain Python with the closed-form t at 2 df.
  const fixtures = join(__dirname, '..', '..', 'fixtures');
  const ref = JSON.parse(readFileSync(join(fixtures, 'seed-reference.json'), 'utf8'));
  const read = (f: string) => readFileSync(join(fixtures, 'seeds', f), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  it.each(['seed_item_t', 'seed_t'] as const)('%s: decideAcrossSeeds and decide --replicates give the reference interval (1e-12)', async (method) => {
    const replicates = read('replicates.jsonl').map((l: { seed: number; treatment: string; baseline: string }) => ({ seed: l.seed, treatment: read(l.treatment), baseline: read(l.baseline) }));
    const lib = decideAcrossSeeds({ replicates, rule: rule(), method });
    const run = await rlAdv(['decide', '--spec', specPath, '--replicates', join(fixtures, 'seeds', 'replicates.jsonl'), '--seed-method', method, '--json']);
    const cli = JSON.parse(run.stdout);
    const want = ref.methods[method];
    for (const got of [seedDecisionJson(lib), cli]) {
      expect(got.estimate).toBeCloseTo(ref.estimate, 12);
      expect(got.interval[0]).toBeCloseTo(want.interval[0], 12);
      expect(got.interval[1]).toBeCloseTo(want.interval[1], 12);
      expect(got.standard_error).toBeCloseTo(want.standard_error, 12);
      expect(got.per_seed_difference_sd).toBeCloseTo(ref.per_seed_difference_sd, 12);
      expect(got.run_to_run_sd).toBeCloseTo(ref.run_to_run_sd, 12);
      expect(got.fallback?.rule ?? null).toBe(ref.floored ? 'ms_error_floor' : null);
      expect([got.df, got.verdict, got.seeds, got.n]).toEqual([want.df, want.verdict, 3, 60]);
      got.per_seed.forEach((p: { estimate: number }, i: number) => expect(p.estimate).toBeCloseTo(ref.per_seed[i], 12));
    }
    expect(cli).toEqual(seedDecisionJson(lib));
  });
});

describe('seeds on their own items against the independent reference', () => {
  const fixtures = join(__dirname, '..', '..', 'fixtures');
  const ref = JSON.parse(readFileSync(join(fixtures, 'seed-reference.json'), 'utf8')).per_seed_items;
  const read = (f: string) => readFileSync(join(fixtures, 'seeds', f), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  it('the replicates file\'s "items": "per_seed" and --seed-items per_seed give the reference t on per-seed means (1e-12); without them, a clear refusal', async () => {
    const lines = read('replicates-own.jsonl') as { seed: number; treatment: string; baseline: string }[];
    const replicates = lines.map((l) => ({ seed: l.seed, treatment: read(l.treatment), baseline: read(l.baseline) }));
    const lib = seedDecisionJson(decideAcrossSeeds({ replicates, rule: rule(), itemSets: 'per_seed' }));
    const run = await rlAdv(['decide', '--spec', specPath, '--replicates', join(fixtures, 'seeds', 'replicates-own.jsonl'), '--json']);
    expect(run.stderr).toBe('');
    const cli = JSON.parse(run.stdout);
    expect(cli).toEqual(lib);
    expect(cli.item_sets).toBe('per_seed');
    expect(cli.estimate).toBeCloseTo(ref.estimate, 12);
    expect(cli.interval[0]).toBeCloseTo(ref.interval[0], 12);
    expect(cli.interval[1]).toBeCloseTo(ref.interval[1], 12);
    expect(cli.standard_error).toBeCloseTo(ref.standard_error, 12);
    expect([cli.df, cli.verdict, cli.fallback?.rule ?? null]).toEqual([ref.df, ref.verdict, ref.floored ? 'ms_error_floor' : null]);
    expect(cli.per_seed.map((p: { n: number }) => p.n)).toEqual(ref.n);
    expect(() => decideAcrossSeeds({ replicates, rule: rule() })).toThrow(/per_seed/);
  });
});
