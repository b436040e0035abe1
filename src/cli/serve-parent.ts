// rl-adv serve --exit-with-parent: a computation blocks serve's event loop, so the end of its input is seen only
// after it; a watcher thread ends the process as soon as its parent is gone (the process is re-parented).
import { Worker } from 'node:worker_threads';

/** How often the watcher looks, in milliseconds. */
export const PARENT_POLL_MS = 100;

// Plain JavaScript run by the worker (eval): no file to bundle beside the CLI.
const WATCHER = `
const { workerData } = require('node:worker_threads');
setInterval(() => {
  if (process.ppid !== workerData.parent) process.kill(process.pid, 'SIGKILL');
}, workerData.every);
`;

/**
 * Starts a thread that kills this process when its parent process ends (its parent pid changes), even while the
 * main thread computes. Linux and macOS; elsewhere (Windows keeps the parent pid) it never fires.
 *
 * @returns the watcher, unref'd (it never keeps the process alive).
 * @example
 * watchParent(); // in rl-adv serve --exit-with-parent
 */
export function watchParent(): Worker {
  const worker = new Worker(WATCHER, { eval: true, workerData: { parent: process.ppid, every: PARENT_POLL_MS } });
  worker.unref();
  return worker;
}
