// The kernel worker thread (a separate build entry, dist/kernel-worker.js): runs blocks of posted
// kernel jobs (kernel-job.ts) until none is left, then waits for the next job.
import { parentPort } from 'node:worker_threads';
import { FAILED, runClaimedBlocks, viewJob, type KernelJob } from './kernel-job.js';

let row = new Float64Array(0);
parentPort?.on('message', (job: KernelJob) => {
  const views = viewJob(job);
  try {
    if (row.length < job.units) row = new Float64Array(job.units);
    else row.fill(0);
    runClaimedBlocks(job, views, row);
  } catch {
    // The main thread recomputes the job alone (same bits); it must never wait forever.
    Atomics.store(views.control, FAILED, 1);
    Atomics.notify(views.control, 1);
  }
});
