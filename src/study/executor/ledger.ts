// The job ledger RUN/jobs.jsonl: one line per attempt of a job, appended durably by the scheduler when the attempt
// ends (docs/study.md, "The job ledger"). It records where and when each attempt ran, never what it computed: it is
// not one of the compared artifacts, and the report draws its timeline from it.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { appendDurable } from '../../internal/durable-write.js';
import type { JobDescription, JobPlacement } from './types.js';

/** The ledger's file in a run folder. */
export const LEDGER_FILE = 'jobs.jsonl';

/** How an attempt ended. */
export type AttemptOutcome = 'done' | 'lost' | 'failed' | 'cancelled';

/** One line of RUN/jobs.jsonl. */
export interface LedgerLine {
  readonly job: string;
  readonly kind: JobDescription['kind'];
  readonly arm: string | null;
  readonly seed: number | null;
  readonly node: string | null;
  readonly gpu_ids: readonly string[];
  readonly attempt: number;
  /** ISO times. */
  readonly start: string;
  readonly end: string;
  readonly outcome: AttemptOutcome;
  readonly executor: 'local' | 'ray';
}

/**
 * Appends one attempt's line to RUN/jobs.jsonl (fsynced; a cut-short write is undone).
 *
 * @throws {RlAdvantagesIoError} naming the ledger when the disk refuses the line.
 * @example
 * ```ts
 * appendLedger('/runs/a', { job: 'preflight', kind: 'preflight', arm: null, seed: null, node: 'h1', gpu_ids: [], attempt: 1, start, end, outcome: 'done', executor: 'local' });
 * ```
 */
export function appendLedger(runDir: string, line: LedgerLine): void {
  appendDurable(path.join(runDir, LEDGER_FILE), JSON.stringify(line) + '\n');
}

/**
 * The ledger line of an attempt that ended with `outcome` (placement unknown for an attempt that never started).
 *
 * @example
 * ```ts
 * ledgerLine(job, 1, { start, end }, 'done', 'local', { node: 'vm', gpuIds: [] }).outcome; // 'done'
 * ```
 */
export function ledgerLine(
  job: JobDescription,
  attempt: number,
  times: { start: Date; end: Date },
  outcome: AttemptOutcome,
  executor: 'local' | 'ray',
  placement: JobPlacement | undefined,
): LedgerLine {
  return {
    job: job.id,
    kind: job.kind,
    arm: job.arm ?? null,
    seed: job.seed ?? null,
    node: placement?.node ?? null,
    gpu_ids: [...(placement?.gpuIds ?? [])],
    attempt,
    start: times.start.toISOString(),
    end: times.end.toISOString(),
    outcome,
    executor,
  };
}

/**
 * The ledger's lines (none when there is no ledger); a torn or foreign line is skipped, since the ledger is a record
 * of wall times, never an input to a result.
 *
 * @example
 * ```ts
 * const attempts = readLedger('/runs/a'); // [{ job: 'preflight', outcome: 'done', ... }, ...]
 * ```
 */
export function readLedger(runDir: string): LedgerLine[] {
  const file = path.join(runDir, LEDGER_FILE);
  if (!existsSync(file)) return [];
  const lines: LedgerLine[] = [];
  for (const text of readFileSync(file, 'utf8').split('\n')) {
    if (text.trim() === '') continue;
    try {
      const row = JSON.parse(text) as LedgerLine;
      if (typeof row.job === 'string' && typeof row.start === 'string' && typeof row.end === 'string') lines.push(row);
    } catch {
      // skipped: see above
    }
  }
  return lines;
}
