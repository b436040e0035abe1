// The study spec that ships with the package (specs/gs1-vs-grpo.json): what `rl-adv study` runs without --spec
// and what `rl-adv spec print` writes out.
import path from 'node:path';
import type { Option } from 'commander';
import { packageRoot } from '../internal/package-root.js';
import { inputOption } from './outputs.js';

/** The shipped spec's file name, as `specs/<name>` in the package. */
export const SHIPPED_SPEC = 'gs1-vs-grpo.json';

/** The absolute path of the shipped spec. */
export function shippedSpecPath(): string {
  return path.join(packageRoot(), 'specs', SHIPPED_SPEC);
}

/** `--spec FILE`, an input of the command whose default is the shipped spec (so no output can be written over either). */
export function specOption(description = `the study spec (JSON; default: the shipped specs/${SHIPPED_SPEC})`): Option {
  return inputOption('--spec <file>', description, (value) => [value as string], () => [shippedSpecPath()]);
}
