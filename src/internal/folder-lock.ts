// One writer per folder: a lock file created atomically (a complete file hard-linked into place, which fails if the
// name exists), holding the owner's pid, host, process start time and a random token. A lock whose owner is dead
// (no such pid on this host, or a pid reused by a process started later) is stale and taken over; two takers of one
// stale lock are serialised by a claim file named after the stale lock's token, created the same atomic way, so
// exactly one replaces it and the other then finds a live owner.
import { randomBytes } from 'node:crypto';
import { linkSync, readFileSync, renameSync, unlinkSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { BoundedReadError, readBoundedFile } from './bounded-read.js';
import { writeTempBeside } from './durable-write.js';

/** The name of the lock file in a locked folder. */
export const LOCK_FILE = '.rl-adv.lock';

/** What a lock file records about its owner. */
export interface LockOwner {
  readonly pid: number;
  readonly host: string;
  /** The process's start time (Linux: clock ticks after boot, /proc/PID/stat field 22), or null where unknown. */
  readonly start: string | null;
  readonly token: string;
  /** The command that holds it, e.g. `rl-adv study`. */
  readonly command: string;
  /** When it was taken, ISO 8601. */
  readonly since: string;
}

/** A held lock: release it when the work is done. */
export interface FolderLock {
  readonly file: string;
  readonly owner: LockOwner;
  release(): void;
}

/** A process's start time from /proc (Linux), or null elsewhere or when it cannot be read. */
export function processStart(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: count the fields after its last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[19] ?? null;
  } catch {
    return null;
  }
}

/** Whether a process of this pid exists on this host (one of another user counts: EPERM). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/**
 * Whether the owner of a lock may still be running: another host's process cannot be checked and counts as alive; on
 * this host a pid that does not exist, or exists with another start time (a reused pid), is dead.
 */
export function ownerAlive(owner: LockOwner): boolean {
  if (owner.host !== hostname()) return true;
  if (!pidAlive(owner.pid)) return false;
  if (owner.start === null) return true;
  const start = processStart(owner.pid);
  return start === null || start === owner.start;
}

/** The most bytes of a lock file read: rl-adv's own are about 200 bytes. */
export const LOCK_MAX_BYTES = 64 * 1024;

/** A lock file that is not one rl-adv wrote (code `EBADLOCK`): `why` says what it is instead. */
export class BadLockError extends Error {
  readonly code = 'EBADLOCK';
  readonly why: string;
  /** True when it is a file of the lock's form whose pid no rl-adv process can have (<= 1, not an integer). */
  readonly malformed: boolean;
  constructor(file: string, why: string, malformed = false) {
    super(`${file} is not a lock file rl-adv wrote: ${why}`);
    this.why = why;
    this.malformed = malformed;
  }
}

/** Whether `pid` can be the pid of a process holding a lock: an integer > 1 (never 0, -1 or init, which `kill` would hit). */
export function lockablePid(pid: unknown): pid is number {
  return typeof pid === 'number' && Number.isInteger(pid) && pid > 1;
}

/**
 * The lock file's owner, or undefined when it is gone or not (yet) a whole lock (a lock is always written whole, so
 * rarely). Opened without following a link, non-blocking, regular files only, at most {@link LOCK_MAX_BYTES}: a FIFO
 * never blocks and a link to /dev/zero is never read.
 *
 * @throws {@link BadLockError} when the lock file is a symbolic link, not a regular file, too large, or names a pid
 *   no process can hold a lock with (<= 1, not an integer).
 */
export function readOwner(file: string): LockOwner | undefined {
  let text: string;
  try {
    text = readBoundedFile(file, LOCK_MAX_BYTES, { followLinks: false }).toString('utf8');
  } catch (error) {
    if (!(error instanceof BoundedReadError) || error.reason === 'unreadable') return undefined;
    // "FILE is a FIFO (named pipe), not a regular file" -> "it is a FIFO ...": the caller names the file.
    throw new BadLockError(file, error.message.startsWith(file) ? `it${error.message.slice(file.length)}` : error.message);
  }
  let owner: Partial<LockOwner> | null;
  try {
    owner = JSON.parse(text) as Partial<LockOwner> | null;
  } catch {
    return undefined;
  }
  if (typeof owner !== 'object' || owner === null || typeof owner.token !== 'string' || !('pid' in owner)) return undefined;
  if (!lockablePid(owner.pid)) throw new BadLockError(file, `it names pid ${JSON.stringify(owner.pid)}, which no rl-adv process can have (a pid is an integer > 1)`, true);
  return owner as LockOwner;
}

