// How the TRL backend talks to its drivers (`python -m rl_advantages.study`, python/rl_advantages/study/): the probe
// that refuses a run before its folder is touched, and, per run, the drivers' data folder (the arith world written
// once into RUN/trl/data), the request files (RUN/trl/requests/*.jsonl) and a driver call.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { arithItems, parseArithWorld } from '../../data/arith.js';
import type { Gsm8kItem } from '../../data/gsm8k.js';
import { RlAdvantagesError } from '../../errors.js';
import { specArithSection } from '../load-questions.js';
import { commandEnv, describeJob, runDescribedJob } from '../executor/describe.js';
import type { JobPlan } from '../executor/types.js';
import { writeJsonlAtomic } from './files.js';
import type { StudyContext } from './types.js';
import { pathUnder } from '../../internal/path-parts.js';

/** The drivers' module. */
export const TRL_DRIVER_MODULE = 'rl_advantages.study';

/** Where the TRL backend finds its tools and its starting policy. */
export interface TrlBackendOptions {
  /** The spec the run will use: what it needs is probed before anything else. */
  readonly specPath: string;
  /** The Python interpreter (default: $RL_ADV_PYTHON, else `python3`). */
  readonly python?: string;
  /** A local starting policy (a transformers model folder) instead of the spec's `base_model`. */
  readonly model?: string;
  /** The environment (default: process.env). */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/** What the TRL backend's jobs share: a driver call, the request files, and the settings that identify the run. */
export interface TrlDrivers {
  readonly model: string | undefined;
  /**
   * Runs `python -m rl_advantages.study COMMAND` with the run's common arguments as the job `plan` of the study's
   * graph (`fallback` names it when the backend is called on its own), through the study's executor; its stdout.
   */
  drive(ctx: StudyContext, command: string, args: readonly string[], logName: string, plan: JobPlan | undefined, fallback: Pick<JobPlan, 'id' | 'kind'>): Promise<string>;
  /** Writes the items of a request (`{task_id, question, reference}` lines) to RUN/trl/requests/NAME.jsonl; its path. */
  request(ctx: StudyContext, name: string, items: readonly Gsm8kItem[]): string;
  /** The mid-arm checkpoints' root (RUN/trl/checkpoints). */
  checkpointsDir(ctx: StudyContext): string;
}

/**
 * The backend's unavailability error.
 *
 * @example
 * ```ts
 * throw trlUnavailable('no python');
 * ```
 */
export function trlUnavailable(message: string): RlAdvantagesError {
  return new RlAdvantagesError(`--backend trl: ${message}`, { code: 'trl_unavailable', field: 'backend' });
}

/** Rows of an items file for the drivers. */
function itemRows(items: readonly Gsm8kItem[]): { task_id: string; question: string; reference: string }[] {
  return items.map((item) => ({ task_id: item.id, question: item.question, reference: item.referenceAnswer }));
}

/** Variables a driver's process needs on any node (where it imports the drivers from, the Hugging Face cache). */
export const TRL_JOB_ENV = ['PYTHONPATH', 'HF_HOME', 'HF_HUB_CACHE', 'HF_HUB_OFFLINE', 'TRANSFORMERS_OFFLINE', 'HF_DATASETS_OFFLINE', 'GSM8K_DIR'] as const;

/**
 * A driver job's own environment: TRL_JOB_ENV, and whatever the backend's environment sets differently from this
 * process's (a caller's own `env` option); the executor adds it to the node's environment.
 */
function jobEnv(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const differs = Object.keys(env).filter((key) => env[key] !== process.env[key]);
  return commandEnv(env, [...TRL_JOB_ENV, ...differs]);
}

/** Runs the drivers' probe; throws naming what is missing. */
function probe(python: string, specPath: string, model: string | undefined, env: Record<string, string | undefined>): void {
  const args = ['-m', TRL_DRIVER_MODULE, 'probe', '--spec', specPath, '--run-dir', '.', '--data-dir', '.', ...(model ? ['--model', model] : [])];
  const r = spawnSync(python, args, { encoding: 'utf8', env });
  if (r.error !== undefined) {
    throw trlUnavailable(`cannot run Python (${JSON.stringify(python)}): ${r.error.message}; pass --python or set RL_ADV_PYTHON (docs/trl.md)`);
  }
  if (r.status === 0) return;
  let missing: string[] | undefined;
  try {
    missing = (JSON.parse(r.stdout.trim().split('\n').at(-1) ?? '') as { missing?: string[] }).missing;
  } catch {
    missing = undefined;
  }
  if (missing === undefined) {
    throw trlUnavailable(`${python} -m ${TRL_DRIVER_MODULE} does not run (${r.stderr.trim().split('\n').at(-1) ?? `exit ${String(r.status)}`}); install the package (pip install ./python) with python/requirements-trl.txt (docs/trl.md)`);
  }
  throw trlUnavailable(`this machine cannot run ${path.basename(specPath)}: missing ${missing.join('; ')}`);
}

/**
 * Probes the drivers, all at once, for what the spec needs (a Python that runs and imports them, their packages, and
 * for a Hugging Face model its files or the network, and a GPU for a bfloat16 or float16 `dtype`), then returns how
 * the jobs call them.
 *
 * @throws {RlAdvantagesError} `trl_unavailable`, naming what is missing and how to provide it.
 * @example
 * ```ts
 * const drivers = trlDrivers({ specPath: 'specs/arith-gs1-vs-grpo.json', python: '.venv/bin/python' });
 * ```
 */
export function trlDrivers(options: TrlBackendOptions): TrlDrivers {
  const env = { ...(options.env ?? process.env) };
  const python = options.python ?? env.RL_ADV_PYTHON ?? 'python3';
  const model = options.model === undefined ? undefined : path.resolve(options.model);
  const specPath = path.resolve(options.specPath);
  probe(python, specPath, model, env);
  const trlDir = (ctx: StudyContext): string => path.join(ctx.dir, 'trl');
  /** The drivers' data folder: the arith world written once into RUN/trl/data, else the GSM8K folder. */
  const dataDir = (ctx: StudyContext): string => {
    const section = specArithSection(ctx.spec);
    if (section === undefined) return ctx.dataDir;
    const dir = path.join(trlDir(ctx), 'data');
    if (!existsSync(path.join(dir, 'sft.jsonl'))) {
      mkdirSync(dir, { recursive: true });
      const lines = (items: readonly Gsm8kItem[]): { question: string; answer: string }[] => items.map((i) => ({ question: i.question, answer: i.answer }));
      writeJsonlAtomic(path.join(dir, 'train.jsonl'), lines(ctx.train));
      writeJsonlAtomic(path.join(dir, 'test.jsonl'), lines(ctx.test));
      writeJsonlAtomic(path.join(dir, 'sft.jsonl'), itemRows(arithItems(parseArithWorld(section), 'sft')));
    }
    return dir;
  };
  return {
    model,
    drive: (ctx, command, args, logName, plan, fallback) => {
      const argv = [python, '-m', TRL_DRIVER_MODULE, command, '--spec', specPath, '--run-dir', ctx.dir, '--data-dir', dataDir(ctx), ...(model ? ['--model', model] : []), ...args];
      const job = describeJob(ctx, plan, fallback, { argv, env: jobEnv(env), cwd: process.cwd() }, logName);
      return runDescribedJob(ctx, job);
    },
    request: (ctx, name, items) => {
      const file = pathUnder(ctx.dir, 'trl', 'requests', `${name}.jsonl`);
      mkdirSync(path.dirname(file), { recursive: true });
      writeJsonlAtomic(file, itemRows(items));
      return file;
    },
    checkpointsDir: (ctx) => path.join(trlDir(ctx), 'checkpoints'),
  };
}
