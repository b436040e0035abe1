// The one warning the CLI gives about the kernel's worker threads: when they were wanted and could
// not start (or failed), say so once on stderr. Results do not change (they are bit-identical on
// any number of threads), only speed, so it is a warning and the exit code stays as it was.
// The library never prints; it exposes kernelThreadState(), which this polls while a command runs
// (a worker's failure arrives as an event, so a long `rl-adv serve` is checked every second).
import { kernelThreadState } from '../kernels/kernel-threads.js';

const POLL_MS = 1000;

/** Checks the kernel's threads while a command runs; `stop()` checks a last time. */
export class ThreadsWarning {
  readonly #stderr: NodeJS.WritableStream;
  #warned = false;
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(stderr: NodeJS.WritableStream) {
    this.#stderr = stderr;
  }

  /**
   * Starts watching. Reads RL_ADV_THREADS first, so a bad value stops the command before it runs.
   *
   * @throws RlAdvantagesError when RL_ADV_THREADS is not a positive integer.
   */
  start(): void {
    kernelThreadState();
    this.#timer ??= setInterval(() => this.check(), POLL_MS);
    this.#timer.unref();
  }

  /** Prints the warning if workers were wanted and are not running, at most once. */
  check(): void {
    if (this.#warned) return;
    let state;
    try {
      state = kernelThreadState();
    } catch {
      return; // a bad RL_ADV_THREADS is reported by start(), as an error
    }
    if (state.reason === null) return;
    this.#warned = true;
    this.#stderr.write(
      `rl-adv: warning: the TF-IDF kernel runs on ${state.started} of ${state.wanted} threads (${state.reason}); ` +
        'results are the same, only slower. Set RL_ADV_THREADS=1 to run on one thread without this warning.\n',
    );
  }

  stop(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
    this.check();
  }
}