/** {@link readOwner}'s token, or undefined when the file is gone or is not rl-adv's lock (never thrown: for release). */
function tokenOf(file: string): string | undefined {
  try {
    return readOwner(file)?.token;
  } catch {
    return undefined;
  }
}

function unlinkQuietly(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    // gone already
  }
}

/** Links the complete file `temp` at `file`; false when `file` exists. */
function linkNew(temp: string, file: string): boolean {
  try {
    linkSync(temp, file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

/**
 * Takes `file` for `me` (whose lock text is in `temp`): returns undefined when taken, or the live owner that holds it.
 * A dead owner's lock is replaced under a claim `<file>-<its token>`, itself taken by this same procedure.
 */
function take(file: string, temp: string, depth = 0): LockOwner | undefined {
  for (let attempt = 0; attempt < 50; attempt++) {
    if (linkNew(temp, file)) return undefined;
    const owner = readOwner(file);
    // Gone between the link and the read (its owner released it): try again.
    if (owner === undefined) continue;
    if (ownerAlive(owner)) return owner;
    if (depth > 4) return owner;
    const claim = `${file}-${owner.token}`;
    const claimer = take(claim, temp, depth + 1);
    // Another process is replacing the same stale lock: it will hold it in a moment.
    if (claimer !== undefined) return claimer;
    try {
      // Only the holder of the claim replaces the stale lock, and only if it is still that stale lock.
      if (readOwner(file)?.token === owner.token) {
        const fresh = `${temp}-${depth}`;
        linkSync(temp, fresh);
        renameSync(fresh, file);
        return undefined;
      }
    } finally {
      unlinkQuietly(claim);
    }
  }
  const last = readOwner(file);
  // rl-adv writes a lock whole; one that stays unreadable was written by something else: never assume it is free.
  if (last === undefined) throw new BadLockError(file, 'it does not parse as a lock (JSON with pid and token)');
  return last;
}

/**
 * Locks `folder` for this process: creates `folder/.rl-adv.lock` atomically, taking over a stale one.
 *
 * @param command - what holds it, recorded for the message another process prints (e.g. `rl-adv study`).
 * @returns the held lock, or `{ heldBy }` when a live process holds it.
 * @throws the system error when the folder cannot be written; {@link BadLockError} (code `EBADLOCK`) when the lock
 *   file stays unreadable, is a symbolic link or not a regular file, or names a pid <= 1 (not written by rl-adv).
 * @example
 * ```ts
 * const lock = lockFolder('runs/a', 'rl-adv study');
 * if ('heldBy' in lock) console.log(`in use by pid ${lock.heldBy.pid}`);
 * else try { work(); } finally { lock.release(); }
 * ```
 */
export function lockFolder(folder: string, command: string): FolderLock | { heldBy: LockOwner } {
  const file = path.join(folder, LOCK_FILE);
  const owner: LockOwner = {
    pid: process.pid,
    host: hostname(),
    start: processStart(process.pid),
    token: randomBytes(8).toString('hex'),
    command,
    since: new Date().toISOString(),
  };
  const temp = writeTempBeside(file, JSON.stringify(owner) + '\n');
  let heldBy: LockOwner | undefined;
  try {
    heldBy = take(file, temp);
  } finally {
    unlinkQuietly(temp);
  }
  if (heldBy !== undefined) return { heldBy };
  const release = (): void => {
    HELD.delete(release);
    if (tokenOf(file) === owner.token) unlinkQuietly(file);
  };
  HELD.add(release);
  if (!exitHooked) {
    exitHooked = true;
    process.on('exit', releaseAll);
  }
  return { file, owner, release };
}

/** The locks this process holds, released when it exits (`process.exit` on a failed stdout skips every `finally`). */
const HELD = new Set<() => void>();
let exitHooked = false;

function releaseAll(): void {
  for (const release of [...HELD]) release();
}
