// The study's job scheduler: the limit, results in job order, and a failure that keeps finished work.
import { describe, expect, it } from 'vitest';
import { runJobs } from '../../src/study/jobs.js';
import { RlAdvantagesError } from '../../src/errors.js';

const tick = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('runJobs', () => {
  it('never runs more than the limit at once and returns results in job order, whatever finishes first', async () => {
    let running = 0;
    let most = 0;
    const delays = [30, 5, 20, 1, 10];
    const jobs = delays.map((ms, i) => ({
      label: `job ${i}`,
      run: async () => {
        running++;
        most = Math.max(most, running);
        await tick(ms);
        running--;
        return i;
      },
    }));
    for (const limit of [1, 2, 3]) {
      most = 0;
      expect(await runJobs(jobs, limit)).toEqual([0, 1, 2, 3, 4]);
      expect(most).toBe(limit);
    }
  });

  it('on a failure starts no new job, lets running ones finish, and throws the first failure in job order', async () => {
    const finished: number[] = [];
    const events: string[] = [];
    const jobs = [0, 1, 2, 3].map((i) => ({
      label: `j${i}`,
      run: async () => {
        await tick(i === 0 ? 20 : 1);
        if (i === 1) throw new Error('job 1 failed');
        finished.push(i);
        return i;
      },
    }));
    await expect(runJobs(jobs, 2, (e) => events.push(`${e.kind} ${e.label}`))).rejects.toThrow('job 1 failed');
    expect(finished).toEqual([0]);
    expect(events).toEqual(['start j0', 'start j1', 'failed j1', 'done j0']);
  });

  it('refuses a limit below 1 or not an integer, naming --jobs', async () => {
    for (const limit of [0, -1, 1.5, Number.NaN]) {
      const error = await runJobs([], limit).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RlAdvantagesError);
      expect((error as RlAdvantagesError).field).toBe('jobs');
      expect((error as Error).message).toContain('--jobs must be an integer >= 1');
    }
  });
});
