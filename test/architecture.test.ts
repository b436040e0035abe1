// The layout's two rules (docs/architecture.md's order of rooms): no import circle among the files under src/, and
// no import from a lower room to a higher one. Imports are read with TypeScript's own pre-processor (comments and
// strings are not imports; `import type` counts: a circle over a type is still a circle).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { repoRoot } from './helpers/paths.js';

const SRC = path.join(repoRoot, 'src');

/**
 * Each room's rank: a file may import its own room and lower ranks only. Leaves first (internal/ and the package's
 * errors and version), then text, grading and data (data reads GSM8K and grades with grading/), the kernels, the
 * estimators built on them, calibration, the statistics, the tuner (it scores with the calibration), the study, its
 * report, and the command line. The entry files (the barrels and the executables) sit above everything.
 */
const RANK: Readonly<Record<string, number>> = {
  internal: 0,
  'errors.ts': 0,
  'version.ts': 0,
  text: 1,
  grading: 1,
  data: 2,
  kernels: 3,
  estimators: 4,
  calibration: 5,
  stats: 6,
  tuning: 7,
  study: 8,
  report: 9,
  cli: 10,
};
const ENTRY_RANK = 11;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return full.endsWith('.ts') ? [full] : [];
  });
}

/** The room of a file: its first folder under src/, or its own name for a file directly in src/. */
function room(file: string): string {
  return path.relative(SRC, file).split(path.sep)[0] as string;
}

function rank(file: string): number {
  const r = RANK[room(file)];
  if (r !== undefined) return r;
  if (path.dirname(file) === SRC) return ENTRY_RANK;
  throw new Error(`${path.relative(repoRoot, file)}: room ${room(file)} has no rank in test/architecture.test.ts`);
}

/** The files under src/ a file imports (relative imports, .js resolved to .ts). */
function imports(file: string): string[] {
  const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, false);
  return importedFiles
    .map((f) => f.fileName)
    .filter((name) => name.startsWith('.'))
    .map((name) => path.resolve(path.dirname(file), name.replace(/\.js$/, '.ts')));
}

const files = sourceFiles(SRC);
const graph = new Map(files.map((f) => [f, imports(f)]));

/** The strongly connected components with more than one file, or a file importing itself (Tarjan). */
function circles(): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v) as number, index.get(w) as number));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop() as string;
        on.delete(w);
        component.push(path.relative(SRC, w));
      } while (w !== v);
      if (component.length > 1 || (graph.get(v) ?? []).includes(v)) out.push(component.sort());
    }
  };
  for (const f of files) if (!index.has(f)) visit(f);
  return out;
}

describe('the import graph of src/', () => {
  it('reads the files and their imports (the test itself can see an arrow)', () => {
    expect(files.length).toBeGreaterThan(100);
    expect(graph.get(path.join(SRC, 'cli', 'program.ts'))?.length).toBeGreaterThan(0);
  });

  it('every relative import names a file that exists', () => {
    const missing = [...graph].flatMap(([f, targets]) => targets.filter((t) => !graph.has(t)).map((t) => `${path.relative(SRC, f)} -> ${path.relative(SRC, t)}`));
    expect(missing).toEqual([]);
  });

  it('has no import circle', () => {
    expect(circles()).toEqual([]);
  });

  it('has no arrow from a lower room to a higher one', () => {
    const upward = [...graph].flatMap(([f, targets]) =>
      targets.filter((t) => graph.has(t) && rank(t) > rank(f)).map((t) => `${path.relative(SRC, f)} (${room(f)}) -> ${path.relative(SRC, t)} (${room(t)})`),
    );
    expect(upward).toEqual([]);
  });
});
