// "Did you mean ...?": the known name closest to a misspelt one, for messages about unknown names (library, CLI, serve).

/** Levenshtein distance (insertions, deletions and substitutions each cost 1). */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitute = (previous[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min(substitute, (previous[j] as number) + 1, (current[j - 1] as number) + 1));
    }
    previous = current;
  }
  return previous[b.length] as number;
}

/**
 * The known name closest to `name` by edit distance (the first of equals, in `known` order), or
 * undefined when `known` is empty or the closest one differs in more than half of `name`'s characters
 * (a suggestion that far off would mislead).
 */
export function closestName(name: string, known: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of known) {
    const d = editDistance(name, candidate);
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return bestDistance <= Math.max(2, Math.ceil(name.length / 2)) ? best : undefined;
}

/** ` (did you mean "X"?)` when a close known name exists, else the empty string. */
export function didYouMean(name: string, known: Iterable<string>): string {
  const best = closestName(name, known);
  return best === undefined ? '' : ` (did you mean ${JSON.stringify(best)}?)`;
}
