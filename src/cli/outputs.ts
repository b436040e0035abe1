// The one guard of every file an rl-adv command writes. Each command declares its file options as inputs
// or outputs (inputOption / outputOption below); before any command runs, guardOutputs checks that no
// output is one of the command's inputs (by resolved path and by device and inode, so through a symbolic
// or hard link, `./` or `..`), nor another of its outputs, and that no output exists unless --force
// (the one policy of every command, docs/cli.md "Files a command writes"). writeOutput then writes it
// atomically: a temporary file in the same folder, then a link (no --force: never replaces a file that
// appeared meanwhile) or a rename (--force).
import { closeSync, openSync } from 'node:fs';
import { link, lstat, readlink, realpath, rename, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { Option, type Command } from 'commander';
import { RlAdvantagesIoError } from '../errors.js';
import { errnoReason, IO_ERRNOS, remedy, writeAllSync, writeFileDurable, writeTempBeside } from '../internal/durable-write.js';
import { CliUsageError, type CliIo } from './core.js';
import { STDIO } from './io.js';

/** What a command does with the file(s) an option names. */
export type FileRole =
  | {
      readonly kind: 'input';
      /** The files the option's parsed value names (e.g. the PATH of `kernel:PATH`, both files of `A,B`). */
      readonly files: (value: unknown) => readonly string[];
      /** The files read when the option is not given (e.g. the shipped spec). */
      readonly fallback?: () => readonly string[];
    }
  | { readonly kind: 'output' };

const ROLES = new WeakMap<Option, FileRole>();

/** The role a command's option was declared with, or undefined for an option that names no file. */
export function fileRole(option: Option): FileRole | undefined {
  return ROLES.get(option);
}

/** A string value names one file; `-` (standard input) names none. */
function oneFile(value: unknown): string[] {
  return typeof value === 'string' && value !== STDIO ? [value] : [];
}

/**
 * An option naming a file (or files) the command reads.
 *
 * @param files - the files its parsed value names (default: the value itself, unless `-`).
 * @param fallback - the files read when it is not given.
 * @example
 * ```ts
 * command.addOption(inputOption('--input <file>', 'the rollouts, JSON lines').makeOptionMandatory());
 * ```
 */
export function inputOption(
  flags: string,
  description: string,
  files: (value: unknown) => readonly string[] = oneFile,
  fallback?: () => readonly string[],
): Option {
  const option = new Option(flags, description);
  ROLES.set(option, { kind: 'input', files, ...(fallback === undefined ? {} : { fallback }) });
  return option;
}

/**
 * An option naming a file the command writes (`-` is standard output). The command must also have
 * `--force` ({@link forceOption}); {@link writeOutput} writes it.
 */
export function outputOption(flags: string, description: string): Option {
  const option = new Option(flags, description);
  ROLES.set(option, { kind: 'output' });
  return option;
}

/** `--force`: the one way an existing output file is replaced (never an input). */
export function forceOption(): Option {
  return new Option('--force', 'replace an output file that exists (never one of the inputs)');
}

/** The files of `kernel:PATH` estimator names (`--estimator`, `--estimators`, `--reference`), relative to the current folder. */
export function kernelFiles(value: unknown): string[] {
  const names = Array.isArray(value) ? value : [value];
  return names.filter((n): n is string => typeof n === 'string' && n.startsWith('kernel:')).map((n) => n.slice('kernel:'.length));
}

interface Named {
  readonly flag: string;
  readonly file: string;
}

/** Where a file is and what it is: the path with every link resolved (its folder's, when it does not exist), and its inode. */
interface Identity {
  readonly path: string;
  readonly inode?: string;
}

async function identify(file: string): Promise<Identity> {
  const absolute = resolve(file);
  const found = await stat(absolute).catch(() => undefined);
  if (found !== undefined) return { path: await realpath(absolute), inode: `${found.dev}:${found.ino}` };
  // Not there yet: its folder's real path and its own name (a dangling link is its own name too).
  const folder = await realpath(dirname(absolute)).catch(() => dirname(absolute));
  return { path: join(folder, basename(absolute)) };
}

const same = (a: Identity, b: Identity): boolean => a.path === b.path || (a.inode !== undefined && a.inode === b.inode);

/** The files a parsed command declares as outputs and inputs, in option order. */
export function declaredFiles(command: Command): { outputs: Named[]; inputs: Named[] } {
  const values = command.opts();
  const outputs: Named[] = [];
  const inputs: Named[] = [];
  for (const option of command.options) {
    const role = ROLES.get(option);
    if (role === undefined) continue;
    const flag = option.long ?? option.flags;
    const value = values[option.attributeName()];
    if (role.kind === 'output') {
      for (const file of oneFile(value)) outputs.push({ flag, file });
    } else {
      const files = value === undefined ? (role.fallback?.() ?? []) : role.files(value);
      for (const file of files) if (file !== STDIO) inputs.push({ flag, file });
    }
  }
  return { outputs, inputs };
}

/**
 * Refuses, before the command reads or writes anything, an output that is one of its inputs or another of
 * its outputs (even with --force), an output that is a folder, and an output that exists without --force.
 * Registered as the program's preAction hook, so every command is guarded.
 *
 * @throws {CliUsageError} naming the output option, the file and what it collides with (exit 2).
 */
export async function guardOutputs(command: Command): Promise<void> {
  const { outputs, inputs } = declaredFiles(command);
  if (outputs.length === 0) return;
  const force = command.opts().force === true;
  const inputIds = await Promise.all(inputs.map((i) => identify(i.file)));
  const seen: { named: Named; id: Identity }[] = [];
  for (const output of outputs) {
    const id = await identify(output.file);
    inputs.forEach((input, k) => {
      if (same(id, inputIds[k] as Identity)) {
        throw new CliUsageError(
          `${output.flag} ${output.file} is the ${input.flag} file (${(inputIds[k] as Identity).path}); it would be overwritten: give ${output.flag} another file`,
        );
      }
    });
    const twin = seen.find((s) => same(s.id, id));
    if (twin !== undefined) {
      throw new CliUsageError(`${output.flag} ${output.file} is also ${twin.named.flag} ${twin.named.file}: give each output its own file`);
    }
    seen.push({ named: output, id });
    const present = await lstat(output.file).catch(() => undefined);
    if (present?.isDirectory() === true || (await stat(output.file).catch(() => undefined))?.isDirectory() === true) {
      throw new CliUsageError(`${output.flag} ${output.file} is a folder: give a file name`);
    }
    if (present !== undefined && !force) {
      throw new CliUsageError(`${output.flag} ${output.file} exists; it is kept: give another file, or --force to replace it`);
    }
    // Said before the command works for minutes on a file it could not write.
    if ((await stat(dirname(resolve(output.file))).catch(() => undefined))?.isDirectory() !== true) {
      throw new CliUsageError(`${output.flag} ${output.file}: cannot write it (no such file or folder)`);
    }
  }
}

/** The error of an output that cannot be written: exit 2 for a path the user can change, 74 for a failing device. */
function writeFailure(flag: string, file: string, error: unknown): Error {
  const errno = error instanceof RlAdvantagesIoError ? error.errno : ((error as NodeJS.ErrnoException | null)?.code ?? '');
  const why = errnoReason(errno === '' ? error : { code: errno, message: (error as Error).message });
  if (IO_ERRNOS.has(errno)) {
    return new RlAdvantagesIoError(`${flag} ${file}: cannot write it: ${why} (${errno}); ${remedy(errno)}, then run the command again`, { path: file, errno });
  }
  return new CliUsageError(`${flag} ${file}: cannot write it (${errno === 'EACCES' || errno === 'EPERM' ? 'permission denied' : why})`);
}

/** Writes straight into a FIFO or a device (`/dev/null`, a terminal): there is no file to replace. */
function writeThrough(file: string, text: string): void {
  const fd = openSync(file, 'w');
  try {
    writeAllSync(fd, text);
  } finally {
    closeSync(fd);
  }
}

/**
 * Writes an output file atomically, or standard output for `-`: the text goes to a complete, flushed temporary file
 * in the same folder, which then becomes `file` whole (a full disk leaves no temporary behind). Without `force` it is
 * linked into place, which fails if `file` exists (so a file that appeared after {@link guardOutputs} is kept too);
 * with `force` it is renamed over it. With `force`, a symbolic link is written through (its target is replaced
 * atomically, the link stays) and a FIFO or a device (`/dev/null`) is written into, never replaced by a file.
 *
 * @throws {CliUsageError} when the file exists (without `force`) or cannot be written, naming the option and the file.
 * @throws {RlAdvantagesIoError} (exit 74) when the device fails (a full disk, an I/O error).
 * @example
 * ```ts
 * await writeOutput('report.html', html, io, '--html', options.force === true);
 * ```
 */
export async function writeOutput(file: string, text: string, io: CliIo, flag: string, force: boolean): Promise<void> {
  if (file === STDIO) {
    io.stdout.write(text);
    return;
  }
  const node = await lstat(file).catch(() => undefined);
  try {
    if (force && node !== undefined && !node.isFile() && !node.isSymbolicLink()) return writeThrough(file, text);
    if (force && node?.isSymbolicLink() === true) {
      const target = await linkTarget(file);
      const kind = await stat(target).catch(() => undefined);
      if (kind !== undefined && !kind.isFile()) return writeThrough(target, text);
      return writeFileDurable(target, text);
    }
  } catch (error) {
    throw writeFailure(flag, file, error);
  }
  let temp: string;
  try {
    temp = writeTempBeside(file, text);
  } catch (error) {
    throw writeFailure(flag, file, error);
  }
  try {
    if (force) await rename(temp, file);
    else await placeNew(temp, file, flag);
  } catch (error) {
    throw error instanceof CliUsageError ? error : writeFailure(flag, file, error);
  } finally {
    await unlink(temp).catch(() => undefined);
  }
}

/** The file a symbolic link points to, every link resolved (a dangling link: the path it names). */
async function linkTarget(file: string): Promise<string> {
  const real = await realpath(file).catch(() => undefined);
  if (real !== undefined) return real;
  return resolve(dirname(file), await readlink(file));
}
/** Puts `temp` at `file` only if `file` does not exist: a hard link (atomic no-replace), else a checked rename. */
async function placeNew(temp: string, file: string, flag: string): Promise<void> {
  try {
    await link(temp, file);
    return;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'EEXIST') throw new CliUsageError(`${flag} ${file} exists; it is kept: give another file, or --force to replace it`);
    // A file system without hard links: the guard has checked that `file` is absent.
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'ENOSYS' && code !== 'EXDEV') throw writeFailure(flag, file, error);
  }
  if ((await lstat(file).catch(() => undefined)) !== undefined) {
    throw new CliUsageError(`${flag} ${file} exists; it is kept: give another file, or --force to replace it`);
  }
  await rename(temp, file);
}
