// `rl-adv study revise`: a study adopts a tuned kernel only through a recorded revised spec (docs/study.md,
// "Adopting a tuned kernel"). The revision sets the treatment arm's advantage to `kernel:PATH`, raises `version`,
// and records why, when, and what the kernel was tuned on; it refuses a kernel whose tuning data share a task
// (by id or by prompt) with the gate's calibration set, and it never touches the gate or any other field.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { RlAdvantagesError } from '../errors.js';
import type { Gsm8kItem } from '../data/gsm8k.js';
import { describe } from '../internal/validate.js';
import { KERNEL_FILE_FORMAT, KERNEL_FILE_VERSION } from '../kernels/kernel-file.js';
import { KERNEL_FILE_MAX_BYTES } from '../kernels/resolve.js';
import { writeFileAtomic } from './backends/files.js';
import { createFileDurable } from '../internal/durable-write.js';
import { studyArms } from './setup.js';
import { loadStudySpec, SPEC_FILE_MAX_BYTES } from './spec.js';
import { gateCalibrationTasks } from './task-sets.js';
import { readUserFile, usage } from './usage.js';
import { sha256Hex } from '../internal/sha256.js';
import { isObject } from '../internal/spec-problems.js';

/** The `revision` record of a revised spec. */
export interface SpecRevision {
  /** Why the spec was revised (`--reason`). */
  readonly reason: string;
  /** When, as an ISO 8601 date-time. */
  readonly date: string;
  /** The version of the spec it revises (absent `version` counts as 1). */
  readonly previous_version: number;
  /** sha256 of the previous spec file's bytes. */
  readonly previous_spec_sha256: string;
  /** The arm whose advantage changed, and its advantage before and after. */
  readonly arm: string;
  readonly previous_advantage: string;
  readonly advantage: string;
  /** sha256 of the kernel file's bytes, its family, and its tuning data (provenance.inputs of role input/train). */
  readonly kernel_sha256: string;
  readonly kernel_family: string;
  readonly tuning_data_sha256: string;
  readonly tuning_inputs: readonly { readonly role: string; readonly path: string; readonly sha256: string }[];
  /** The kernel's tuning tasks, none of which is in the gate's calibration set (checked by id and by prompt). */
  readonly tuning_tasks: number;
  /** The kernel's held-out figures (provenance.held_out), as the kernel file states them. */
  readonly held_out: Readonly<Record<string, unknown>>;
  /** The revision the previous spec carried, when it was itself a revision. */
  readonly previous_revision?: unknown;
}

/** What {@link reviseStudySpec} needs. */
export interface ReviseOptions {
  /** The spec file to revise. */
  readonly specPath: string;
  /** The kernel file (`rl-adv tune-kernel --out`). */
  readonly kernelPath: string;
  /** Where the revised spec will be written: the arm's `kernel:PATH` is relative to its folder. */
  readonly outPath: string;
  /** The study's train questions, for the gate's calibration set (the spec's data order over them). */
  readonly train: readonly Gsm8kItem[];
  /** Why (default: "adopt the tuned kernel <file>"). */
  readonly reason?: string;
  /** The revision's date (default: now). */
  readonly date?: Date;
}

/** The revised spec, as an object and as the text to write. */
export interface RevisedSpec {
  readonly spec: Readonly<Record<string, unknown>>;
  readonly text: string;
  readonly revision: SpecRevision;
}

type Obj = Record<string, unknown>;


function kernelError(file: string, field: string, message: string): RlAdvantagesError {
  return new RlAdvantagesError(`--kernel ${file}: field "${field}" ${message}`, { code: 'invalid_kernel', field });
}


/** The parts of a kernel file a revision reads, validated. */
interface KernelFacts {
  readonly family: string;
  readonly tasks: readonly { readonly task_id: string; readonly prompt_sha256: string }[];
  readonly inputs: readonly { readonly role: string; readonly path: string; readonly sha256: string }[];
  readonly heldOut: Obj;
}

