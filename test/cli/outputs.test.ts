// The output guard (src/cli/outputs.ts), from the command definitions: every output option of every command is
// pointed at every one of the command's inputs (plain, `./..`-spelt, through a symbolic link and a hard link; with
// and without --force) and must exit 2 with every file's bytes unchanged. A new file option is covered without a
// new test: it is found in the definitions, and a command whose declared option no scenario gives fails here.
import { createHash } from 'node:crypto';
import { existsSync, linkSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import type { Command, Option } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram, runCli, type CliIo } from '../../src/cli/program.js';
import { declaredFiles, fileRole } from '../../src/cli/outputs.js';
import { shippedSpecPath } from '../../src/cli/shipped-spec.js';
import { tempDir } from './run.js';

/** Every command of the program with its path of names (`study revise`). */
function commands(): { path: string[]; command: Command }[] {
  const out: { path: string[]; command: Command }[] = [];
  const walk = (command: Command, path: string[]): void => {
    for (const sub of command.commands) {
      out.push({ path: [...path, sub.name()], command: sub });
      walk(sub, [...path, sub.name()]);
    }
  };
  walk(buildProgram(bufferIo().io), []);
  return out;
}

function bufferIo(): { io: CliIo; stdout: () => string; stderr: () => string } {
  const out = new PassThrough();
  const err = new PassThrough();
  let o = '';
  let e = '';
  out.on('data', (c: Buffer) => (o += c.toString()));
  err.on('data', (c: Buffer) => (e += c.toString()));
  return { io: { stdout: out, stderr: err, stdin: Readable.from([]) }, stdout: () => o, stderr: () => e };
}

async function run(argv: readonly string[]): Promise<{ code: number; stderr: string }> {
  const b = bufferIo();
  const code = await runCli(argv, b.io);
  return { code, stderr: b.stderr() };
}

/** The files every scenario names, with contents (refused before reading, so any bytes do). */
const FILES: Readonly<Record<string, string>> = {
  rollouts: 'rollouts.jsonl',
  corpus: 'corpus.jsonl',
  vectorizer: 'vectorizer.json',
  kernel: 'kernel.json',
  kernel2: 'kernel2.json',
  calib: 'calib.jsonl',
  train: 'train-rows.jsonl',
  features: 'features.jsonl',
  spec: 'spec.json',
  treatment: 'treatment.jsonl',
  baseline: 'baseline.jsonl',
  replicates: 'replicates.jsonl',
  pilotT: 'pilot-t.jsonl',
  pilotB: 'pilot-b.jsonl',
  calibration: 'calibration.json',
  log: 'log.jsonl',
  log2: 'log2.jsonl',
  metrics: 'metrics.json',
  decision: 'decision.json',
  datadir: 'gsm8k',
  module: 'estimator.mjs',
};

/** Per command, argument lists that give its inputs ({name} is a file of FILES; {fresh} a file that does not exist). */
const SCENARIOS: Readonly<Record<string, readonly (readonly string[])[]>> = {
  advantages: [
    ['--estimator', 'kernel:{kernel}', '--input', '{rollouts}', '--corpus', '{corpus}'],
    ['--estimator', 'tfidf_kernel_loo_T0.1', '--input', '{rollouts}', '--vectorizer', '{vectorizer}', '--estimator-module', '{module}'],
    ['--estimator-json', '{"name": "kernel_file", "path": "{kernel}"}', '--input', '{rollouts}'],
  ],
  'tfidf fit': [['--corpus', '{corpus}', '--out', '{fresh}']],
  calibrate: [
    ['--input', '{calib}', '--corpus', '{corpus}', '--estimators', 'loo_batch_mean,kernel:{kernel}', '--reference', 'kernel:{kernel2}'],
    ['--input', '{calib}', '--vectorizer', '{vectorizer}', '--estimator-module', '{module}'],
  ],
  'tune-kernel': [['--input', '{calib}', '--train', '{train}', '--corpus', '{corpus}', '--features', '{features}', '--out', '{fresh}']],
  decide: [
    ['--spec', '{spec}', '--treatment', '{treatment}', '--baseline', '{baseline}'],
    ['--spec', '{spec}', '--replicates', '{replicates}'],
  ],
  plan: [
    ['--spec', '{spec}', '--pilot', '{pilotT},{pilotB}'],
    ['--spec', '{spec}', '--from-decision', '{decision}', '--seeds', '5'],
  ],
  'gate-metrics': [['--spec', '{spec}', '--calibration', '{calibration}', '--pilot-log', 'grpo_g8={log}', '--pilot-log', '{log2}']],
  gate: [['--spec', '{spec}', '--metrics', '{metrics}']],
  'study revise': [['--spec', '{spec}', '--kernel', '{kernel}', '--out', '{fresh}', '--data-dir', '{datadir}']],
};

