// Reading a study spec for a CLI command: every problem is reported with the file, the line and the
// JSON path of the field.
import { loadStudySpec, StudySpecError, type StudySpec } from '../study/spec.js';
import { inputError, lineOfPath, parseJson, readText } from './io.js';
import { CliUsageError, type CliIo } from './core.js';

/**
 * Reads and validates `--spec FILE` (`loadStudySpec`).
 *
 * @throws {CliUsageError} `FILE:LINE: not valid JSON`, or `FILE: invalid study spec (k problems):`
 *   followed by one `FILE:LINE: PATH MESSAGE` line per problem.
 */
export async function readSpec(file: string, io: CliIo): Promise<StudySpec> {
  const text = await readText(file, io, '--spec');
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
      const line = p.path === '' ? undefined : lineOfPath(text, p.path);
      return `  ${file}${line === undefined ? '' : `:${line}`}: field ${JSON.stringify(p.path)}: ${p.message}`;
    });
    throw new CliUsageError(`${file}: invalid study spec (${count}):\n${lines.join('\n')}`);
  }
}
