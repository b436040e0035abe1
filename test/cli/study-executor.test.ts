// rl-adv study's executor flags through the built CLI: --dry-run prints the job graph and touches nothing, a bad
// executor flag exits 2 naming it, and the sim's job command (rl-adv study job, each job its own process, as on a
// cluster) gives byte-identical artifacts to the in-process run, with one ledger line per job.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runStudyWithReports } from '../../src/report/write.js';
import { readLedger } from '../../src/study/executor/ledger.js';
import { createSimBackend } from '../../src/study/sim/backend.js';
import { SIM_CLUSTERED_DEFAULTS } from '../../src/study/sim/world.js';
import { repoRoot, specPath } from '../helpers/paths.js';

const cli = path.join(repoRoot, 'dist', 'cli.js');
const temp = (): string => mkdtempSync(path.join(tmpdir(), 'rl-adv-exec-cli-'));
const arithAblation = path.join(repoRoot, 'specs', 'arith-ablation.json');

function study(args: readonly string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [cli, 'study', ...args], { encoding: 'utf8', env: process.env });
  if (r.error) throw r.error;
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Every file under `dir`, relative, sorted. */
function files(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const full = path.join(d, e.name);
      if (e.isDirectory()) walk(full);
      else out.push(path.relative(dir, full));
    }
  };
  walk(dir);
  return out.sort();
}

beforeAll(() => {
  if (!existsSync(cli)) throw new Error(`${cli} is missing: build first (npm run build, or npm test)`);
});

describe('rl-adv study --dry-run', () => {
  it('prints every job with its kind, arm, seed, resources and files, and touches nothing', () => {
    const out = path.join(temp(), 'run');
    const r = study(['--spec', arithAblation, '--out', out, '--steps', '2', '--dry-run']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(existsSync(out)).toBe(false);
    const spec = JSON.parse(readFileSync(arithAblation, 'utf8')) as { arms: { name: string }[]; decision_rule: { seeds: number[] } };
    const arms = spec.arms.map((a) => a.name);
    const seeds = spec.decision_rule.seeds;
    // preflight, calibration, the pilot (init eval, a train and an eval per arm), arms x seeds trained, init eval, arms x seeds evaluated.
    const total = 2 + 1 + 2 * arms.length + 2 * arms.length * seeds.length + 1;
    expect(r.stdout.split('\n')[0]).toBe(`${total} jobs`);
    const arm = arms[0] as string;
    const seed = seeds[1] as number;
    expect(r.stdout).toContain(`\ntrain/full/${arm}/seed-${seed}  kind train, arm ${arm}, seed ${seed}; 0 GPU, 1 CPU\n`);
    expect(r.stdout).toContain(`  writes ${path.join(out, 'seeds', String(seed), 'arms', arm)}\n`);
    expect(r.stdout).toContain(`\neval/full/${arm}/seed-${seed}  kind eval, arm ${arm}, seed ${seed}; 0 GPU, 1 CPU\n`);
    expect(r.stdout).toContain(`  writes ${path.join(out, 'seeds', String(seed), 'eval', `${arm}.jsonl`)}\n`);
  });

  it('shows --job-gpus and --job-cpus on every job', () => {
    const r = study(['--spec', arithAblation, '--out', path.join(temp(), 'run'), '--dry-run', '--job-gpus', '2', '--job-cpus', '4']);
    expect(r.code).toBe(0);
    const jobLines = r.stdout.split('\n').filter((l) => / {2}kind /.test(l));
    expect(jobLines.length).toBeGreaterThan(10);
    for (const line of jobLines) expect(line).toMatch(/; 2 GPU, 4 CPU$/);
  });
});

describe('rl-adv study: bad executor flags', () => {
  const cases: [string[], RegExp][] = [
    [['--executor', 'slurm'], /--executor <name>' argument 'slurm' is invalid\. Allowed choices are local, ray/],
    [['--gpus', '0,0'], /--gpus <ids>' argument '0,0' is invalid\. must be a comma-separated list of distinct GPU ids/],
    [['--gpus', '0,,1'], /--gpus <ids>' argument '0,,1' is invalid/],
    [['--job-retries', '-1'], /--job-retries <n>' argument '-1' is invalid\. must be an integer >= 0/],
    [['--job-gpus', 'one'], /--job-gpus <n>' argument 'one' is invalid/],
    [['--job-cpus', '0'], /--job-cpus <n>' argument '0' is invalid\. must be an integer >= 1/],
    [['--executor', 'ray', '--gpus', '0,1'], /--gpus applies to --executor local only/],
    [['--ray-address', '127.0.0.1:6379'], /--ray-address applies to --executor ray only/],
    // Checked over the whole job graph before the folder is touched.
    [['--gpus', '0', '--job-gpus', '2'], /--job-gpus: job preflight needs 2 GPUs but --gpus lists 1 \(0\)/],
  ];
  for (const [flags, message] of cases) {
    it(`${flags.join(' ')}: exit 2 naming the flag, nothing written`, () => {
      const out = path.join(temp(), 'run');
      const r = study(['--spec', arithAblation, '--out', out, '--steps', '2', ...flags]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stderr.split('\n')[0]).toMatch(message);
      expect(existsSync(out)).toBe(false);
    });
  }
});

describe("the sim's job command (rl-adv study job)", () => {
  it('each job its own process gives the bytes of the in-process run, one ledger line per job', async () => {
    const base = { specPath, questions: 'clustered' as const, steps: 2, evalLimit: 10, calibrationBatches: 100, calibrationBootstrap: 20, jobs: 2 };
    const backend = () => createSimBackend({ ...SIM_CLUSTERED_DEFAULTS, coupling: 0.9 });
    const a = path.join(temp(), 'in-process');
    const b = path.join(temp(), 'process');
    const first = await runStudyWithReports({ ...base, dir: a, backend: backend() });
    const second = await runStudyWithReports({ ...base, dir: b, backend: backend(), simJobs: 'process', cliPath: cli });
    expect(second.exitCode).toBe(first.exitCode);
    // The ledger and the jobs' logs are the job processes' own; every artifact is the same.
    const compared = (dir: string): string[] => files(dir).filter((f) => f !== 'jobs.jsonl' && !f.startsWith('logs'));
    expect(compared(b)).toEqual(files(a));
    const noWall = (dir: string): unknown => {
      const s = JSON.parse(readFileSync(path.join(dir, 'summary.json'), 'utf8')) as { phases: Record<string, { wall_seconds?: number }> };
      for (const p of Object.values(s.phases)) delete p.wall_seconds;
      return s;
    };
    expect(noWall(b)).toEqual(noWall(a));
    for (const f of files(a)) {
      if (['summary.json', 'report.md', 'report.html'].includes(f)) continue;
      expect(readFileSync(path.join(b, f)).equals(readFileSync(path.join(a, f))), f).toBe(true);
    }
    const ledger = readLedger(b);
    expect(ledger.every((l) => l.outcome === 'done' && l.attempt === 1 && l.executor === 'local')).toBe(true);
    expect(ledger.map((l) => l.job).sort()).toEqual(
      ['preflight', 'calibration', 'eval/pilot/init', 'eval/full/init', ...['grpo_g8', 'gs1_tfidf_g1'].flatMap((arm) => [`train/pilot/${arm}`, `eval/pilot/${arm}`, `train/full/${arm}`, `eval/full/${arm}`])].sort(),
    );
    expect(existsSync(path.join(a, 'jobs.jsonl'))).toBe(false);
  });
});
