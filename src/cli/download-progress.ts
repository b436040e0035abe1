// What a command prints while GSM8K is fetched: a progress bar per file on a terminal, one line per verified
// file otherwise; notices and warnings as `rl-adv: ...` lines on stderr.
import cliProgress from 'cli-progress';
import type { EnsureGsm8kOptions } from '../data/ensure.js';
import type { CliIo } from './core.js';

/** Callbacks for `ensureGsm8kDir`, `downloadGsm8k` and `copyGsm8k` that report on `io.stderr`. */
export function downloadReporter(io: CliIo, prefix = 'rl-adv'): Required<EnsureGsm8kOptions> & { stop(): void } {
  const tty = (io.stderr as { isTTY?: boolean }).isTTY === true;
  let bar: cliProgress.SingleBar | undefined;
  let barFile = '';
  return {
    onNotice: (message) => io.stderr.write(`${prefix}: ${message}\n`),
    onWarning: (message) => io.stderr.write(`${prefix}: warning: ${message}\n`),
    onProgress: ({ file, received, total }) => {
      if (!tty || total === undefined) return;
      if (bar === undefined || barFile !== file) {
        bar?.stop();
        barFile = file;
        bar = new cliProgress.SingleBar(
          { stream: io.stderr, format: `${file} [{bar}] {percentage}% {value}/{total} bytes`, hideCursor: true, clearOnComplete: true },
          cliProgress.Presets.shades_classic,
        );
        bar.start(total, 0);
      }
      bar.update(received);
    },
    onFile: ({ name, bytes, sha256 }) => {
      bar?.stop();
      bar = undefined;
      io.stderr.write(`${prefix}: ${name}: ${bytes} bytes, sha256 ${sha256} (verified)\n`);
    },
    /** Removes a bar left by a download that failed midway. */
    stop: () => {
      bar?.stop();
      bar = undefined;
    },
  };
}
