// Issue 39, through the built CLI in real processes (node dist/cli.js), on real files: a spec's names never become a
// path outside --out (arm names, comparison ids are checked where the spec is read); a run folder's lock file that is
// a FIFO or a link to /dev/zero is refused at once (exit 2) by `report` and `study --resume`, and a lock naming a
// pid <= 1 is called malformed, never `kill -1`; `study revise --kernel/--spec` and `--estimator-module` refuse a
// FIFO and /dev/zero at once; comparisons refuse a margin >= 0 without margin_reason, a repeated ordered pair and an
// unknown field. Every refusal is asserted by its exit code and its line; the commands return at once (a FIFO is
// never opened blocking), so the spawn's kill-after is a net for the old behaviour (a hang), never an assertion.
import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { gsm8kDir, repoRoot, specPath } from '../helpers/paths.js';

const cli = path.join(repoRoot, 'dist', 'cli.js');
const temp = (): string => mkdtempSync(path.join(tmpdir(), 'rl-adv-study-trust-'));

function rlAdv(args: readonly string[], cwd = repoRoot): { code: number | null; stdout: string; stderr: string } {
  // The kill-after is a net for a command that would block (the behaviour this file guards against), not a timing claim.
  const r = spawnSync(process.execPath, [cli, ...args], { cwd, encoding: 'utf8', timeout: 120_000, killSignal: 'SIGKILL' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const quick = (spec: string, out: string): string[] => [
  'study', '--spec', spec, '--out', out, '--sim-questions', 'clustered', '--sim-coupling', '0.9', '--steps', '12', '--eval-limit', '60',
  '--calibration-batches', '300', '--calibration-interval', 'none', '--jobs', '2',
];

type Spec = Record<string, unknown> & { arms: Record<string, unknown>[]; decision_rule: Record<string, unknown> };
const shipped = (): Spec => JSON.parse(readFileSync(specPath, 'utf8')) as Spec;
const ablation = (): Spec => JSON.parse(readFileSync(path.join(repoRoot, 'specs', 'arith-ablation.json'), 'utf8')) as Spec;

function writeSpec(dir: string, spec: unknown, name = 'spec.json'): string {
  const file = path.join(dir, name);
  writeFileSync(file, JSON.stringify(spec, null, 2) + '\n');
  return file;
}

/** Every file and folder under `dir`, relative, sorted. */
const tree = (dir: string): string[] => (readdirSync(dir, { recursive: true }) as string[]).sort();

/** The 1-based line of the first `needle` in `file`. */
const lineIn = (file: string, needle: string): number => {
  const text = readFileSync(file, 'utf8');
  expect(text).toContain(needle);
  return text.slice(0, text.indexOf(needle)).split('\n').length;
};

const mkfifo = (file: string): void => {
  expect(spawnSync('mkfifo', [file]).status).toBe(0);
};

describe('names from a spec that become paths', () => {
  it('an arm named ../../X is refused where the spec is read (exit 2 naming arms[1].name); nothing is written, inside --out or outside', () => {
    const root = temp();
    const deep = path.join(root, 'a', 'b');
    mkdirSync(deep, { recursive: true });
    const spec = shipped();
    spec.arms[1] = { ...spec.arms[1], name: '../../X' };
    const file = writeSpec(deep, spec);
    const r = rlAdv(quick(file, path.join(deep, 'run')), deep);
    expect(r.code, r.stderr).toBe(2);
    // The line is the second arm's name's own (indices honoured), not the first arm's.
    const line = lineIn(file, '"name": "../../X"');
    expect(r.stderr).toMatch(new RegExp(`spec\\.json:${line}: field "arms\\[1\\]\\.name": must be a safe name: 1 to 64 characters of A-Z a-z 0-9 _ - \\., not starting with "\\." .*got "\\.\\./\\.\\./X"`));
    expect(r.stdout).toBe('');
    expect(tree(root)).toEqual(['a', path.join('a', 'b'), path.join('a', 'b', 'spec.json')]);
  });

  it('refuses a separator, a leading dot, "..", an empty name and a name over 64 characters, each naming its field; a comparison id too', () => {
    const dir = temp();
    const cases: [string, (s: Spec) => void, string][] = [
      ['arms[0].name', (s) => (s.arms[0] = { ...s.arms[0], name: 'a/b' }), 'got "a/b"'],
      ['arms[0].name', (s) => (s.arms[0] = { ...s.arms[0], name: '..' }), 'got ".."'],
      ['arms[0].name', (s) => (s.arms[0] = { ...s.arms[0], name: '' }), 'must be a non-empty string'],
      ['arms[1].name', (s) => (s.arms[1] = { ...s.arms[1], name: '.hidden' }), 'got ".hidden"'],
      ['arms[1].name', (s) => (s.arms[1] = { ...s.arms[1], name: 'a\\b' }), 'got "a\\\\b"'],
      ['arms[1].name', (s) => (s.arms[1] = { ...s.arms[1], name: 'x'.repeat(65) }), 'must be at most 64 characters'],
    ];
    for (const [field, change, says] of cases) {
      const spec = shipped();
      change(spec);
      const r = rlAdv(quick(writeSpec(dir, spec), path.join(dir, 'run')));
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(`field "${field}": `);
      expect(r.stderr).toContain(says);
      expect(existsSync(path.join(dir, 'run'))).toBe(false);
    }
    const spec = ablation();
    (spec.decision_rule.comparisons as Record<string, unknown>[])[1] = { ...(spec.decision_rule.comparisons as Record<string, unknown>[])[1], id: '../up' };
    const r = rlAdv(quick(writeSpec(dir, spec), path.join(dir, 'run')));
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/field "decision_rule\.comparisons\[1\]\.id": must be a safe name: .*got "\.\.\/up"/);
  });

  it("a 64-character arm name is a path part: the study runs, each of its seeds in its own folder under --out", () => {
    const dir = temp();
    const spec = shipped();
    const name = `g${'1'.repeat(63)}`;
    spec.arms[1] = { ...spec.arms[1], name };
    spec.decision_rule = { ...spec.decision_rule, seeds: [0, 3] };
    const out = path.join(dir, 'run');
    const r = rlAdv(quick(writeSpec(dir, spec), out));
    expect(r.code, r.stderr).toBe(0);
    for (const seed of ['0', '3']) expect(statSync(path.join(out, 'seeds', seed, 'arms', name, 'advantages.jsonl')).isFile()).toBe(true);
    expect(tree(dir).every((f) => f === 'spec.json' || f === 'run' || f.startsWith(`run${path.sep}`))).toBe(true);
  });
});

describe('the run folder lock is read without following links, non-blocking, regular files only', () => {
  const done = path.join(temp(), 'run');
  it('a finished run to plant locks in', () => {
    expect(rlAdv(quick(specPath, done)).code).toBe(0);
  });

  const lock = path.join(done, '.rl-adv.lock');
  const plant = (make: () => void): void => {
    rmSync(lock, { recursive: true, force: true });
    make();
  };
  const cases: [string, () => void, RegExp][] = [
    ['a FIFO', () => mkfifo(lock), /has a lock file .*\.rl-adv\.lock that rl-adv cannot read \(it is a FIFO \(named pipe\), not a regular file\): if no rl-adv process uses the folder, remove it \(rm .*\.rl-adv\.lock\)/],
    ['a symbolic link to /dev/zero', () => symlinkSync('/dev/zero', lock), /has a lock file .*\.rl-adv\.lock that rl-adv cannot read \(it is a symbolic link, not a regular file\): if no rl-adv process uses the folder, remove it/],
    ['a folder', () => mkdirSync(lock), /has a lock file .*\.rl-adv\.lock that rl-adv cannot read \(it is a folder, not a regular file\)/],
  ];
  for (const [what, make, says] of cases) {
    it(`a lock that is ${what}: report and study --resume exit 2 at once with one line, and leave it in place`, () => {
      plant(make);
      for (const args of [['report', done], [...quick(specPath, done), '--resume']]) {
        const r = rlAdv(args);
        expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(2);
        expect(r.stderr).toMatch(says);
        expect(r.stderr.trim().split('\n')).toHaveLength(1);
        expect(statSafe(lock)).toBe(true);
      }
    });
  }

  for (const pid of [-1, 0, 1, 2.5, '123']) {
    it(`a lock naming pid ${JSON.stringify(pid)} is malformed: no advice to signal it, only how to remove the file`, () => {
      plant(() => writeFileSync(lock, JSON.stringify({ pid, host: hostname(), start: null, token: '00ff', command: 'rl-adv study', since: '2026-01-01T00:00:00Z' }) + '\n'));
      for (const args of [['report', done], [...quick(specPath, done), '--resume']]) {
        const r = rlAdv(args);
        expect(r.code, r.stderr).toBe(2);
        expect(r.stderr).toMatch(new RegExp(`has a malformed lock file .*\\.rl-adv\\.lock \\(it names pid ${JSON.stringify(pid).replace(/[.]/g, '\\.')}, which no rl-adv process can have \\(a pid is an integer > 1\\)\\): if no rl-adv process uses the folder, remove it \\(rm `));
        expect(r.stderr).not.toMatch(/kill/);
      }
    });
  }
});

/** Whether `file` exists as a name (a link is not followed: a dangling or special one counts). */
function statSafe(file: string): boolean {
  try {
    lstatSync(file);
    return true;
  } catch {
    return false;
  }
}

describe('special files where a run file or a GSM8K split belongs', () => {
  it('on --resume, a state.json that is a FIFO and an advantages.jsonl linked to /dev/zero are refused at once (exit 2), naming them', () => {
    const dir = path.join(temp(), 'run');
    expect(rlAdv(quick(specPath, dir)).code).toBe(0);
    // A finished run resumes without reading the arms: mark the arms phase undone so they are read.
    const summaryFile = path.join(dir, 'summary.json');
    const summary = JSON.parse(readFileSync(summaryFile, 'utf8')) as { phases: Record<string, unknown> };
    for (const phase of ['arms', 'eval', 'decision']) delete summary.phases[phase];
    writeFileSync(summaryFile, JSON.stringify(summary));
    const state = path.join(dir, 'arms', 'gs1_tfidf_g1', 'state.json');
    rmSync(state);
    mkfifo(state);
    let r = rlAdv([...quick(specPath, dir), '--resume']);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr.trim().split('\n').at(-1)).toBe(`rl-adv: ${state} is a FIFO (named pipe), not a regular file: rl-adv did not write it; remove it, then run the same command with --resume`);
    const log = path.join(dir, 'arms', 'grpo_g8', 'advantages.jsonl');
    rmSync(log);
    symlinkSync('/dev/zero', log);
    r = rlAdv([...quick(specPath, dir), '--resume']);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr.trim().split('\n').at(-1)).toBe(`rl-adv: ${log} is a device, not a regular file: rl-adv did not write it; remove it, then run the same command with --resume`);
  });

  it('a GSM8K train.jsonl that is a FIFO is refused at once (exit 2), naming it', () => {
    const data = path.join(temp(), 'gsm8k');
    mkdirSync(data);
    mkfifo(path.join(data, 'train.jsonl'));
    writeFileSync(path.join(data, 'test.jsonl'), readFileSync(path.join(gsm8kDir, 'test.jsonl')));
    const r = rlAdv(['study', '--spec', specPath, '--out', path.join(data, '..', 'run'), '--data-dir', data, '--steps', '2']);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`rl-adv: GSM8K file ${path.join(data, 'train.jsonl')} is a FIFO (named pipe), not a regular file. `);
  });
});

