// What importing the package costs: for the root (`rl-advantages`, what a training loop imports) and each subpath,
// the bytes of dist/ files its static import graph reaches, the packages it loads, and the wall time of
// `await import()` in a fresh node process (median of RUNS), beside importing every subpath at once (the surface
// the root alone exported before it was cut by concern). Run after `npm run build`:
//   node bench/import-root.mjs [RUNS]
// docs/performance.md ("Importing the package") records its figures.
import { execFileSync } from 'node:child_process';
import { builtinModules } from 'node:module';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');
const RUNS = Number(process.argv[2] ?? 15);
const SUBPATHS = ['index', 'calibration', 'stats', 'tuning', 'study', 'report', 'data'];

/** The dist files and the packages reached from `entries` by static imports (ESM build). */
function graph(entries) {
  const files = new Set();
  const packages = new Set();
  const visit = (file) => {
    if (files.has(file)) return;
    files.add(file);
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/(?:^|[;\n])\s*(?:import|export)\s*(?:[^'";]*?\sfrom\s*)?["']([^"']+)["']/g)) {
      const spec = m[1];
      if (spec.startsWith('.')) visit(path.resolve(path.dirname(file), spec));
      else if (!spec.startsWith('node:') && !builtinModules.includes(spec.split('/')[0])) packages.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]);
    }
  };
  for (const e of entries) visit(path.join(dist, `${e}.js`));
  return { bytes: [...files].reduce((s, f) => s + statSync(f).size, 0), files: files.size, packages: [...packages].sort() };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * Median wall time and CPU time (user + system, ms) of importing `entries` in a fresh node process. The CPU time
 * moves less than the wall time on a machine other work shares.
 */
function importTime(entries) {
  const urls = entries.map((e) => new URL(`file://${path.join(dist, `${e}.js`)}`).href);
  const script =
    `const c = process.cpuUsage(); const t = performance.now(); for (const u of ${JSON.stringify(urls)}) await import(u);` +
    ' const w = performance.now() - t; const d = process.cpuUsage(c); console.log(w, (d.user + d.system) / 1000);';
  const wall = [];
  const cpu = [];
  for (let i = 0; i < RUNS; i++) {
    const [w, c] = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }).trim().split(' ').map(Number);
    wall.push(w);
    cpu.push(c);
  }
  return { wall: median(wall), cpu: median(cpu) };
}

const rows = [...SUBPATHS.map((s) => [s === 'index' ? 'rl-advantages' : `rl-advantages/${s}`, [s]]), ['every subpath at once', SUBPATHS]];
console.log(`node ${process.version}, ${RUNS} fresh processes each, median import time (wall, CPU)`);
for (const [name, entries] of rows) {
  const g = graph(entries);
  const t = importTime(entries);
  const size = `${(g.bytes / 1024).toFixed(1).padStart(6)} KB in ${String(g.files).padStart(2)} files`;
  console.log(`${name.padEnd(24)} ${size}  ${t.wall.toFixed(1).padStart(6)} ms wall ${t.cpu.toFixed(1).padStart(6)} ms CPU  packages: ${g.packages.join(', ') || '-'}`);
}
