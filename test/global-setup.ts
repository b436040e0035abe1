// Runs once before any test file: finds GSM8K through the library's own resolution (GSM8K_DIR, else the cache,
// downloading it there on first use) and hands the folder to every worker as GSM8K_DIR. Without the data the run
// stops here, once, with the message that says how to provide it, instead of one ENOENT per test.
import { ensureGsm8kDir } from '../src/data/ensure.js';

export default async function setup(): Promise<void> {
  let dir: string;
  try {
    dir = await ensureGsm8kDir(undefined, { onNotice: (message) => process.stderr.write(`rl-advantages tests: ${message}\n`) });
  } catch (error) {
    const failure = new Error(`the tests need GSM8K. ${(error as Error).message}`);
    failure.stack = failure.message; // one message, no trace
    throw failure;
  }
  process.env.GSM8K_DIR = dir;
}
