// The run folder: refuse one that cannot be written, is in use by another process, or holds another run, before any
// artifact exists; lock it for this process; and on a resume remove the temporaries of writes a kill cut short (only
// rl-adv's own `.rl-adv-tmp-<pid>-<random>` files of processes that are gone: never a file the user named).
import { accessSync, constants, existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { RlAdvantagesIoError } from '../errors.js';
import { IO_ERRNOS, TEMP_NAME, ioError } from '../internal/durable-write.js';
import { BadLockError, LOCK_FILE, lockablePid, lockFolder, pidAlive, type FolderLock, type LockOwner } from '../internal/folder-lock.js';
import { readJson, writeJsonAtomic } from './backends/files.js';
import { plainReason, usage } from './usage.js';

/** The second half of every I/O error's remedy in a run folder. */
export const RESUME_REMEDY = 'then run the same command with --resume';

/** rl-adv's own bookkeeping files in a run folder: the lock, its claims and temporaries. */
function ownFile(name: string): boolean {
  return name === LOCK_FILE || name.startsWith(`${LOCK_FILE}-`) || TEMP_NAME.test(name);
}

/** Creates the folder when missing; refuses a path that is not a folder or cannot be written. */
function prepareDir(dir: string, shown: string, flag = '--out '): void {
  if (existsSync(dir)) {
    if (!statSync(dir).isDirectory()) throw usage(`${flag}${shown} exists and is not a folder`, 'bad_out_dir');
  } else {
    try {
      mkdirSync(dir, { recursive: true });
    } catch (error) {
      throw folderError(`${flag}${shown} cannot be created`, dir, realMkdirError(dir, error));
    }
  }
  try {
    accessSync(dir, constants.W_OK);
  } catch (error) {
    throw folderError(`${flag}${shown} is not writable`, dir, error);
  }
}

/**
 * The error of creating the first missing folder of `dir` itself: a recursive mkdir under a read-only mount reports
 * ENOENT (Node retries the parents), where the user needs to read EROFS or EACCES.
 */
function realMkdirError(dir: string, error: unknown): unknown {
  let missing = dir;
  while (!existsSync(path.dirname(missing)) && path.dirname(missing) !== missing) missing = path.dirname(missing);
  try {
    mkdirSync(missing);
    return error;
  } catch (real) {
    return real;
  }
}

/** A folder that cannot be used: exit 74 for a failing or read-only device, 2 for a path the user can change. */
function folderError(what: string, dir: string, error: unknown): Error {
  const code = (error as NodeJS.ErrnoException | null)?.code ?? '';
  if (IO_ERRNOS.has(code)) return new RlAdvantagesIoError(`${what}: ${plainReason(error)} (${code}); choose a folder on a writable device with room`, { path: dir, errno: code });
  return usage(`${what}: ${plainReason(error)}`, 'bad_out_dir');
}

/**
 * The message for a lock file rl-adv did not write (a link, a FIFO, a device, a folder, a file too large or not a
 * lock) or a malformed one (a pid <= 1): never advice to signal a pid, only how to remove the file.
 */
function badLock(shown: string, flag: string, why: string, malformed: boolean): Error {
  const file = path.join(shown, LOCK_FILE);
  const what = malformed ? `a malformed lock file ${file} (${why})` : `a lock file ${file} that rl-adv cannot read (${why})`;
  return usage(`${flag}${shown} has ${what}: if no rl-adv process uses the folder, remove it (rm ${file}) and run the command again`, 'run_dir_locked');
}

/** The message for a run folder another live process holds. */
function inUse(shown: string, owner: LockOwner, flag: string): Error {
  // readOwner refuses such a pid; a `kill` of 0, -1 or 1 would signal a group, every process or init.
  if (!lockablePid(owner.pid)) return badLock(shown, flag, `it names pid ${JSON.stringify(owner.pid)}, which no rl-adv process can have (a pid is an integer > 1)`, true);
  const who = `${owner.command} (pid ${owner.pid} on ${owner.host}, since ${owner.since})`;
  return usage(
    `${flag}${shown} is in use by ${who}: two processes never write one run. Wait for it to end, or stop it ` +
      `(kill ${owner.pid}) and continue with --resume. If no such process exists, remove ${path.join(shown, LOCK_FILE)}`,
    'run_dir_locked',
  );
}

/**
 * Locks the run folder for this process (creating the folder when missing).
 *
 * @param shown - the folder as the user typed it; `flag` the option that named it (`--out `, or '' for an argument).
 * @throws {RlAdvantagesError} `run_dir_locked` (exit 2) naming the live holder's pid; `bad_out_dir` for a folder
 *   that cannot be created or written.
 */
export function lockRunDir(dir: string, shown = dir, command = 'rl-adv study', flag = '--out '): FolderLock {
  prepareDir(dir, shown, flag);
  let lock: ReturnType<typeof lockFolder>;
  try {
    lock = lockFolder(dir, command);
  } catch (error) {
    if (error instanceof RlAdvantagesIoError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (error instanceof BadLockError) throw badLock(shown, flag, error.why, error.malformed);
    if (code !== undefined && IO_ERRNOS.has(code)) throw ioError(path.join(dir, LOCK_FILE), error);
    throw usage(`${flag}${shown} is not writable: ${plainReason(error)}`, 'bad_out_dir');
  }
  if ('heldBy' in lock) throw inUse(shown, lock.heldBy, flag);
  return lock;
}

/**
 * Removes the temporary files of writes cut short by a kill before a resume: rl-adv's own names only
 * (`.rl-adv-tmp-<pid>-<random>`), and only those of a process that is gone. Lock claims of dead takers go too.
 */
export function removeStaleTemporaries(dir: string): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      removeStaleTemporaries(full);
      continue;
    }
    const temp = TEMP_NAME.exec(entry.name);
    if (temp === null) continue;
    const pid = Number(temp[1]);
    // This process's own temporaries are live; another pid's are live while it runs (its start time cannot be
    // compared here, so a reused pid keeps its file until the next resume: kept is the safe side).
    const alive = pid === process.pid || pidAlive(pid);
    if (!alive) rmSync(full, { force: true });
  }
}

