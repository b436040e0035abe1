// The study's bad-input error (exit 2 in the CLI): one helper so every refusal carries a code.
import { RlAdvantagesError } from '../errors.js';

/** A refused option or folder, as an RlAdvantagesError with `code` (default `bad_option`). */
export function usage(message: string, code = 'bad_option'): RlAdvantagesError {
  return new RlAdvantagesError(message, { code });
}
