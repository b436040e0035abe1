// SLOW-ISH (about 15-30 s): the package as a user installs it. `npm pack`s the repository (dist must be built:
// npm test builds first), extracts the tarball into node_modules of an empty project whose dependencies are
// links to this repository's node_modules (so it runs offline), then compiles ESM, CommonJS and TypeScript
// consumers with tsc, WITHOUT @types/node and WITHOUT skipLibCheck, and runs them and the packed CLI with node.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/paths.js';

const manifest = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  files: string[];
};
const tsc = path.join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc');
/** The subpath exports besides the root (package.json "exports"). */
const SUBPATHS = ['calibration', 'stats', 'tuning', 'study', 'report', 'data'] as const;
let project: string;
let packed: string[];

function node(args: readonly string[], env: NodeJS.ProcessEnv = {}): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, args, { cwd: project, encoding: 'utf8', env: { ...process.env, ...env } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

beforeAll(() => {
  if (!existsSync(path.join(repoRoot, 'dist', 'index.d.ts'))) throw new Error('dist is missing: build first (npm run build, or npm test)');
  project = mkdtempSync(path.join(tmpdir(), 'rl-adv-consumer-'));
  const out = execFileSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', project], { cwd: repoRoot, encoding: 'utf8' });
  const info = (JSON.parse(out) as { filename: string; files: { path: string }[] }[])[0];
  if (info === undefined) throw new Error(`npm pack printed no package: ${out}`);
  packed = info.files.map((f) => f.path);
  const target = path.join(project, 'node_modules', 'rl-advantages');
  mkdirSync(target, { recursive: true });
  execFileSync('tar', ['-xzf', path.join(project, info.filename), '-C', target, '--strip-components=1']);
  // The runtime dependencies, offline: links to the copies this repository installed.
  for (const dep of Object.keys(manifest.dependencies)) {
    const link = path.join(project, 'node_modules', dep);
    mkdirSync(path.dirname(link), { recursive: true });
    symlinkSync(path.join(repoRoot, 'node_modules', dep), link, 'dir');
  }
  writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  writeFileSync(
    path.join(project, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: { strict: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', lib: ['es2022'], types: [], skipLibCheck: false, outDir: 'out' },
      include: ['*.ts', '*.mts', '*.cts'],
    }),
  );
});

afterAll(() => {
  if (project) rmSync(project, { recursive: true, force: true });
});

describe('the packed tarball', () => {
  it('holds dist, the shipped spec, the formula reference and the Tinker drivers, but no tests or sources', () => {
    expect(packed).toEqual(expect.arrayContaining(['dist/index.js', 'dist/index.cjs', 'dist/index.d.ts', 'dist/index.d.cts', 'dist/cli.js', 'specs/gs1-vs-grpo.json', 'docs/method.md']));
    for (const sub of SUBPATHS) expect(packed).toEqual(expect.arrayContaining(['.js', '.cjs', '.d.ts', '.d.cts'].map((ext) => `dist/${sub}${ext}`)));
    expect(packed).toEqual(expect.arrayContaining(['examples/tinker-cookbook/run_arm.py', 'examples/tinker-cookbook/rl_adv_examples/common.py']));
    expect(packed.filter((f) => /^(src|test|bench)\/|\/tests\/|__pycache__/.test(f))).toEqual([]);
  });

  it('compiles ESM, CommonJS and TypeScript consumers with tsc, without @types/node or skipLibCheck', () => {
    writeFileSync(
      path.join(project, 'esm.mts'),
      [
        "import { createEstimator, looBatchMean, TfidfVectorizer, type EstimatorName } from 'rl-advantages';",
        'declare const console: { log(text: string): void }; // no @types/node, no DOM',
        "const prompts = ['tom has apples', 'ann has pears', 'a car travels', 'tom buys pears'];",
        'const vectorizer = TfidfVectorizer.fit(prompts);',
        'const batch = { rewards: [1, 0, 0, 1], prompts };',
        "const bySpec = createEstimator({ name: 'tfidf_kernel_loo', temperature: 0.1 }, { vectorizer }).compute(batch).advantages;",
        "const byName = createEstimator('tfidf_kernel_loo_T0.1', { vectorizer }).compute(batch).advantages;",
        "const leadingZero: string = 'tfidf_kernel_loo_T01';",
        "let refused = '';",
        'try { createEstimator(leadingZero); } catch (error) { refused = (error as Error).message; }',
        "const name: EstimatorName = 'tfidf_kernel_loo_T0.1';",
        "const fromSpec: string = 'grpo'; // a string is checked at run time",
        "let message = '';",
        'try { createEstimator(fromSpec); } catch (error) { message = (error as Error).message; }',
        "const b = looBatchMean({ rewards: [1, 0, 0, 1] }).baselines;",
        "export const result = { name, message, b: Array.from(b), n: createEstimator('group_mean').name, same: bySpec.length === 4 && Array.from(bySpec).every((a, i) => Object.is(a, byName[i])), refused };",
        'console.log(JSON.stringify(result));',
      ].join('\n'),
    );
    writeFileSync(
      path.join(project, 'cjs.cts'),
      ["import rl = require('rl-advantages');", 'declare const console: { log(text: string): void };', 'console.log(JSON.stringify(Array.from(rl.looBatchMean({ rewards: [1, 0, 0, 1] }).advantages)));'].join('\n'),
    );
    writeFileSync(
      path.join(project, 'types.ts'),
      [
        "import { createEstimator, type EstimatorName } from 'rl-advantages';",
        "import { resolveGsm8kDir } from 'rl-advantages/data';",
        '// @ts-expect-error an unknown literal name is a compile error',
        "createEstimator('grpo');",
        '// @ts-expect-error tfidf_kernel_loo needs its _T<T> suffix',
        "createEstimator('tfidf_kernel_loo');",
        "export const ok: EstimatorName[] = ['group_mean', 'kernel_loo_T1', 'tfidf_kernel_loo_T0.1'];",
        'export const resolve: (flag?: string) => string = resolveGsm8kDir;',
      ].join('\n'),
    );
    const r = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: project, encoding: 'utf8' });
    expect(r.stdout + r.stderr).toBe('');
    expect(r.status).toBe(0);

    const esm = node(['out/esm.mjs']);
    expect(esm.stderr).toBe('');
    const result = JSON.parse(esm.stdout) as { name: string; message: string; b: number[]; n: string; same: boolean; refused: string };
    expect(result.message).toMatch(/^unknown estimator "grpo" \(did you mean "gdpo"\?\); known estimators: group_mean, /);
    expect(result).toMatchObject({ name: 'tfidf_kernel_loo_T0.1', b: [1 / 3, 2 / 3, 2 / 3, 1 / 3], n: 'group_mean', same: true });
    // The structured spec gives the name form's advantages bit for bit; a leading zero is refused with the canonical spelling.
    expect(result.refused).toMatch(/tfidf_kernel_loo_T0\.1/);
    const cjs = node(['out/cjs.cjs']);
    expect(cjs.stderr).toBe('');
    expect(JSON.parse(cjs.stdout)).toEqual([1 - 1 / 3, 0 - 2 / 3, 0 - 2 / 3, 1 - 1 / 3]); // r_i - b_i, as computed in float64
  });

  it('every subpath loads in ESM and CommonJS with its types; the root loads no chart, command-line or study code', () => {
    writeFileSync(
      path.join(project, 'subpaths.mts'),
      [
        "import { RlAdvantagesError, createEstimator } from 'rl-advantages';",
        "import { calibrateBeff } from 'rl-advantages/calibration';",
        "import { parseDecisionRule, pairedHoeffding } from 'rl-advantages/stats';",
        "import { tuneKernel } from 'rl-advantages/tuning';",
        "import { runStudy, loadStudySpec } from 'rl-advantages/study';",
        "import { writeStudyReports, runStudyWithReports } from 'rl-advantages/report';",
        "import { loadGsm8k, gsm8kReward } from 'rl-advantages/data';",
        'declare const console: { log(text: string): void };',
        'let sameClass = false;',
        'try { parseDecisionRule({}); } catch (error) { sameClass = error instanceof RlAdvantagesError; }',
        'const kinds = [createEstimator, calibrateBeff, pairedHoeffding, tuneKernel, runStudy, loadStudySpec, writeStudyReports, runStudyWithReports, loadGsm8k, gsm8kReward].map((f) => typeof f);',
        'console.log(JSON.stringify({ sameClass, kinds }));',
      ].join('\n'),
    );
    writeFileSync(
      path.join(project, 'root-only.cts'),
      [
        "import rl = require('rl-advantages');",
        'declare const console: { log(text: string): void };',
        'declare const require: { cache: Record<string, unknown>; (id: string): unknown };',
        "const fs = require('fs') as { readFileSync(file: string, encoding: string): string };",
        '// Every file require() loaded: no chart or command-line package, and no dist file holding study, report or CLI code.',
        'const loaded = Object.keys(require.cache).filter((f) =>',
        "  /node_modules[\\\\/](vega|vega-lite|commander|cli-progress)[\\\\/]/.test(f) ||",
        "  (/rl-advantages[\\\\/]dist[\\\\/]/.test(f) && /function (runStudy|renderStudyHtml|buildProgram|renderChartSvg|calibrateBeff)\\d*\\(/.test(fs.readFileSync(f, 'utf8'))));",
        "console.log(JSON.stringify({ loaded, files: Object.keys(require.cache).length > 1, estimator: rl.createEstimator('group_mean').name }));",
      ].join('\n'),
    );
    writeFileSync(
      path.join(project, 'subpaths-cjs.cts'),
      [
        "import stats = require('rl-advantages/stats');",
        "import study = require('rl-advantages/study');",
        "import rl = require('rl-advantages');",
        'declare const console: { log(text: string): void };',
        'let sameClass = false;',
        'try { stats.parseDecisionRule({}); } catch (error) { sameClass = error instanceof rl.RlAdvantagesError; }',
        'console.log(JSON.stringify({ sameClass, kinds: [typeof study.runStudy, typeof stats.decide] }));',
      ].join('\n'),
    );
    const r = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: project, encoding: 'utf8' });
    expect(r.stdout + r.stderr).toBe('');
    const esm = node(['out/subpaths.mjs']);
    expect(esm.stderr).toBe('');
    expect(JSON.parse(esm.stdout)).toEqual({ sameClass: true, kinds: Array(10).fill('function') });
    const cjs = node(['out/subpaths-cjs.cjs']);
    expect(cjs.stderr).toBe('');
    expect(JSON.parse(cjs.stdout)).toEqual({ sameClass: true, kinds: ['function', 'function'] });
    const root = node(['out/root-only.cjs']);
    expect(root.stderr).toBe('');
    expect(JSON.parse(root.stdout)).toEqual({ loaded: [], files: true, estimator: 'group_mean' });
  });

  it('the installed CLI prints its shipped spec and finds the Tinker drivers beside dist', () => {
    const cli = path.join('node_modules', 'rl-advantages', 'dist', 'cli.js');
    const where = node([cli, 'spec', 'print', '--path']);
    expect(where.stdout.trim()).toBe(path.join(project, 'node_modules', 'rl-advantages', 'specs', 'gs1-vs-grpo.json'));
    expect(node([cli, 'spec', 'print']).stdout).toBe(readFileSync(path.join(repoRoot, 'specs', 'gs1-vs-grpo.json'), 'utf8'));
    // The Tinker backend looks for its drivers in <package>/examples/tinker-cookbook: with them present it gets
    // as far as asking for the API key.
    const tinker = node([cli, 'study', '--backend', 'tinker', '--out', 'runs/t', '--data-dir', project], { TINKER_API_KEY: '' });
    expect(tinker.stderr).toMatch(/TINKER_API_KEY is not set/);
    expect(tinker.stderr).not.toMatch(/not found in/);
  });
});
