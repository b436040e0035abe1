// --estimator NAME or --estimator-json '{"name": ..., parameters in snake_case}': one estimator spec for a command.
import type { Command } from 'commander';
import { RlAdvantagesError } from '../errors.js';
import { specFromWire, wireMessage } from '../estimators/catalogue-json.js';
import { CliUsageError } from './core.js';
import { inputOption } from './outputs.js';
import type { CliEstimatorSpec } from './estimator.js';

/**
 * The kernel file an `--estimator-json` value reads, for the output guard: `{"name": "kernel:PATH"}` or
 * `{"name": "kernel_file", "path": PATH}`; none for anything else (bad JSON is reported by {@link estimatorSpecOf}).
 */
export function estimatorJsonFiles(value: unknown): string[] {
  let spec: unknown;
  try {
    spec = JSON.parse(String(value));
  } catch {
    return [];
  }
  if (typeof spec !== 'object' || spec === null) return [];
  const { name, path } = spec as { name?: unknown; path?: unknown };
  if (typeof name === 'string' && name.startsWith('kernel:')) return [name.slice('kernel:'.length)];
  return name === 'kernel_file' && typeof path === 'string' ? [path] : [];
}

/** Adds `--estimator-json <json>` (excludes `--estimator`); a kernel file it names is one of the command's inputs. */
export function addEstimatorJsonOption(command: Command): Command {
  return command.addOption(
    inputOption('--estimator-json <json>', 'the estimator as JSON, {"name": ..., parameters in snake_case} (instead of --estimator)', estimatorJsonFiles).conflicts(
      'estimator',
    ),
  );
}

/**
 * The estimator spec of `--estimator` or `--estimator-json` (one is required). A spec's keys become the library's
 * camelCase ones.
 *
 * @throws {CliUsageError} when neither or bad JSON is given.
 */
export function estimatorSpecOf(options: { estimator?: string; estimatorJson?: string }): CliEstimatorSpec {
  if (options.estimatorJson !== undefined) {
    let value: unknown;
    try {
      value = JSON.parse(options.estimatorJson);
    } catch (error) {
      throw new CliUsageError(`--estimator-json: not valid JSON (${(error as Error).message}); give e.g. '{"name": "tfidf_kernel_loo", "temperature": 0.1}'`);
    }
    try {
      return specFromWire(value, '--estimator-json');
    } catch (error) {
      if (error instanceof RlAdvantagesError) throw new CliUsageError(error.message.startsWith('--estimator-json') ? error.message : `--estimator-json: ${error.message}`);
      throw error;
    }
  }
  if (options.estimator === undefined) throw new CliUsageError("required option '--estimator <name>' (or --estimator-json <json>) not specified");
  return options.estimator;
}

/** The flag the user gave, for messages: `--estimator NAME` or `--estimator-json`. */
export function estimatorLabel(spec: CliEstimatorSpec): string {
  return typeof spec === 'string' ? `--estimator ${spec}` : '--estimator-json';
}

/** A library message in command-line words: parameter names in snake_case, as `rl-adv estimators` and `--estimator-json` write them. */
export function estimatorMessage(_spec: CliEstimatorSpec, message: string): string {
  return wireMessage(message);
}