describe('special files given as --kernel, --spec (study revise) and --estimator-module', () => {
  const dir = temp();
  const fifo = path.join(dir, 'fifo.json');
  mkfifo(fifo);
  const zero = path.join(dir, 'zero.json');
  symlinkSync('/dev/zero', zero);
  const revise = (spec: string, kernel: string): string[] => ['study', 'revise', '--spec', spec, '--kernel', kernel, '--out', path.join(dir, 'v2.json'), '--sim-questions', 'clustered'];

  it('study revise: a FIFO or /dev/zero as --kernel or --spec is refused at once (exit 2, one line); nothing is written', () => {
    const cases: [string[], string][] = [
      [revise(specPath, fifo), `rl-adv: --kernel ${fifo} is a FIFO (named pipe), not a regular file\n`],
      [revise(specPath, zero), `rl-adv: --kernel ${zero} is a device, not a regular file\n`],
      [revise(specPath, '/dev/zero'), 'rl-adv: --kernel /dev/zero is a device, not a regular file\n'],
      [revise(fifo, specPath), `rl-adv: --spec ${fifo} is a FIFO (named pipe), not a regular file\n`],
      [revise(zero, specPath), `rl-adv: --spec ${zero} is a device, not a regular file\n`],
    ];
    for (const [args, stderr] of cases) {
      const r = rlAdv(args);
      expect([r.code, r.stderr]).toEqual([2, stderr]);
      expect(existsSync(path.join(dir, 'v2.json'))).toBe(false);
    }
  });

  it('--estimator-module FIFO or /dev/zero, and a spec whose estimator_modules names one, are refused at once (exit 2)', () => {
    for (const file of [fifo, zero, '/dev/zero']) {
      const r = rlAdv(['estimators', '--estimator-module', file]);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(/^rl-adv: --estimator-module \S+ is (a FIFO \(named pipe\)|a device), not a regular file: an estimator module must be a regular file \(an ES module\)\n$/);
    }
    const spec = shipped();
    spec.estimator_modules = ['fifo.json'];
    const r = rlAdv(quick(writeSpec(dir, spec), path.join(dir, 'run')));
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/spec field "estimator_modules\[0\]" .*fifo\.json is a FIFO \(named pipe\), not a regular file/);
  });
});

