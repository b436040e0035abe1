#!/usr/bin/env node
// The kernel lab on the published GSM8K labels (docs/kernel-lab.md): one calibration input per published system
// from $GSM8K_DIR/example_model_solutions.jsonl (single-rollout mode: reward = is_correct), split into halves A and
// B by a seeded shuffle of the 1319 test questions.
//   node validation/kernel-lab.mjs make --out-dir DIR [--split-seed 0] [--shuffle-seed S]
//       writes DIR/<system>.a.jsonl and DIR/<system>.b.jsonl for the four systems; with --shuffle-seed the rewards
//       are shuffled across the tasks of each half (no structure left: the null check)
//   node validation/kernel-lab.mjs run --out-dir DIR [--shuffle-seed S] [--batches N] [--families LIST]
//       makes the halves, then per system: rl-adv tune-kernel on A, rl-adv calibrate
//       --estimators loo_batch_mean,kernel:KERNEL on B; prints one row per system and writes DIR/results.json
// GSM8K is never committed: $GSM8K_DIR or ../shared/data/gsm8k.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import seedrandom from 'seedrandom';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SYSTEMS = ['6b_finetuning', '6b_verification', '175b_finetuning', '175b_verification'];
const args = process.argv.slice(2);
const command = args[0];
const flag = (name, fallback) => {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : fallback;
};
const outDir = flag('--out-dir');
if (!['make', 'run'].includes(command) || outDir === undefined) {
  console.error('usage: node validation/kernel-lab.mjs make|run --out-dir DIR [--split-seed 0] [--shuffle-seed S] [--batches N] [--families LIST]');
  process.exit(2);
}
const gsm8kDir = process.env.GSM8K_DIR ?? resolve(root, '../shared/data/gsm8k');
const source = join(gsm8kDir, 'example_model_solutions.jsonl');
if (!existsSync(source)) {
  console.error(`kernel-lab: ${source} not found: set GSM8K_DIR`);
  process.exit(2);
}

function shuffle(values, rng) {
  for (let i = values.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    [values[i], values[j]] = [values[j], values[i]];
  }
  return values;
}

function make() {
  mkdirSync(outDir, { recursive: true });
  const items = readFileSync(source, 'utf8').trim().split('\n').map((line) => JSON.parse(line));
  const order = shuffle(items.map((_, i) => i), seedrandom(`kernel-lab/split/${flag('--split-seed', '0')}`));
  const half = Math.ceil(order.length / 2);
  const halves = { a: order.slice(0, half).sort((x, y) => x - y), b: order.slice(half).sort((x, y) => x - y) };
  const shuffleSeed = flag('--shuffle-seed');
  const files = {};
  for (const system of SYSTEMS) {
    for (const [name, indices] of Object.entries(halves)) {
      let rewards = indices.map((i) => (items[i][system].is_correct ? 1 : 0));
      if (shuffleSeed !== undefined) rewards = shuffle(rewards, seedrandom(`kernel-lab/shuffle/${shuffleSeed}/${system}/${name}`));
      const rows = indices.map((i, r) => JSON.stringify({ task_id: `gsm8k_test_${i}`, prompt: items[i].question, reward: rewards[r] }));
      const file = join(outDir, `${system}.${name}.jsonl`);
      writeFileSync(file, rows.join('\n') + '\n');
      files[`${system}.${name}`] = file;
    }
  }
  return files;
}

function rlAdv(argv) {
  const started = performance.now();
  const result = spawnSync(process.execPath, [join(root, 'dist/cli.js'), ...argv], { encoding: 'utf8', maxBuffer: 1 << 28 });
  if (result.status !== 0) {
    console.error(result.stderr);
    process.exit(1);
  }
  return { json: JSON.parse(result.stdout), seconds: (performance.now() - started) / 1000 };
}

const files = make();
if (command === 'make') {
  console.log(Object.values(files).join('\n'));
  process.exit(0);
}
const batches = flag('--batches', '10000');
const families = flag('--families');
const results = [];
for (const system of SYSTEMS) {
  const kernel = join(outDir, `${system}.kernel.json`);
  const tuned = rlAdv([
    'tune-kernel', '--input', files[`${system}.a`], '--out', kernel, '--force', '--json', '--batches', batches,
    ...(families === undefined ? [] : ['--families', families]),
  ]);
  const measured = rlAdv(['calibrate', '--input', files[`${system}.b`], '--estimators', `loo_batch_mean,kernel:${kernel}`, '--batches', '20000', '--json']);
  const other = Object.entries(measured.json.estimators).find(([name]) => name.startsWith('kernel:'))[1];
  const h = tuned.json.held_out;
  const row = {
    system,
    family: tuned.json.kernel.family,
    tuning: tuned.json.tuning,
    held_out: h.ratio,
    held_out_ci95: h.ratio_ci95,
    selection_bias: tuned.json.selection_bias,
    candidates: tuned.json.candidates,
    other_half: other.ratio,
    other_half_ci95: other.ratio_ci95,
    within_interval: h.ratio_ci95 !== null && other.ratio >= h.ratio_ci95[0] && other.ratio <= h.ratio_ci95[1],
    tune_seconds: tuned.seconds,
  };
  results.push(row);
  const f = (x) => x.toFixed(3);
  console.log(
    `${system.padEnd(18)} ${row.family.padEnd(12)} tuning ${f(row.tuning)}  held out ${f(row.held_out)} [${row.held_out_ci95.map(f).join(', ')}]  ` +
      `other half ${f(row.other_half)} [${row.other_half_ci95.map(f).join(', ')}]  within ${row.within_interval}  ${row.tune_seconds.toFixed(1)} s`,
  );
}
writeFileSync(join(outDir, 'results.json'), JSON.stringify({ shuffle_seed: flag('--shuffle-seed') ?? null, batches: Number(batches), results }, null, 2) + '\n');