function kernelFacts(text: string, file: string): KernelFacts {
  let json: unknown;
  try {
    json = JSON.parse(text) as unknown;
  } catch (error) {
    throw new RlAdvantagesError(`--kernel ${file} is not valid JSON: ${(error as Error).message}`, { code: 'bad_json', field: 'kernel' });
  }
  if (!isObject(json)) throw kernelError(file, '', `must hold a JSON object, got ${describe(json)}`);
  if (json.format !== KERNEL_FILE_FORMAT) throw kernelError(file, 'format', `must be "${KERNEL_FILE_FORMAT}", got ${describe(json.format)}`);
  if (json.version !== KERNEL_FILE_VERSION) throw kernelError(file, 'version', `must be ${KERNEL_FILE_VERSION} (the version this rl-advantages reads), got ${describe(json.version)}`);
  if (typeof json.family !== 'string' || json.family === '') throw kernelError(file, 'family', `must be a non-empty string, got ${describe(json.family)}`);
  const provenance = json.provenance;
  if (!isObject(provenance)) throw kernelError(file, 'provenance', `must be an object, got ${describe(provenance)}`);
  const tasks = provenance.tuning_tasks;
  if (!Array.isArray(tasks) || tasks.length === 0) {
    throw kernelError(file, 'provenance.tuning_tasks', `must be a non-empty array (without it the gate's calibration set cannot be checked), got ${describe(tasks)}`);
  }
  tasks.forEach((t, i) => {
    if (!isObject(t) || typeof t.task_id !== 'string' || typeof t.prompt_sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(t.prompt_sha256)) {
      throw kernelError(file, `provenance.tuning_tasks[${i}]`, `must be { task_id: string, prompt_sha256: 64 hex digits }, got ${describe(t)}`);
    }
  });
  const inputs = provenance.inputs;
  if (!Array.isArray(inputs)) throw kernelError(file, 'provenance.inputs', `must be an array, got ${describe(inputs)}`);
  inputs.forEach((input, i) => {
    if (!isObject(input) || typeof input.sha256 !== 'string' || typeof input.role !== 'string') {
      throw kernelError(file, `provenance.inputs[${i}]`, `must be { role, path, sha256 }, got ${describe(input)}`);
    }
  });
  const heldOut = provenance.held_out;
  if (!isObject(heldOut)) throw kernelError(file, 'provenance.held_out', `must be an object, got ${describe(heldOut)}`);
  return {
    family: json.family,
    tasks: tasks as KernelFacts['tasks'],
    inputs: (inputs as Obj[]).map((x) => ({ role: x.role as string, path: typeof x.path === 'string' ? x.path : '', sha256: x.sha256 as string })),
    heldOut,
  };
}

/** Refuses a kernel tuned on any task of the gate's calibration set, matched by task id or by prompt sha256. */
function refuseGateOverlap(facts: KernelFacts, gate: readonly Gsm8kItem[], kernelFile: string): void {
  const ids = new Set(gate.map((t) => t.id));
  const prompts = new Map(gate.map((t) => [sha256Hex(t.question), t.id]));
  const shared: string[] = [];
  for (const t of facts.tasks) {
    if (ids.has(t.task_id)) shared.push(t.task_id);
    else if (prompts.has(t.prompt_sha256)) shared.push(`${t.task_id} (same prompt as ${prompts.get(t.prompt_sha256) as string})`);
  }
  if (shared.length > 0) {
    const shown = shared.slice(0, 5).join(', ') + (shared.length > 5 ? `, ... (${shared.length - 5} more)` : '');
    throw new RlAdvantagesError(
      `--kernel ${kernelFile} was tuned on ${shared.length} task(s) of the gate's calibration set (${shown}): the gate would be ` +
        "scored on data the kernel was tuned on. Tune it on the study's tuning rows (rl-adv study --tune-kernel) or on tasks outside that set",
      { code: 'kernel_saw_gate_tasks', field: 'provenance.tuning_tasks' },
    );
  }
}

/** `kernel:PATH` for the arm: the kernel file relative to the revised spec's folder, with forward slashes. */
function kernelAdvantage(kernelPath: string, outPath: string): string {
  const relative = path.relative(path.dirname(path.resolve(outPath)), path.resolve(kernelPath));
  return `kernel:${relative.split(path.sep).join('/')}`;
}

