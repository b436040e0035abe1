// The Ray executor's checks before any job, on the bridge's answers (the cluster itself: python/tests/study/
// test_ray_bridge.py and test_ray_study.py): resources some alive node has, what a job's program needs on every node,
// and the probe's answers as one line naming each node.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { RlAdvantagesError } from '../../../src/errors.js';
import { checkResources, nodeName, programChecks, throwProblems, type RayNode } from '../../../src/study/executor/ray-probe.js';
import type { JobDescription } from '../../../src/study/executor/types.js';

const NODES: RayNode[] = [
  { node_id: 'aaaaaaaa11111111', ip: '10.0.0.1', resources: { CPU: 8, GPU: 1 } },
  { node_id: 'bbbbbbbb22222222', ip: '10.0.0.2', resources: { CPU: 2, GPU: 1 } },
];

function caught(f: () => void): RlAdvantagesError {
  try {
    f();
  } catch (error) {
    return error as RlAdvantagesError;
  }
  throw new Error('no error');
}

describe('checkResources', () => {
  it('accepts jobs some node fits', () => {
    expect(() => checkResources(NODES, [{ id: 'train/a', resources: { gpus: 1, cpus: 8 } }], 'h:1')).not.toThrow();
  });

  it('names --job-gpus when no node has the GPUs, with the largest node', () => {
    const error = caught(() => checkResources(NODES, [{ id: 'train/full/grpo/seed-0', resources: { gpus: 4, cpus: 1 } }], '10.0.0.1:6379'));
    expect(error.field).toBe('job-gpus');
    expect(error.message).toBe(
      '--job-gpus: job train/full/grpo/seed-0 needs 4 GPU(s) on one node but no node of the Ray cluster at 10.0.0.1:6379 has them (2 alive node(s), the largest 1 GPU(s) and 8 CPU(s)): lower --job-gpus or add a node that has them',
    );
  });

  it('names --job-cpus when the GPUs exist but not with the CPUs on one node', () => {
    const error = caught(() => checkResources(NODES, [{ id: 'eval/a', resources: { gpus: 1, cpus: 9 } }], 'h:1'));
    expect(error.field).toBe('job-cpus');
    expect(error.message.startsWith('--job-cpus: job eval/a needs 9 CPU(s) on one node')).toBe(true);
  });
});

describe('programChecks', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'ray-probe-'));
  const run = path.join(dir, 'run');
  const spec = path.join(dir, 'spec.json');
  writeFileSync(spec, '{}');
  const job = (argv: string[]): JobDescription => ({
    id: 'train/a',
    kind: 'train',
    resources: { gpus: 0, cpus: 1 },
    reads: [],
    writes: [],
    command: { argv, env: { PYTHONPATH: '/p' }, cwd: dir },
    logFile: path.join(run, 'logs', 'a.log'),
  });

  it('runs the TRL drivers own probe with the job spec and model, and checks the paths outside the run folder', () => {
    const python = process.execPath; // any existing absolute program
    const checks = programChecks(job([python, '-m', 'rl_advantages.study', 'train', '--spec', spec, '--run-dir', run, '--model', '/nonexistent/m']), run);
    expect(checks.paths).toEqual([python, dir, spec].sort());
    expect(checks.commands).toEqual([
      {
        what: `the TRL drivers (${path.basename(python)} -m rl_advantages.study)`,
        argv: [python, '-m', 'rl_advantages.study', 'probe', '--spec', spec, '--run-dir', '.', '--data-dir', '.', '--model', '/nonexistent/m'],
        env: { PYTHONPATH: '/p' },
        cwd: dir,
        json: true,
      },
    ]);
  });

  it('imports another -m module, and runs node itself for a node script', () => {
    expect(programChecks(job(['/usr/bin/python3', '-m', 'foo.bar', 'x']), run).commands[0]?.argv).toEqual(['/usr/bin/python3', '-c', 'import foo.bar']);
    expect(programChecks(job(['/usr/bin/node', '/x/cli.js', 'study', 'job']), run).commands[0]?.argv).toEqual(['/usr/bin/node', '-e', '']);
  });
});

describe('throwProblems', () => {
  it('is silent when every node is fit, one line naming each unfit node otherwise', () => {
    expect(() => throwProblems([{ node_id: 'aaaaaaaa1', ip: '10.0.0.1', problems: [] }])).not.toThrow();
    const error = caught(() =>
      throwProblems([
        { node_id: 'aaaaaaaa1', ip: '10.0.0.1', problems: [] },
        { node_id: 'bbbbbbbb2', ip: '10.0.0.2', problems: ["the TRL drivers (python -m rl_advantages.study): ModuleNotFoundError: No module named 'rl_advantages'"] },
      ]),
    );
    expect(error.code).toBe('ray_node_unfit');
    expect(error.message.split('\n')).toHaveLength(1);
    expect(error.message).toMatch(/^--executor ray: node 10\.0\.0\.2\/bbbbbbbb: the TRL drivers .*No module named 'rl_advantages' \(install the package/);
    expect(nodeName({ ip: '10.0.0.2', node_id: 'bbbbbbbb2' })).toBe('10.0.0.2/bbbbbbbb');
  });
});
