// Issue 39, items 2 and 4, through the built CLI as a user runs it: a finished sim study (one seed, and one with
// decision_rule.seeds), a file of it torn, cut at a line boundary or with an answer flipped, then
// `rl-adv study --resume` or `rl-adv report`. --resume keeps nothing it has not checked against summary.json's
// artifact manifest: the damaged file is named, rebuilt from its inputs, and the run ends (exit 0) with the bytes of
// the uninterrupted run. `rl-adv report` refuses (exit 2) an eval file that differs from what summary.json records,
// naming it and what differs, and leaves the reports as they were.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { repoRoot, specPath } from '../helpers/paths.js';

const cli = path.join(repoRoot, 'dist', 'cli.js');
const root = mkdtempSync(path.join(tmpdir(), 'rl-adv-torn-'));

function rlAdv(args: readonly string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const seededSpec = path.join(root, 'seeds.spec.json');
const single = path.join(root, 'single');
const seeded = path.join(root, 'seeded');
const quick = (spec: string, out: string): string[] => [
  'study', '--spec', spec, '--out', out, '--sim-questions', 'clustered', '--sim-coupling', '0.9', '--steps', '20', '--eval-limit', '50',
  '--calibration-batches', '200', '--calibration-interval', 'none', '--jobs', '2',
];

/** Every JSON and JSON-lines file but summary.json, relative and sorted. */
const files = (dir: string): string[] =>
  (readdirSync(dir, { recursive: true }) as string[]).filter((f) => /\.(json|jsonl)$/.test(f) && f !== 'summary.json').sort();

/** A copy of a finished run (the replicated one when `seeds`), named after `name`. */
function copy(name: string, seeds: boolean): string {
  const dir = path.join(root, name.replace(/\W+/g, '-'));
  cpSync(seeds ? seeded : single, dir, { recursive: true });
  return dir;
}

/** Damages: the first `bytes` bytes kept (a torn write), the first `lines` lines kept (a cut at a line boundary). */
const tear = (file: string, bytes = 40): void => writeFileSync(file, readFileSync(file).subarray(0, bytes));
const cutLines = (file: string, lines: number): void => {
  const kept = readFileSync(file, 'utf8').split('\n').slice(0, lines);
  writeFileSync(file, kept.join('\n') + '\n');
};
/** Flips `correct` on the eval file's first row (so its correct count changes). */
const flipOne = (file: string): void => {
  const rows = readFileSync(file, 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as { correct: boolean });
  (rows[0] as { correct: boolean }).correct = !(rows[0] as { correct: boolean }).correct;
  writeFileSync(file, rows.map((r) => JSON.stringify(r) + '\n').join(''));
};
/** Flips one right and one wrong answer: the correct count stays, the bytes do not. */
const flipPair = (file: string): void => {
  const rows = readFileSync(file, 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as { correct: boolean });
  const right = rows.find((r) => r.correct) as { correct: boolean };
  const wrong = rows.find((r) => !r.correct) as { correct: boolean };
  right.correct = false;
  wrong.correct = true;
  writeFileSync(file, rows.map((r) => JSON.stringify(r) + '\n').join(''));
};

beforeAll(() => {
  const spec = JSON.parse(readFileSync(specPath, 'utf8')) as { decision_rule: Record<string, unknown> };
  spec.decision_rule.seeds = [0, 3];
  writeFileSync(seededSpec, JSON.stringify(spec, null, 2));
  for (const [spec, out] of [[specPath, single], [seededSpec, seeded]] as const) {
    const r = rlAdv(quick(spec, out));
    if (r.code !== 0) throw new Error(`the uninterrupted run failed (exit ${String(r.code)}): ${r.stderr}`);
  }
});

const seedEval = 'seeds/3/eval/gs1_tfidf_g1.jsonl';
const resumeCases: readonly [string, string, (file: string) => void, RegExp][] = [
  ['gate.json torn', 'gate.json', tear, /not valid JSON/],
  ['preflight.json torn', 'preflight.json', tear, /not valid JSON/],
  ['a pilot state.json torn', 'pilot/gs1_tfidf_g1/state.json', tear, /not valid JSON/],
  ['calibration.jsonl cut at a line boundary', 'calibration/calibration.jsonl', (f) => cutLines(f, 100), /100 rows where summary\.json records 512/],
  ['a pilot eval file torn mid-line', 'pilot/eval_grpo_g8.jsonl', (f) => tear(f, 130), /line 3 is not valid JSON/],
  ["an arm's eval file cut at a line boundary", 'eval/gs1_tfidf_g1.jsonl', (f) => cutLines(f, 20), /20 rows where summary\.json records 50/],
  ["the starting policy's eval with an answer flipped", 'eval/init.jsonl', flipOne, /content differs/],
  ["a seed's arm state.json torn (seeds)", 'seeds/3/arms/grpo_g8/state.json', tear, /not valid JSON/],
  ["a seed's eval file with two answers flipped (seeds)", seedEval, flipPair, /content differs/],
  ["a seed's eval file deleted (seeds)", 'seeds/0/eval/grpo_g8.jsonl', (f) => rmSync(f), /: missing; /],
];

describe('rl-adv study --resume on a finished run with a damaged artifact', () => {
  for (const [name, rel, damage, problem] of resumeCases) {
    it(`${name}: named, rebuilt from its inputs, exit 0 with the uninterrupted run's bytes`, () => {
      const seeds = name.endsWith('(seeds)');
      const dir = copy(`resume ${name}`, seeds);
      const file = path.join(dir, ...rel.split('/'));
      damage(file);
      const args = [...quick(seeds ? seededSpec : specPath, dir), '--resume'];
      const r = rlAdv(args);
      expect(r.code, r.stderr).toBe(0);
      const shown = file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      expect(r.stderr).toMatch(new RegExp(`rl-adv study: ${shown}: .*; rebuilding it from its inputs`));
      expect(r.stderr).toMatch(problem);
      expect(r.stderr).toMatch(/redoing \w+/);
      // Every artifact is whole again, byte for byte the uninterrupted run's, and recorded as it was.
      const whole = seeds ? seeded : single;
      expect(files(dir)).toEqual(files(whole));
      for (const f of files(whole)) expect(readFileSync(path.join(dir, f)).equals(readFileSync(path.join(whole, f))), f).toBe(true);
      const artifacts = (d: string): unknown => (JSON.parse(readFileSync(path.join(d, 'summary.json'), 'utf8')) as { artifacts: unknown }).artifacts;
      expect(artifacts(dir)).toEqual(artifacts(whole));
      // And a second --resume finds nothing to rebuild (checked once: each case above ends with the same manifest).
      if (rel === 'gate.json') {
        const again = rlAdv(args);
        expect(again.code, again.stderr).toBe(0);
        expect(again.stderr).not.toContain('rebuilding');
      }
    });
  }
});

const reportCases: readonly [string, string, (file: string) => void, RegExp][] = [
  ["the starting policy's eval cut at a line boundary", 'eval/init.jsonl', (f) => cutLines(f, 30), /: 30 items where summary\.json records 50 \(cut short or edited\)/],
  ["the starting policy's eval with an answer flipped", 'eval/init.jsonl', flipOne, /: \d+ of 50 answers correct where summary\.json records \d+ \(answers changed\)/],
  ["an arm's eval file cut at a line boundary", 'eval/grpo_g8.jsonl', (f) => cutLines(f, 49), /: 49 items where summary\.json records 50/],
  ["an arm's eval file with two answers flipped", 'eval/gs1_tfidf_g1.jsonl', flipPair, /: its content differs from what summary\.json records \(\d+ bytes, sha256 [0-9a-f]{12}\.\.\.; recorded/],
  ["the starting policy's pilot eval with an answer flipped", 'pilot/eval_init.jsonl', flipOne, /: \d+ of 100 answers correct where summary\.json records \d+/],
  ['a pilot eval file cut at a line boundary', 'pilot/eval_gs1_tfidf_g1.jsonl', (f) => cutLines(f, 60), /: 60 items where summary\.json records 100/],
  ["a seed's eval file cut at a line boundary (seeds)", seedEval, (f) => cutLines(f, 10), /: 10 items where summary\.json records 50/],
  ["a seed's eval file with two answers flipped (seeds)", 'seeds/0/eval/grpo_g8.jsonl', flipPair, /: its content differs from what summary\.json records/],
];

describe('rl-adv report on a run with a damaged eval file', () => {
  it('reports the intact runs (exit 0)', () => {
    for (const seeds of [false, true]) expect(rlAdv(['report', copy(`intact ${seeds}`, seeds)]).code).toBe(0);
  });

  for (const [name, rel, damage, message] of reportCases) {
    it(`${name}: exit 2 naming the file and what differs, the reports kept`, () => {
      const dir = copy(`report ${name}`, name.endsWith('(seeds)'));
      const file = path.join(dir, ...rel.split('/'));
      damage(file);
      const reports = ['report.md', 'report.html'].map((f) => readFileSync(path.join(dir, f)));
      const r = rlAdv(['report', dir]);
      expect(r.code, r.stderr).toBe(2);
      const lines = r.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(`rl-adv: ${file}: `);
      expect(lines[0]).toMatch(message);
      expect(lines[0]).toContain('run the study again with --resume');
      expect(['report.md', 'report.html'].map((f) => readFileSync(path.join(dir, f)))).toEqual(reports);
    });
  }
});
