// Reading a study spec for a CLI command: every problem is reported with the file, the line and the
// JSON path of the field.
import { GATE_METRIC_NAMES } from '../study/gate-metrics.js';
import { loadStudySpec, SPEC_FILE_MAX_BYTES, StudySpecError, type StudySpec } from '../study/spec.js';
import { didYouMean } from './suggest.js';
import { lineOfJsonPath } from './json-path-line.js';
import { inputError, lineOfPath, parseJson, readText } from './io.js';
import { CliUsageError, type CliIo } from './core.js';

export { SPEC_FILE_MAX_BYTES } from '../study/spec.js';

/**
 * Reads and validates `--spec FILE` (`loadStudySpec`).
 *
 * @throws {CliUsageError} `FILE:LINE: not valid JSON`, or `FILE: invalid study spec (k problems):`
 *   followed by one `FILE:LINE: PATH MESSAGE` line per problem.
 */
export async function readSpec(file: string, io: CliIo): Promise<StudySpec> {
  const text = await readText(file, io, '--spec', SPEC_FILE_MAX_BYTES);
  const json = parseJson(text, file);
  try {
    return loadStudySpec(json);
  } catch (error) {
    if (!(error instanceof StudySpecError)) throw error;
    if (error.problems.length === 1 && error.problems[0]?.path === '') {
      throw inputError(file, undefined, undefined, error.problems[0].message);
    }
    const count = error.problems.length === 1 ? '1 problem' : `${error.problems.length} problems`;
    const lines = error.problems.map((p) => {
      // Indices honoured (arms[1].name is on the second arm's line); lineOfPath's approximation where the walk finds none.
      const line = p.path === '' ? undefined : (lineOfJsonPath(text, p.path) ?? lineOfPath(text, p.path));
      return `  ${file}${line === undefined ? '' : `:${line}`}: field ${JSON.stringify(p.path)}: ${p.message}`;
    });
    throw new CliUsageError(`${file}: invalid study spec (${count}):\n${lines.join('\n')}`);
  }
}

/**
 * Refuses a spec whose activation gate checks a metric that `rl-adv gate-metrics` (and the study) never
 * computes: such a check could only ever be `missing`. The message names the metric, its line and the
 * closest known name.
 *
 * @throws {CliUsageError} `FILE:LINE: field "activation_gate.checks[i].metric": "X" is not a gate metric ...`.
 */
export async function refuseUnknownGateMetrics(file: string, spec: StudySpec, io: CliIo): Promise<void> {
  const known: readonly string[] = GATE_METRIC_NAMES;
  const index = spec.activationGate.checks.findIndex((c) => !known.includes(c.metric));
  if (index < 0) return;
  const metric = (spec.activationGate.checks[index] as { metric: string }).metric;
  const text = await readText(file, io, '--spec', SPEC_FILE_MAX_BYTES);
  const path = `activation_gate.checks[${index}].metric`;
  // The line of this check's "metric" key (lineOfPath would find the first check's).
  const from = Math.max(0, text.indexOf('"activation_gate"'));
  const at = text.slice(from).search(new RegExp(`"metric"\\s*:\\s*${JSON.stringify(metric).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
  throw inputError(
    file,
    at < 0 ? lineOfPath(text, path) : text.slice(0, from + at).split('\n').length,
    path,
    `${JSON.stringify(metric)} is not a gate metric rl-adv computes${didYouMean(metric, known)}; the gate metrics are ${known.join(', ')}`,
  );
}
