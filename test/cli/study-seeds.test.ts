// `rl-adv study` with several seeds through the CLI: --jobs refused below 1, a line per job, a kill inside one
// (arm x seed) job and --resume with another --jobs giving the artifacts of an uninterrupted run.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot, specPath } from '../helpers/paths.js';

const cli = path.join(repoRoot, 'dist', 'cli.js');
const temp = (): string => mkdtempSync(path.join(tmpdir(), 'rl-adv-study-seeds-'));

function study(args: readonly string[], env: NodeJS.ProcessEnv = {}): { code: number | null; signal: NodeJS.Signals | null; stderr: string; stdout: string } {
  const r = spawnSync(process.execPath, [cli, 'study', ...args], { encoding: 'utf8', env: { ...process.env, ...env } });
  return { code: r.status, signal: r.signal, stderr: r.stderr, stdout: r.stdout };
}

function seededSpec(seeds: readonly number[]): string {
  const spec = JSON.parse(readFileSync(specPath, 'utf8')) as { decision_rule: Record<string, unknown> };
  spec.decision_rule.seeds = seeds;
  const file = path.join(temp(), 'spec.json');
  writeFileSync(file, JSON.stringify(spec, null, 2));
  return file;
}

/** Every artifact file but summary.json and the reports (their wall times differ), relative and sorted. */
function artifacts(dir: string): string[] {
  return (readdirSync(dir, { recursive: true }) as string[])
    .filter((f) => !['summary.json', 'report.md', 'report.html'].includes(f) && !f.startsWith('logs'))
    .filter((f) => /\.(json|jsonl)$/.test(f))
    .sort();
}

describe('rl-adv study with decision_rule.seeds', () => {
  const spec = seededSpec([0, 1]);
  const args = (out: string, jobs: string): string[] => [
    '--spec', spec, '--out', out, '--sim-questions', 'clustered', '--sim-coupling', '0.9', '--steps', '10', '--eval-limit', '100', '--calibration-batches', '2000', '--jobs', jobs,
  ];

  it('--jobs 0 or not an integer: exit 2 naming --jobs, and no run folder', () => {
    for (const jobs of ['0', '1.5', 'two']) {
      const out = path.join(temp(), 'run');
      const r = study(args(out, jobs));
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/--jobs/);
      expect(readdirSync(path.dirname(out))).toEqual([]);
    }
  });

  it('killed in one (arm x seed) job and resumed with another --jobs: the same artifacts as an uninterrupted run; a line per job', () => {
    const whole = path.join(temp(), 'whole');
    const run = study(args(whole, '2'));
    expect(run.code).toBe(0);
    for (const line of ['arms: gs1_tfidf_g1 seed 1: started', 'arms: gs1_tfidf_g1 seed 1: done', 'eval: grpo_g8 seed 0: done']) expect(run.stderr).toContain(`rl-adv study: ${line}`);
    expect(run.stdout).toMatch(/grpo_g8: change from the starting policy -?\d/);

    const cut = path.join(temp(), 'cut');
    // --jobs 1 runs seed 0's arms first: the kill lands in seed 0's gs1 arm, step 4.
    const killed = study(args(cut, '1'), { RL_ADV_SIM_KILL_AT: 'gs1_tfidf_g1:4' });
    expect(killed.signal).toBe('SIGKILL');
    const grpoDone = JSON.parse(readFileSync(path.join(cut, 'seeds', '0', 'arms', 'grpo_g8', 'state.json'), 'utf8')) as { done: boolean };
    expect(grpoDone.done).toBe(true);

    const resumed = study([...args(cut, '2'), '--resume']);
    expect(resumed.code).toBe(0);
    expect(artifacts(cut)).toEqual(artifacts(whole));
    for (const f of artifacts(whole)) expect(readFileSync(path.join(cut, f)).equals(readFileSync(path.join(whole, f))), f).toBe(true);
    const numbers = (dir: string): unknown => {
      const s = JSON.parse(readFileSync(path.join(dir, 'summary.json'), 'utf8')) as Record<string, unknown>;
      return [s.replicates, s.decision, s.learning, s.start];
    };
    expect(numbers(cut)).toEqual(numbers(whole));
    // The report gives the power of the design the run used (2 seeds), with the one-seed paired power labelled as that.
    const summary = JSON.parse(readFileSync(path.join(whole, 'summary.json'), 'utf8')) as { seed_design_power?: { seeds?: number; assumptions?: string } };
    expect(summary.seed_design_power).toMatchObject({ seeds: 2, assumptions: expect.stringContaining('run-to-run SD 0.02 (assumed)') });
    const report = readFileSync(path.join(whole, 'report.md'), 'utf8');
    expect(report).toContain('What this design can conclude (2 seeds)');
    expect(report).toContain("One seed's paired decision only");
  });
});