describe('decision_rule.comparisons', () => {
  const dir = temp();
  const withComparisons = (change: (c: Record<string, unknown>[]) => void): string => {
    const spec = ablation();
    const comparisons = spec.decision_rule.comparisons as Record<string, unknown>[];
    change(comparisons);
    return writeSpec(dir, spec);
  };
  const refused = (file: string): string => {
    const r = rlAdv(quick(file, path.join(dir, 'run')));
    expect(r.code, r.stderr).toBe(2);
    expect(existsSync(path.join(dir, 'run'))).toBe(false);
    return r.stderr;
  };

  it('a non-inferiority margin of 0 or above is refused unless margin_reason says why', () => {
    for (const margin of [0, 0.01]) {
      const stderr = refused(withComparisons((c) => (c[1] = { ...c[1], margin })));
      expect(stderr).toContain(`field "decision_rule.comparisons[1].margin": must be below 0 for a non-inferiority comparison (how much worse the treatment may be: -0.05 allows 5 points), got ${margin}`);
    }
    const empty = refused(withComparisons((c) => (c[1] = { ...c[1], margin: 0, margin_reason: ' ' })));
    expect(empty).toContain('field "decision_rule.comparisons[1].margin_reason": must be a non-empty string');
    const superiority = refused(withComparisons((c) => (c[2] = { ...c[2], margin_reason: 'x' })));
    expect(superiority).toContain('field "decision_rule.comparisons[2].margin_reason": must be absent for a superiority comparison');
  });

  it('the same ordered pair twice is refused', () => {
    const stderr = refused(withComparisons((c) => c.push({ ...c[0], id: 'again', margin: -0.1 })));
    expect(stderr).toContain('field "decision_rule.comparisons[3]": compares "gs1_tfidf_g1" with "grpo_g8" again, as decision_rule.comparisons[0] does: one comparison per ordered pair (treatment, reference)');
  });

  it('an unknown field (a "marign" typo) is refused by name, with the field meant', () => {
    const stderr = refused(withComparisons((c) => {
      c[0] = { ...c[0], marign: -0.05 };
    }));
    expect(stderr).toMatch(new RegExp(`spec\\.json:${lineIn(path.join(dir, 'spec.json'), '"marign"')}: field "decision_rule\\.comparisons\\[0\\]\\.marign": `));
    expect(stderr).toMatch(/spec\.json:\d+: field "decision_rule\.comparisons\[0\]\.marign": is not a field of a comparison \(did you mean "margin"\?\); the fields are id, treatment, reference, kind, margin, margin_reason, metric/);
  });
});
