// The run folder: refuse one that cannot be written or holds another run, before any artifact exists, and on a
// resume remove the temporaries of writes a kill cut short.
import { accessSync, constants, existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { readJson, writeFileAtomic, writeJsonAtomic } from './backends/files.js';
import { plainReason, usage } from './usage.js';

/** Refuses a folder it cannot write, before any artifact exists. */
function prepareDir(dir: string, resume: boolean, shown: string): void {
  if (existsSync(dir)) {
    if (!statSync(dir).isDirectory()) throw usage(`--out ${shown} exists and is not a folder`, 'bad_out_dir');
    const entries = readdirSync(dir);
    if (entries.length > 0 && !resume) {
      throw usage(`--out ${shown} is not empty: pass --resume to continue the run in it, or choose an empty folder`, 'out_dir_not_empty');
    }
  } else {
    try {
      mkdirSync(dir, { recursive: true });
    } catch (error) {
      throw usage(`--out ${shown} cannot be created: ${plainReason(error)}`, 'bad_out_dir');
    }
  }
  try {
    accessSync(dir, constants.W_OK);
    const probe = path.join(dir, `.write-probe-${process.pid}`);
    writeFileAtomic(probe, '');
    rmSync(probe);
  } catch (error) {
    throw usage(`--out ${shown} is not writable: ${plainReason(error)}`, 'bad_out_dir');
  }
}

/** Removes the temporary files of writes cut short by a kill (`<artifact>.tmp-<pid>`), before a resume. */
function removeStaleTemporaries(dir: string): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) removeStaleTemporaries(full);
    else if (/\.tmp-\d+$/.test(entry.name)) rmSync(full);
  }
}

/**
 * Claims `dir` for the run of `identity` (run.json): a fresh folder gets run.json; a resumed one must hold the same
 * identity, and loses its stale temporaries. Messages name the folder as `shown` (what the user typed).
 */
export function claimRunDir(dir: string, identity: Readonly<Record<string, unknown>>, resume: boolean, shown = dir): void {
  prepareDir(dir, resume, shown);
  const runFile = path.join(dir, 'run.json');
  if (existsSync(runFile)) {
    const previous = readJson<Record<string, unknown>>(runFile);
    const differs = Object.keys(identity).filter((k) => JSON.stringify(previous[k]) !== JSON.stringify(identity[k]));
    if (differs.length > 0) {
      throw usage(
        `--out ${shown} holds another run (different ${differs.join(', ')}); refusing to mix runs: use another folder`,
        'resume_mismatch',
      );
    }
    removeStaleTemporaries(dir);
  } else if (resume && readdirSync(dir).length > 0) {
    throw usage(`--out ${shown} holds no rl-adv study run (no run.json); refusing to resume into it`, 'resume_mismatch');
  } else {
    writeJsonAtomic(runFile, identity);
  }
}
