// --estimator-module FILE: a user's estimators, loaded before a command reads its estimator names.
import { inputOption } from './outputs.js';
import type { Command } from 'commander';
import { RlAdvantagesError } from '../errors.js';
import { loadEstimatorModule } from '../estimators/module.js';
import { CliUsageError } from './core.js';

/** Adds `--estimator-module <file>` (repeatable). */
export function addEstimatorModuleOption(command: Command): Command {
  return command.addOption(
    inputOption(
      '--estimator-module <file>',
      'an ES module whose default export is an estimator descriptor (or an array of them), registered before the estimators are read; repeatable',
      (value) => (Array.isArray(value) ? (value as string[]) : []),
    ).argParser((value: string, previous: string[] | undefined) => [...(previous ?? []), value]),
  );
}

/** Loads each module (paths relative to the current directory); a bad one is a usage error naming the flag. */
export async function loadEstimatorModules(files: readonly string[] | undefined): Promise<void> {
  for (const file of files ?? []) {
    try {
      await loadEstimatorModule(file, process.cwd(), '--estimator-module');
    } catch (error) {
      if (error instanceof RlAdvantagesError) throw new CliUsageError(error.message);
      throw error;
    }
  }
}