/**
 * Builds the revised spec that adopts a tuned kernel (docs/study.md, "Adopting a tuned kernel"): `version` + 1,
 * the treatment arm's `advantage` set to `kernel:PATH` (PATH relative to the folder of `outPath`), and a
 * `revision` record ({@link SpecRevision}). Every other field is kept as it was, the activation gate included.
 * Nothing is written; see {@link writeRevisedSpec}.
 *
 * @throws {RlAdvantagesError} `kernel_saw_gate_tasks` when any of the kernel's `provenance.tuning_tasks` shares a
 *   task id or a prompt (sha256) with the gate's calibration set of the spec on `train` (the last 64 tasks of its
 *   data order, as the calibration phase takes them); `invalid_kernel` / `bad_json` for a kernel file without the
 *   fields read; `invalid_spec` for an invalid spec; `file_not_found` for an unreadable file; `not_regular_file` for
 *   a FIFO, a device or a folder and `file_too_large` for a spec over 16 MiB or a kernel over 256 MiB (read bounded).
 * @example
 * ```ts
 * const { train } = loadStudyQuestions({ ... });
 * const revised = reviseStudySpec({ specPath: 'spec.json', kernelPath: 'run/kernel.json', outPath: 'spec.v2.json', train });
 * console.log(revised.revision.advantage); // "kernel:run/kernel.json"
 * ```
 */
export function reviseStudySpec(options: ReviseOptions): RevisedSpec {
  const specBytes = readUserFile(options.specPath, '--spec', SPEC_FILE_MAX_BYTES);
  const kernelBytes = readUserFile(options.kernelPath, '--kernel', KERNEL_FILE_MAX_BYTES);
  const spec = loadStudySpec(specBytes.toString('utf8'));
  const facts = kernelFacts(kernelBytes.toString('utf8'), options.kernelPath);
  refuseGateOverlap(facts, gateCalibrationTasks(spec, options.train), options.kernelPath);
  const { treatment } = studyArms(spec);
  const raw = spec.raw;
  const previousVersion = typeof raw.version === 'number' ? raw.version : 1;
  const advantage = kernelAdvantage(options.kernelPath, options.outPath);
  const tuning = facts.inputs.filter((input) => input.role === 'input' || input.role === 'train');
  const revision: SpecRevision = {
    reason: options.reason ?? `adopt the tuned kernel ${path.basename(options.kernelPath)}`,
    date: (options.date ?? new Date()).toISOString(),
    previous_version: previousVersion,
    previous_spec_sha256: sha256Hex(specBytes),
    arm: treatment.name,
    previous_advantage: treatment.advantage,
    advantage,
    kernel_sha256: sha256Hex(kernelBytes),
    kernel_family: facts.family,
    tuning_data_sha256: tuning.map((input) => input.sha256).join(','),
    tuning_inputs: tuning,
    tuning_tasks: facts.tasks.length,
    held_out: facts.heldOut,
    ...(raw.revision !== undefined ? { previous_revision: raw.revision } : {}),
  };
  const arms = (raw.arms as Obj[]).map((arm) => (arm.name === treatment.name ? { ...arm, advantage } : arm));
  const revised: Obj = { ...raw, version: previousVersion + 1, arms, revision };
  // The revised spec must load as the study will load it.
  loadStudySpec(revised);
  return { spec: revised, text: JSON.stringify(revised, null, 2) + '\n', revision };
}

/**
 * {@link reviseStudySpec}, then writes the revised spec to `outPath` atomically. Never overwrites an existing file
 * unless `force`.
 *
 * @throws {RlAdvantagesError} `out_exists` when `outPath` exists and `force` is not set; as {@link reviseStudySpec}.
 * @example
 * ```ts
 * writeRevisedSpec({ specPath: 'spec.json', kernelPath: 'run/kernel.json', outPath: 'spec.v2.json', train, reason: 'tuned on 1000 tasks' });
 * ```
 */
export function writeRevisedSpec(options: ReviseOptions & { readonly force?: boolean }): RevisedSpec {
  if (options.force !== true && existsSync(options.outPath)) {
    throw usage(`--out ${options.outPath} exists; refusing to overwrite it (pass --force to replace it)`, 'out_exists');
  }
  if (path.resolve(options.outPath) === path.resolve(options.specPath)) {
    throw usage(`--out ${options.outPath} is the --spec file; write the revision to a new file`, 'out_exists');
  }
  const revised = reviseStudySpec(options);
  if (options.force === true) writeFileAtomic(options.outPath, revised.text);
  // Never over a file that appeared since the check above (another process, the user).
  else if (!createFileDurable(options.outPath, revised.text)) {
    throw usage(`--out ${options.outPath} exists; refusing to overwrite it (pass --force to replace it)`, 'out_exists');
  }
  return revised;
}
