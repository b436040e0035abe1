// GSM8K for the benches, found as every rl-adv command finds it (src/data/ensure.ts): GSM8K_DIR, else the cache,
// else downloaded into the cache once unless RL_ADV_OFFLINE=1. When it cannot be had, the library's message (which
// says how to provide the data) and exit 2, never a stack trace.
import { join } from 'node:path';

/** The GSM8K folder; exits 2 with the how-to message when there is none. `root` is the repository root (dist/ built). */
export async function benchGsm8kDir(root) {
  const { RlAdvantagesError } = await import(join(root, 'dist', 'index.js'));
  const { ensureGsm8kDir } = await import(join(root, 'dist', 'data.js'));
  try {
    return await ensureGsm8kDir(undefined, { onNotice: (message) => process.stderr.write(`bench: ${message}\n`) });
  } catch (error) {
    if (!(error instanceof RlAdvantagesError)) throw error;
    process.stderr.write(`bench: the benchmark reads GSM8K. ${error.message}\n`);
    process.exit(2);
  }
}
