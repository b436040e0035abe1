// Extraction of the final `\boxed{...}` answer from a model response (docs/method.md section 7).

const BOX_OPENER = '\\boxed{';

/**
 * Returns the content of the last `\boxed{...}` in `response`, braces balanced, or `null` when
 * the response holds no complete box.
 *
 * Rules (the tinker cookbook's `extract_boxed` where sensible; every rule is pinned by a case in
 * `test/fixtures/grading-cases.jsonl`, which the Python twin reads too):
 * - A box opens at the exact text `\boxed{`. `\boxed {18}` (a space before the brace) is not a box,
 *   as in the cookbook. Unlike the cookbook there is no brace-less fallback (`\boxed 18` is not a
 *   box): docs/method.md defines the answer as the content of `\boxed{...}`.
 * - Braces are matched with a stack; every `{` and `}` counts, including `\{` and `\}`, so nested
 *   groups such as `\boxed{\frac{3}{4}}` come back whole.
 * - "Last" is the box whose closing brace comes last (the cookbook's order). For nested boxes,
 *   `\boxed{\boxed{3}}`, that is the outer one, so the answer is `\boxed{3}` (which then does not
 *   parse as a number).
 * - A box whose brace never closes is ignored; an earlier complete box still counts, so in
 *   `\boxed{12} ... \boxed{13` the answer is `12`.
 * - A stray `}` with no open brace is ignored. (The cookbook raises "Unmatched }" and so finds no
 *   box at all; we keep the box, because a stray brace in the working says nothing about the answer.)
 * - `\boxed{}` is a box with empty content `""`: the response is well formatted but cannot be correct.
 *
 * Reference: docs/method.md section 7; tinker-cookbook `tinker_cookbook/recipes/math_rl/math_grading.py`.
 *
 * @param response - The decoded model response.
 * @returns The box content verbatim (not trimmed or normalised), or `null` when there is no box.
 * @throws RlAdvantagesError never; a non-string `response` is a type error the compiler catches.
 * @example
 * ```ts
 * import { extractBoxed } from 'rl-advantages/data';
 * extractBoxed('So 3/4 of it: \\boxed{\\frac{3}{4}}'); // '\\frac{3}{4}'
 * extractBoxed('first \\boxed{1}, then \\boxed{2}'); // '2'
 * extractBoxed('no box here'); // null
 * ```
 */
export function extractBoxed(response: string): string | null {
  const openStack: number[] = [];
  let lastContent: string | null = null;
  for (let i = 0; i < response.length; i++) {
    const ch = response.charCodeAt(i);
    if (ch === 0x7b /* { */) {
      openStack.push(i);
    } else if (ch === 0x7d /* } */) {
      const open = openStack.pop();
      if (open === undefined) continue; // stray closing brace: ignored (see the rules above)
      if (isBoxOpener(response, open)) lastContent = response.slice(open + 1, i);
    }
  }
  return lastContent;
}

/** True when the `{` at `braceIndex` is the brace of a `\boxed{` opener. */
function isBoxOpener(text: string, braceIndex: number): boolean {
  const start = braceIndex + 1 - BOX_OPENER.length;
  return start >= 0 && text.startsWith(BOX_OPENER, start);
}
