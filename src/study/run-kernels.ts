// The kernels of a run's kernel arms, frozen and hashed into run.json (docs/study.md, "Kernel arms"): every
// `kernel:PATH` file and the oracle kernel (built from the world before the folder is touched) under `kernels`, the
// tuned kernel under `tuned_kernel` once the tuning phase has written it (before the pilot). A resumed run whose
// kernel differs from the one recorded is refused, naming the arm and the file, before anything is written.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Gsm8kItem } from '../data/gsm8k.js';
import { sha256File, sha256Hex } from '../internal/sha256.js';
import { pathUnder } from '../internal/path-parts.js';
import { loadKernel, type LoadedKernel } from '../kernels/kernel-file.js';
import { resolveKernelEstimatorName } from '../kernels/resolve.js';
import { readJson, writeFileAtomic, writeJsonAtomic } from './backends/files.js';
import { ORACLE_CELL_KERNEL, TUNED_KERNEL } from './kernel-arm-spec.js';
import { ORACLE_KERNEL_FILE, oracleKernelJson } from './oracle-kernel.js';
import type { StudySpec } from './spec.js';
import { usage } from './usage.js';

/** One kernel of run.json: its file (relative to the spec file, or in the run folder) and the sha256 of its bytes. */
export interface RunKernelRecord {
  readonly file: string;
  readonly sha256: string;
}

/** The kernels known when a run starts: the loaded oracle (with its text) and run.json's `kernels` record. */
export interface StartKernels {
  /** The oracle kernel's file text, when an arm is the oracle. */
  readonly oracleText: string | undefined;
  /** run.json's `kernels`, by advantage name; undefined when no arm is a kernel file or the oracle. */
  readonly identity: Record<string, RunKernelRecord> | undefined;
}

/**
 * The oracle's text (when an arm is the oracle) and the hashes of every kernel file and the oracle, by advantage.
 *
 * @throws {RlAdvantagesError} `bad_kernel` for a kernel file that cannot be read (armKernels names the arm first).
 * @example
 * ```ts
 * startKernels(spec, path.dirname(specFile), data.train).identity; // { oracle_cell_kernel: { file, sha256 } }
 * ```
 */
export function startKernels(spec: StudySpec, specDir: string, train: readonly Gsm8kItem[]): StartKernels {
  const identity: Record<string, RunKernelRecord> = {};
  for (const arm of spec.arms) {
    const resolved = resolveKernelEstimatorName(arm.advantage, specDir);
    if (resolved !== null) identity[arm.advantage] = { file: arm.advantage.slice('kernel:'.length), sha256: resolved.sha256 };
  }
  const oracleText = spec.arms.some((a) => a.advantage === ORACLE_CELL_KERNEL) ? oracleKernelJson(train) : undefined;
  if (oracleText !== undefined) identity[ORACLE_CELL_KERNEL] = { file: ORACLE_KERNEL_FILE, sha256: sha256Hex(oracleText) };
  return { oracleText, identity: Object.keys(identity).length > 0 ? identity : undefined };
}

function armOf(spec: StudySpec, advantage: string): string {
  return spec.arms.filter((a) => a.advantage === advantage).map((a) => a.name).join(', ');
}

function changed(spec: StudySpec, shown: string, advantage: string, file: string, was: string, now: string): Error {
  return usage(
    `--resume: the kernel of arm ${armOf(spec, advantage)} (${advantage}, file ${file}) changed since the run in ${shown} started ` +
      `(sha256 ${was.slice(0, 12)}... in run.json, ${now.slice(0, 12)}... now); refusing to train or score arms of one run ` +
      'with two kernels: restore the file, or start the run again in another folder',
    'kernel_changed',
  );
}

/**
 * Before a resumed run claims its folder: refuses it when run.json records another sha256 for any kernel file or the
 * oracle than the ones given now (nothing is written).
 *
 * @throws {RlAdvantagesError} `kernel_changed` (exit 2) naming the arm, its advantage and the file.
 * @example
 * ```ts
 * refuseChangedKernels(dir, options.dir, spec, startKernels(spec, specDir, train));
 * ```
 */
export function refuseChangedKernels(dir: string, shown: string, spec: StudySpec, now: StartKernels): void {
  const runFile = path.join(dir, 'run.json');
  if (!existsSync(runFile)) return;
  let run: { kernels?: unknown; tuned_kernel?: unknown };
  try {
    run = readJson<Record<string, unknown>>(runFile) as typeof run;
  } catch {
    return; // claimRunDir names an unreadable run.json
  }
  // The frozen tuned kernel: refused when edited, before --resume's artifact check could take it for a torn file and
  // tune it again (a frozen kernel is part of the design, never rebuilt under an arm that trained with it).
  const tuned = run.tuned_kernel as RunKernelRecord | undefined;
  const tunedFile = tuned === undefined ? undefined : pathUnder(dir, tuned.file);
  if (tuned !== undefined && tunedFile !== undefined && existsSync(tunedFile)) {
    const sha256 = sha256File(tunedFile);
    if (sha256 !== tuned.sha256) throw changed(spec, shown, TUNED_KERNEL, tuned.file, tuned.sha256, sha256);
  }
  const recorded = run.kernels;
  if (now.identity === undefined) return;
  if (typeof recorded !== 'object' || recorded === null) return;
  for (const [advantage, record] of Object.entries(now.identity)) {
    const was = (recorded as Record<string, RunKernelRecord | undefined>)[advantage];
    if (was !== undefined && was.sha256 !== record.sha256) throw changed(spec, shown, advantage, record.file, was.sha256, record.sha256);
  }
}

/**
 * After the folder is claimed: writes the oracle kernel (once), and returns it loaded.
 *
 * @example
 * ```ts
 * kernels.oracle_cell_kernel = writeOracleKernel(dir, start.oracleText);
 * ```
 */
export function writeOracleKernel(dir: string, text: string): LoadedKernel {
  const file = path.join(dir, ORACLE_KERNEL_FILE);
  if (!existsSync(file) || readFileSync(file, 'utf8') !== text) writeFileAtomic(file, text);
  return loadKernel(text);
}

/**
 * Freezes the tuned kernel (RUN/kernel.json) before the pilot: records its sha256 in run.json's `tuned_kernel`, or,
 * when run.json has one (a resume), refuses a kernel.json whose bytes differ. Returns the kernel loaded.
 *
 * @throws {RlAdvantagesError} `kernel_changed` (exit 2) naming the arm and kernel.json.
 * @example
 * ```ts
 * kernels.tuned_kernel = freezeTunedKernel(dir, 'kernel.json', spec);
 * ```
 */
export function freezeTunedKernel(dir: string, kernelFile: string, spec: StudySpec): LoadedKernel {
  const text = readFileSync(path.join(dir, kernelFile), 'utf8');
  const sha256 = sha256Hex(text);
  const runFile = path.join(dir, 'run.json');
  const run = readJson<Record<string, unknown>>(runFile);
  const was = run.tuned_kernel as RunKernelRecord | undefined;
  if (was === undefined) writeJsonAtomic(runFile, { ...run, tuned_kernel: { file: kernelFile, sha256 } });
  else if (was.sha256 !== sha256) throw changed(spec, dir, TUNED_KERNEL, kernelFile, was.sha256, sha256File(path.join(dir, kernelFile)));
  return loadKernel(text);
}
