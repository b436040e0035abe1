// The search on one task set: the grid, then local refinement around the best few (docs/method.md section 4.3).
import type { BatchPlan } from './score.js';
import { BLOCK, planRatio, scoreEmbeddings } from './score.js';
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

/** Scores the grid (reporting its progress), then refines, on one set with one batch plan. */
export function search(
  grid: readonly Candidate[],
  set: TaskSet,
  plan: BatchPlan,
  context: ProtocolContext,
  progress: (done: number, total: number) => void = () => undefined,
): SearchResult {
  const seen = new Map<string, Scored>();
  const scored: Scored[] = [];
  // Scores the candidates not scored yet, BLOCK at a time, and returns every one's result.
  const score = (candidates: readonly Candidate[], report = false): Scored[] => {
    const keys = candidates.map(candidateKey);
    const taken = new Set<string>();
    const fresh = candidates.filter((_, i) => {
      const key = keys[i] as string;
      if (seen.has(key) || taken.has(key)) return false;
      taken.add(key);
      return true;
    });
    for (let at = 0; at < fresh.length; at += BLOCK) {
      const block = fresh.slice(at, at + BLOCK);
      const sse = scoreEmbeddings(plan, block.map((c) => protocolEmbedding(c, set, context)));
      block.forEach((candidate, c) => {
        const result = { candidate, score: planRatio(plan, sse[c] as number) };
        seen.set(candidateKey(candidate), result);
        scored.push(result);
      });
      if (report) progress(Math.min(at + BLOCK, fresh.length), fresh.length);
    }
    return keys.map((key) => seen.get(key) as Scored);
  };
  score(grid, true);
  const starts = [...scored].sort((a, b) => b.score - a.score).slice(0, REFINE_STARTS);
  for (const start of starts) {
    let current = start;
    for (let round = 0; round < REFINE_ROUNDS; round++) {
      let next = current;
      for (const s of score(neighbours(current.candidate))) {
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
