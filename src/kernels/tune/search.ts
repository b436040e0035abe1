// The search on one task set: the grid, then local refinement around the best few (docs/method.md section 4.3).
import type { BatchPlan } from './score.js';
import { planRatio, scoreEmbedding } from './score.js';
import { candidateKey, neighbours, type Candidate } from './grid.js';
import { protocolEmbedding, type ProtocolContext, type TaskSet } from './protocol.js';

/** Refinement starts from this many of the best grid candidates. */
export const REFINE_STARTS = 3;
/** At most this many refinement rounds per start. */
export const REFINE_ROUNDS = 4;

/** A scored candidate. */
export interface Scored {
  readonly candidate: Candidate;
  /** The ratio against loo_batch_mean on the set's batches. */
  readonly score: number;
}

/** What a search returns. */
export interface SearchResult {
  /** Every candidate scored, in the order scored. */
  readonly scored: readonly Scored[];
  /** The highest score (the first in order on ties). */
  readonly best: Scored;
  /** The best candidate of each family, by family. */
  readonly bestByFamily: ReadonlyMap<string, Scored>;
  /** Candidate-batches scored (candidates x batches). */
  readonly candidateBatches: number;
}

/** Scores the grid, then refines, on one set with one batch plan. */
export function search(
  grid: readonly Candidate[],
  set: TaskSet,
  plan: BatchPlan,
  context: ProtocolContext,
  progress: (done: number, total: number) => void = () => undefined,
): SearchResult {
  const seen = new Map<string, Scored>();
  const scored: Scored[] = [];
  const score = (candidate: Candidate): Scored => {
    const key = candidateKey(candidate);
    const known = seen.get(key);
    if (known !== undefined) return known;
    const result = { candidate, score: planRatio(plan, scoreEmbedding(plan, protocolEmbedding(candidate, set, context))) };
    seen.set(key, result);
    scored.push(result);
    return result;
  };
  grid.forEach((c, i) => {
    score(c);
    progress(i + 1, grid.length);
  });
  const starts = [...scored].sort((a, b) => b.score - a.score).slice(0, REFINE_STARTS);
  for (const start of starts) {
    let current = start;
    for (let round = 0; round < REFINE_ROUNDS; round++) {
      let next = current;
      for (const n of neighbours(current.candidate)) {
        const s = score(n);
        if (s.score > next.score) next = s;
      }
      if (next === current) break;
      current = next;
    }
  }
  let best = scored[0] as Scored;
  const bestByFamily = new Map<string, Scored>();
  for (const s of scored) {
    if (s.score > best.score) best = s;
    const f = bestByFamily.get(s.candidate.family);
    if (f === undefined || s.score > f.score) bestByFamily.set(s.candidate.family, s);
  }
  return { scored, best, bestByFamily, candidateBatches: scored.length * plan.batches };
}