/**
 * Claims `dir` for the run of `identity` (run.json): locks it, then a fresh folder gets run.json; a resumed one must
 * hold the same identity, and loses its stale temporaries. Messages name the folder as `shown` (what the user typed).
 *
 * @returns the folder's lock: release it when the run ends.
 * @throws {RlAdvantagesError} (exit 2) for a folder in use by a live process (`run_dir_locked`), not empty without
 *   `resume`, holding another run or an unreadable run.json.
 */
export function claimRunDir(dir: string, identity: Readonly<Record<string, unknown>>, resume: boolean, shown = dir): FolderLock {
  const lock = lockRunDir(dir, shown);
  try {
    checkRunDir(dir, identity, resume, shown);
  } catch (error) {
    lock.release();
    throw error;
  }
  return lock;
}

function checkRunDir(dir: string, identity: Readonly<Record<string, unknown>>, resume: boolean, shown: string): void {
  const entries = readdirSync(dir).filter((name) => !ownFile(name));
  if (entries.length > 0 && !resume) {
    throw usage(`--out ${shown} is not empty: pass --resume to continue the run in it, or choose an empty folder`, 'out_dir_not_empty');
  }
  const runFile = path.join(dir, 'run.json');
  if (existsSync(runFile)) {
    const previous = readRunFile(runFile, path.join(shown, 'run.json'));
    const differs = Object.keys(identity).filter((k) => JSON.stringify(previous[k]) !== JSON.stringify(identity[k]));
    if (differs.length > 0) {
      throw usage(
        `--out ${shown} holds another run (different ${differs.join(', ')}); refusing to mix runs: use another folder`,
        'resume_mismatch',
      );
    }
    removeStaleTemporaries(dir);
  } else if (resume && entries.length > 0) {
    throw usage(`--out ${shown} holds no rl-adv study run (no run.json); refusing to resume into it`, 'resume_mismatch');
  } else {
    writeJsonAtomic(runFile, identity);
  }
}

/** run.json, or a message naming it when it is not a JSON object (truncated, edited, or not rl-adv's). */
function readRunFile(file: string, shown: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = readJson<unknown>(file);
  } catch (error) {
    throw usage(
      `${shown} cannot be read as the run's identity (${error instanceof SyntaxError ? 'not valid JSON: truncated or edited' : plainReason(error)}); ` +
        'the run cannot be resumed from it: start it again in an empty folder',
      'bad_artifact',
    );
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw usage(`${shown} is not a JSON object (the run's identity); the run cannot be resumed from it: start it again in an empty folder`, 'bad_artifact');
  }
  return value as Record<string, unknown>;
}
