// The line of a field named by a JSON path with indices (`arms[1].name`, `decision_rule.comparisons[3]`) in JSON text:
// the text is walked as JSON, so the second arm's name is found on its own line, not on the first arm's.

type Segment = string | number;

/** `a.b[2].c` as segments, or undefined when the path cannot be split unambiguously (a key holding `.` or `[`). */
function segments(path: string): Segment[] | undefined {
  const out: Segment[] = [];
  for (const part of path.split('.')) {
    const m = /^([^[\]]*)((?:\[\d+\])*)$/.exec(part);
    if (m === null) return undefined;
    if (m[1] !== '') out.push(m[1] as string);
    for (const index of (m[2] as string).matchAll(/\[(\d+)\]/g)) out.push(Number(index[1]));
  }
  return out;
}

/** A walker over valid JSON text, counting lines, that notes the line where each value of `target`'s prefixes starts. */
class Walker {
  private i = 0;
  private line = 1;
  /** lines[k]: the line of the value at target's first k segments (the key's line for an object member). */
  readonly lines: (number | undefined)[] = [];

  constructor(
    private readonly text: string,
    private readonly target: readonly Segment[],
  ) {}

  private space(): void {
    for (; this.i < this.text.length; this.i++) {
      const c = this.text.charCodeAt(this.i);
      if (c === 10) this.line++;
      else if (c !== 32 && c !== 9 && c !== 13) return;
    }
  }

  private string(): string {
    const start = this.i;
    for (this.i++; this.i < this.text.length; this.i++) {
      const c = this.text[this.i];
      if (c === '\\') this.i++;
      else if (c === '"') break;
    }
    this.i++;
    return JSON.parse(this.text.slice(start, this.i)) as string;
  }

  /** Walks one value; `depth` is how many segments of the target its path matches (-1: off the target's path). */
  value(depth: number, line = this.line): void {
    this.space();
    if (depth >= 0) this.lines[depth] = line;
    const c = this.text[this.i];
    if (c === '{') this.object(depth);
    else if (c === '[') this.array(depth);
    else if (c === '"') this.string();
    else while (this.i < this.text.length && !/[\s,\]}]/.test(this.text[this.i] as string)) this.i++;
  }

  private next(depth: number, segment: Segment): number {
    return depth >= 0 && depth < this.target.length && this.target[depth] === segment ? depth + 1 : -1;
  }

  private object(depth: number): void {
    this.i++;
    this.space();
    while (this.text[this.i] !== '}' && this.i < this.text.length) {
      const line = this.line;
      const key = this.string();
      this.space();
      this.i++; // ':'
      this.value(this.next(depth, key), line);
      this.space();
      if (this.text[this.i] === ',') this.i++;
      this.space();
    }
    this.i++;
  }

  private array(depth: number): void {
    this.i++;
    this.space();
    for (let k = 0; this.text[this.i] !== ']' && this.i < this.text.length; k++) {
      this.value(this.next(depth, k));
      this.space();
      if (this.text[this.i] === ',') this.i++;
      this.space();
    }
    this.i++;
  }
}

/**
 * The 1-based line of the field at `path` (`arms[1].name`) in the JSON `text`, indices honoured: the line of its key
 * (an object member) or of its value (an array element). A field that is absent gives the line of the nearest
 * enclosing one that is present (a missing `margin`: its comparison's line). Undefined when the path cannot be
 * split unambiguously, the text does not walk as JSON, or nothing below the top level matches.
 *
 * @example
 * ```ts
 * lineOfJsonPath('{"arms": [\n{"name": "a"},\n{"name": "b"}\n]}', 'arms[1].name'); // 3
 * ```
 */
export function lineOfJsonPath(text: string, path: string): number | undefined {
  const target = segments(path);
  if (target === undefined || target.length === 0) return undefined;
  const walker = new Walker(text, target);
  try {
    walker.value(0);
  } catch {
    return undefined;
  }
  for (let k = target.length; k >= 1; k--) if (walker.lines[k] !== undefined) return walker.lines[k];
  return undefined;
}