function setUp(): { dir: string; fill: (args: readonly string[], fresh: string) => string[]; digest: () => string } {
  const dir = tempDir();
  for (const [name, file] of Object.entries(FILES)) {
    if (name === 'datadir') {
      mkdirSync(join(dir, file));
      writeFileSync(join(dir, file, 'train.jsonl'), '{"question": "q", "answer": "#### 1"}\n');
    } else writeFileSync(join(dir, file), `{"${name}": "the user's own ${name}, never to be overwritten"}\n`);
  }
  const fill = (args: readonly string[], fresh: string): string[] =>
    args.map((a) => a.replace(/\{(\w+)\}/g, (_, name: string) => (name === 'fresh' ? fresh : join(dir, FILES[name] as string))));
  // Every byte of every file under dir (names and contents), to show that nothing changed.
  const digest = (): string => {
    const hash = createHash('sha256');
    const walk = (d: string): void => {
      for (const entry of readdirSync(d, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
        const p = join(d, entry.name);
        hash.update(relative(dir, p));
        if (entry.isDirectory()) walk(p);
        else if (!entry.isSymbolicLink()) hash.update(readFileSync(p));
      }
    };
    walk(dir);
    return hash.digest('hex');
  };
  return { dir, fill, digest };
}

const roleOf = (command: Command, kind: 'input' | 'output'): Option[] => command.options.filter((o) => fileRole(o)?.kind === kind);

/** The files an input option's value names in `args`, through the option's own parser and role (as the guard reads them). */
function filesOf(option: Option, args: readonly string[]): string[] {
  const role = fileRole(option);
  if (role?.kind !== 'input') return [];
  let value: unknown;
  for (let i = 0; i < args.length; i++) {
    if (args[i] !== option.long) continue;
    const token = args[i + 1] as string;
    const parse = (option as unknown as { parseArg?: (v: string, previous: unknown) => unknown }).parseArg;
    value = parse === undefined ? token : parse(token, value ?? option.defaultValue);
  }
  return value === undefined ? [] : [...role.files(value)];
}

/** Spellings of the same file: as given, relative with `./` and a `..` detour, a symbolic link, a hard link. */
function spellings(file: string, dir: string): [string, string][] {
  const links = join(dir, 'links');
  mkdirSync(links, { recursive: true });
  const symlink = join(links, `sym-${basename(file)}`);
  const hardlink = join(links, `hard-${basename(file)}`);
  if (!existsSync(symlink)) symlinkSync(file, symlink);
  if (!existsSync(hardlink)) linkSync(file, hardlink);
  const rel = relative(process.cwd(), file);
  return [
    ['plain', file],
    ['./ and ..', `./${join(relative(process.cwd(), links), '..', rel.slice(relative(process.cwd(), dir).length + 1))}`],
    ['symbolic link', symlink],
    ['hard link', hardlink],
  ];
}

const guarded = commands().filter(({ command }) => roleOf(command, 'output').length > 0);

describe('every output option of every command, against every input', () => {
  it('finds the commands that write files in the definitions', () => {
    expect(guarded.map((c) => c.path.join(' ')).sort()).toEqual(['advantages', 'calibrate', 'decide', 'gate-metrics', 'plan', 'study revise', 'tfidf fit', 'tune-kernel']);
  });

  it('declares every file option of every command as an input or an output; every command that writes has --force', () => {
    for (const { path, command } of commands()) {
      for (const option of command.options) {
        // A folder (study --out, data --dir) is not a file option.
        if (/<(file|files|arm=file)>/.test(option.flags)) expect([path.join(' '), option.long, fileRole(option)?.kind]).toEqual([path.join(' '), option.long, expect.any(String)]);
      }
      if (roleOf(command, 'output').length > 0) expect(command.options.map((o) => o.long)).toContain('--force');
    }
  });

  for (const { path, command } of guarded) {
    const name = path.join(' ');
    const scenarios = SCENARIOS[name] ?? [];
    const inputs = roleOf(command, 'input');
    it(`${name}: a scenario gives each input (${inputs.map((o) => o.long).join(', ')})`, () => {
      for (const input of inputs) expect([input.long, scenarios.some((s) => s.includes(input.long as string))]).toEqual([input.long, true]);
    });
    for (const output of roleOf(command, 'output')) {
      for (const input of inputs) {
        it(`${name} ${output.long} at ${input.long}: exit 2, nothing changed, with or without --force`, async () => {
          const { dir, fill, digest } = setUp();
          const scenario = fill(scenarios.find((s) => s.includes(input.long as string)) as readonly string[], join(dir, 'fresh.out'));
          const files = filesOf(input, scenario);
          expect(files.length).toBeGreaterThan(0);
          for (const file of files) {
            for (const [spelling, target] of spellings(file, dir)) {
              const before = digest();
              const args = [...scenario];
              const at = args.indexOf(output.long as string);
              if (at >= 0) args[at + 1] = target;
              else args.push(output.long as string, target);
              for (const force of [[], ['--force']]) {
                const result = await run([...path, ...args, ...force]);
                expect([spelling, force, result.code, result.stderr]).toEqual([
                  spelling,
                  force,
                  2,
                  expect.stringMatching(new RegExp(`^rl-adv: ${output.long} .* is the ${input.long} file \\(.*\\); it would be overwritten`)),
                ]);
                expect(digest()).toBe(before);
              }
            }
          }
        });
      }
      it(`${name} ${output.long} at an existing unrelated file: exit 2 and kept, unless --force`, async () => {
        const { dir, fill, digest } = setUp();
        const scenario = fill(scenarios[0] as readonly string[], join(dir, 'fresh.out'));
        const existing = join(dir, 'unrelated.txt');
        writeFileSync(existing, 'somebody else\n');
        const before = digest();
        const args = [...scenario];
        const at = args.indexOf(output.long as string);
        if (at >= 0) args[at + 1] = existing;
        else args.push(output.long as string, existing);
        const result = await run([...path, ...args]);
        expect([result.code, result.stderr]).toEqual([2, expect.stringMatching(new RegExp(`^rl-adv: ${output.long} .*unrelated\\.txt exists; it is kept: give another file, or --force to replace it\\n`))]);
        expect(digest()).toBe(before);
      });
    }
    const outputs = roleOf(command, 'output');
    if (outputs.length > 1) {
      it(`${name}: two outputs at one file are refused`, async () => {
        const { dir, fill, digest } = setUp();
        const args = fill(scenarios[0] as readonly string[], join(dir, 'fresh.out')).filter((_, i, a) => !outputs.some((o) => o.long === a[i] || o.long === a[i - 1]));
        const before = digest();
        const same = join(dir, 'both.out');
        const result = await run([...path, ...args, ...outputs.flatMap((o) => [o.long as string, same]), '--force']);
        expect([result.code, result.stderr]).toEqual([2, expect.stringMatching(/ is also --\w+ .*: give each output its own file\n/)]);
        expect(digest()).toBe(before);
        expect(existsSync(same)).toBe(false);
      });
    }
  }
});

describe('the guard itself', () => {
  it('counts the shipped spec as an input of a command given no --spec', async () => {
    const program = buildProgram(bufferIo().io);
    let seen: ReturnType<typeof declaredFiles> | undefined;
    program.hook('preAction', (_p, command) => {
      seen = declaredFiles(command);
      throw new Error('stop');
    });
    const { dir } = setUp();
    await expect(program.parseAsync(['plan', '--html', join(dir, 'p.html')], { from: 'user' })).rejects.toThrow('stop');
    expect(seen?.inputs).toEqual([{ flag: '--spec', file: shippedSpecPath() }]);
    expect(seen?.outputs).toEqual([{ flag: '--html', file: join(dir, 'p.html') }]);
  });

  it('standard input and output are no files: advantages - to - passes the guard', async () => {
    const b = bufferIo();
    const io = { ...b.io, stdin: Readable.from(['{"reward": 1, "group": "a"}\n{"reward": 0, "group": "a"}\n']) };
    expect(await runCli(['advantages', '--estimator', 'group_mean', '--input', '-', '--output', '-'], io)).toBe(0);
    expect(b.stdout()).toMatch(/"advantage":/);
  });

  it('a written output leaves no temporary file, and --force replaces an existing one whole', async () => {
    const { dir } = setUp();
    const rows = join(dir, 'r.jsonl');
    writeFileSync(rows, '{"reward": 1, "group": "a"}\n{"reward": 0, "group": "a"}\n');
    const out = join(dir, 'adv.jsonl');
    writeFileSync(out, 'old\n');
    expect((await run(['advantages', '--estimator', 'group_mean', '--input', rows, '--output', out, '--force'])).code).toBe(0);
    expect(readFileSync(out, 'utf8')).toMatch(/^\{"advantage":0\.5,/);
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });
});
