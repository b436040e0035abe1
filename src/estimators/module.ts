// Loading a user's estimators from an ES module (Node): the CLI's --estimator-module FILE and a study spec's
// estimator_modules both come here, so a user estimator is registered the same way everywhere.
import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { RlAdvantagesError } from '../errors.js';
import { BoundedReadError, readBoundedFile, sizeWords } from '../internal/bounded-read.js';
import { registerEstimator } from './catalogue.js';
import type { UserEstimatorDescriptor } from './descriptor.js';

/** The largest estimator module imported: 16 MiB (checked before the import, with the file's kind). */
export const ESTIMATOR_MODULE_MAX_BYTES = 16 * 1024 * 1024;

/**
 * Refuses a module path that is a FIFO, a device, a folder or a file over {@link ESTIMATOR_MODULE_MAX_BYTES} before
 * `import()` opens it (which would block on a FIFO and read /dev/zero without end). A missing or unreadable file is
 * left to the import, whose message names it.
 */
function refuseSpecialModule(path: string, field: string): void {
  try {
    readBoundedFile(path, ESTIMATOR_MODULE_MAX_BYTES);
  } catch (error) {
    if (!(error instanceof BoundedReadError) || error.reason === 'unreadable') return;
    const limit = error.reason === 'too_large' ? ` (modules are read up to ${sizeWords(ESTIMATOR_MODULE_MAX_BYTES)})` : '';
    throw new RlAdvantagesError(`${field} ${error.message}${limit}: an estimator module must be a regular file (an ES module)`, { code: 'bad_module', field });
  }
}

/** Modules already loaded (absolute path -> the names they registered): loading one again registers nothing. */
const LOADED = new Map<string, readonly string[]>();

/**
 * Imports an ES module whose default export is an estimator descriptor or an array of them, and registers each
 * with {@link registerEstimator}. A module loaded before (same absolute path) is not registered twice.
 *
 * @param file - the module's path, relative to `baseDir` (default: the current directory).
 * @returns the base names it registered.
 * @throws {@link RlAdvantagesError} `bad_module` when the file is a FIFO, a device, a folder or over 16 MiB (refused
 *   before the import, which would block or read without end), cannot be imported, or has no descriptor as its
 *   default export; `bad_descriptor` / `duplicate_estimator` (message prefixed with the file) for a bad descriptor.
 * @example
 * ```ts
 * await loadEstimatorModule('./median.mjs'); // ['median_baseline']
 * createEstimator('median_baseline');
 * ```
 */
export async function loadEstimatorModule(file: string, baseDir: string = process.cwd(), field = 'estimator_module'): Promise<readonly string[]> {
  if (typeof file !== 'string' || file === '') {
    throw new RlAdvantagesError(`${field} must be the path of an ES module, got ${JSON.stringify(file)}`, { code: 'bad_module', field });
  }
  const path = isAbsolute(file) ? file : resolve(baseDir, file);
  const done = LOADED.get(path);
  if (done !== undefined) return done;
  refuseSpecialModule(path, field);
  let module: { default?: unknown };
  try {
    module = (await import(pathToFileURL(path).href)) as { default?: unknown };
  } catch (error) {
    throw new RlAdvantagesError(`${field} ${path}: cannot import it: ${(error as Error).message}`, { code: 'bad_module', field });
  }
  const exported = module.default;
  const list = Array.isArray(exported) ? (exported as unknown[]) : [exported];
  if (exported === undefined || list.length === 0) {
    throw new RlAdvantagesError(`${field} ${path}: its default export must be an estimator descriptor or an array of them (export default { name, create, ... })`, {
      code: 'bad_module',
      field,
    });
  }
  const names: string[] = [];
  for (const [i, descriptor] of list.entries()) {
    try {
      registerEstimator(descriptor as UserEstimatorDescriptor);
    } catch (error) {
      if (!(error instanceof RlAdvantagesError)) throw error;
      const where = Array.isArray(exported) ? ` (default export [${i}])` : '';
      throw new RlAdvantagesError(`${field} ${path}${where}: ${error.message}`, { code: error.code, field: error.field ?? field, ...(error.index === undefined ? {} : { index: error.index }) });
    }
    names.push((descriptor as UserEstimatorDescriptor).name);
  }
  LOADED.set(path, Object.freeze(names));
  return LOADED.get(path) as readonly string[];
}

