// What the Ray executor checks before a job runs on the cluster (issue 40): resources some alive node has for each
// job, and what a job's program needs on every node (its files at the same paths, the drivers importable), as the
// bridge's probe task checks it on each node. Pure functions over the bridge's answers, so they are tested without Ray.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { RlAdvantagesError } from '../../errors.js';
import type { JobDescription, JobResources } from './types.js';

/** An alive node as the bridge reports it. */
export interface RayNode {
  readonly node_id: string;
  readonly ip: string;
  readonly resources: Readonly<Record<string, number>>;
}

/** A command a node must run with exit 0, and how to read its failure. */
export interface ProbeCommand {
  /** What it shows, for the message (e.g. `the TRL drivers (python -m rl_advantages.study)`). */
  readonly what: string;
  readonly argv: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string;
  /** Its last stdout line is the drivers' probe's `{"missing": [...]}`. */
  readonly json?: boolean;
}

/** What a job's program needs on every node. */
export interface ProgramChecks {
  readonly paths: readonly string[];
  readonly commands: readonly ProbeCommand[];
}

/** How a node is named in the ledger and messages: its address and the start of its Ray node id. */
export function nodeName(node: { readonly ip: string; readonly node_id: string }): string {
  return `${node.ip}/${node.node_id.slice(0, 8)}`;
}

/**
 * The first job no alive node has the resources for, as an error naming the resource and the flag that sets it.
 *
 * @throws {RlAdvantagesError} `bad_option` (field `job-gpus` or `job-cpus`).
 * @example
 * ```ts
 * checkResources([{ node_id: 'ab', ip: '10.0.0.2', resources: { CPU: 8, GPU: 1 } }], jobs, '10.0.0.1:6379');
 * ```
 */
export function checkResources(nodes: readonly RayNode[], jobs: readonly { readonly id: string; readonly resources: JobResources }[], address: string): void {
  const fits = (need: JobResources, node: RayNode): boolean => (node.resources.GPU ?? 0) >= need.gpus && (node.resources.CPU ?? 0) >= need.cpus;
  const largest = (key: 'GPU' | 'CPU'): number => Math.max(0, ...nodes.map((n) => n.resources[key] ?? 0));
  for (const job of jobs) {
    if (nodes.some((node) => fits(job.resources, node))) continue;
    const { gpus, cpus } = job.resources;
    const gpuShort = !nodes.some((n) => (n.resources.GPU ?? 0) >= gpus);
    const flag = gpuShort ? 'job-gpus' : 'job-cpus';
    const what = gpuShort ? `${gpus} GPU(s)` : `${cpus} CPU(s)`;
    throw new RlAdvantagesError(
      `--${flag}: job ${job.id} needs ${what} on one node but no node of the Ray cluster at ${address} has them (${nodes.length} alive node(s), the largest ${largest('GPU')} GPU(s) and ${largest('CPU')} CPU(s)): lower --${flag} or add a node that has them`,
      { code: 'bad_option', field: flag },
    );
  }
}

/** Whether `file` lies inside `folder`. */
function inside(file: string, folder: string): boolean {
  const rel = path.relative(folder, file);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** The value after `flag` in argv. */
function flagValue(argv: readonly string[], flag: string): string | undefined {
  const i = argv.indexOf(flag);
  return i >= 0 ? argv[i + 1] : undefined;
}

/**
 * What a job's program needs on every node: its program, the absolute paths of its arguments and its working folder
 * that exist here outside the run folder (the run folder's own files are written by earlier jobs), and a command
 * that must run: the TRL drivers' own probe for `-m rl_advantages.study` (their packages, the model), an import for
 * another `-m` module, the interpreter itself otherwise.
 *
 * @example
 * ```ts
 * programChecks(job, '/shared/runs/a'); // { paths: ['/opt/venv/bin/python', '/shared/specs/x.json'], commands: [...] }
 * ```
 */
export function programChecks(job: JobDescription, runDir: string): ProgramChecks {
  const { argv, env, cwd } = job.command;
  const program = argv[0] ?? '';
  const paths = new Set<string>();
  for (const arg of [...argv, cwd]) {
    if (path.isAbsolute(arg) && !inside(arg, runDir) && existsSync(arg)) paths.add(arg);
  }
  const commands: ProbeCommand[] = [];
  const where = inside(cwd, runDir) ? runDir : cwd;
  if (argv[1] === '-m' && argv[2] === 'rl_advantages.study') {
    const spec = flagValue(argv, '--spec');
    const model = flagValue(argv, '--model');
    commands.push({
      what: `the TRL drivers (${path.basename(program)} -m rl_advantages.study)`,
      argv: [program, '-m', 'rl_advantages.study', 'probe', ...(spec ? ['--spec', spec] : []), '--run-dir', '.', '--data-dir', '.', ...(model ? ['--model', model] : [])],
      env,
      cwd: where,
      json: true,
    });
  } else if (argv[1] === '-m' && argv[2] !== undefined) {
    commands.push({ what: `${path.basename(program)} -m ${argv[2]}`, argv: [program, '-c', `import ${argv[2]}`], env, cwd: where });
  } else if (/^python[0-9.]*$/.test(path.basename(program))) {
    commands.push({ what: program, argv: [program, '-c', ''], env, cwd: where });
  } else if (/^node(js)?$/.test(path.basename(program))) {
    commands.push({ what: program, argv: [program, '-e', ''], env, cwd: where });
  }
  return { paths: [...paths].sort(), commands };
}

/** A node's answer to the probe. */
export interface ProbeAnswer {
  readonly node_id: string;
  readonly ip: string;
  readonly problems: readonly string[];
}

/**
 * The probe's answers as one error naming each node and what it lacks, with the fix.
 *
 * @throws {RlAdvantagesError} `ray_node_unfit` (field `executor`) when any node has a problem.
 * @example
 * ```ts
 * throwProblems([{ node_id: 'ab12cd34', ip: '10.0.0.2', problems: [] }]); // nothing thrown
 * ```
 */
export function throwProblems(answers: readonly ProbeAnswer[]): void {
  const bad = answers.filter((a) => a.problems.length > 0);
  if (bad.length === 0) return;
  const lines = bad.map((a) => `node ${nodeName(a)}: ${a.problems.join('; ')}`);
  const fix = bad.some((a) => a.problems.some((p) => /drivers|module|package|does not run/i.test(p)))
    ? ' (install the package and python/requirements-trl.txt on every node: in the image, or in the runtime environment the nodes start with; docs/cluster.md)'
    : '';
  throw new RlAdvantagesError(`--executor ray: ${lines.join(' | ')}${fix}`, { code: 'ray_node_unfit', field: 'executor' });
}
