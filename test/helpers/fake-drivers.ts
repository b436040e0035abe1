// Fake Tinker drivers for the study tests: scripts with the real drivers' command lines that write what the real
// ones would, without Tinker. sample_calibration.py's tuning mode (--first) uses the real driver's task selection.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from './paths.js';

/** The real drivers' folder (the fake tuning mode imports its task selection). */
const EXAMPLES_DIR = path.join(repoRoot, 'examples', 'tinker-cookbook');

/**
 * Fake drivers with the real drivers' command lines: they write the artifacts the real ones would (calibration rows
 * whose rewards follow each question's family, so the kernel helps; logs that meet the gate; eval rows).
 */
export function writeFakeDrivers(dir: string): string {
  mkdirSync(dir, { recursive: true });
  const header = `import argparse, json, os, sys
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "calls.log"), "a") as f:
    f.write(os.path.basename(sys.argv[0]) + " " + " ".join(sys.argv[1:]) + "\\n")
p = argparse.ArgumentParser()
for name in ["--spec", "--out", "--data-dir", "--arm", "--log-path", "--checkpoint", "--exclude-rows"]:
    p.add_argument(name)
for name in ["--steps", "--limit", "--tasks", "--rollouts", "--seed", "--first", "--curve-items", "--curve-every"]:
    p.add_argument(name, type=int)
p.add_argument("--overwrite", action="store_true")
p.add_argument("--resume", action="store_true")
a = p.parse_args()
`;
  writeFileSync(
    path.join(dir, 'preflight.py'),
    header + `json.dump({"passed": True, "checks": {"reference_advantages": {"passed": True}}}, open(a.out, "w"))\n`,
  );
  writeFileSync(
    path.join(dir, 'sample_calibration.py'),
    header +
      `rows = [json.loads(l) for l in open(os.path.join(a.data_dir, "train.jsonl"))]
if a.first is not None:
    # Tuning mode: the real driver's task selection (numpy's order), one rollout a task.
    sys.path.insert(0, ${JSON.stringify(EXAMPLES_DIR)})
    import sample_calibration as real
    from rl_adv_examples.grading import load_gsm8k
    items = load_gsm8k(a.data_dir, "train")
    tasks = real.range_tasks(items, real.shuffled_order(len(items), a.seed), a.first, a.tasks, real.parse_rows(a.exclude_rows))
    with open(a.out, "w") as f:
        for t in tasks:
            good = any(w in t.question for w in ["bakery", "aquarium", "library", "orchestra", "beekeeper"])
            f.write(json.dumps({"task_id": t.id, "prompt": t.question, "reward": 1.0 if good else 0.0}) + "\\n")
    sys.exit(0)
with open(a.out, "w") as f:
    for k, row in enumerate(rows[-a.tasks:]):
        good = any(w in row["question"] for w in ["bakery", "aquarium", "library", "orchestra", "beekeeper"])
        for g in range(a.rollouts):
            r = 1.0 if (good and g % 8 != 0) or (not good and g % 8 == 0) else 0.0
            f.write(json.dumps({"task_id": "t%d" % k, "prompt": row["question"], "reward": r}) + "\\n")
`,
  );
  writeFileSync(
    path.join(dir, 'run_arm.py'),
    header +
      `os.makedirs(a.log_path, exist_ok=True)
gs = 8 if a.arm.startswith("grpo") else 1
log = os.path.join(a.log_path, "advantages.jsonl")
with open(log, "w") as f:
    for s in range(a.steps):
        rewards = [1.0 if i % 2 else 0.0 for i in range(32)]
        base = [0.4] * 32
        loo = [(16.0 - r) / 31 for r in rewards]
        adv = [r - b for r, b in zip(rewards, base)]
        f.write(json.dumps({"arm": a.arm, "step": s, "estimator": "x", "rollouts": 32, "group_size": gs, "groups": 32 // gs,
            "rewards": rewards, "baselines": base, "loo_mean": loo, "advantages": adv, "max_self_weight": 0.0 if gs == 1 else 0.125,
            "nonzero_advantage_fraction": 1.0, "mean_abs_baseline_minus_loo_mean": 0.1}) + "\\n")
if a.curve_items is not None:
    # The recipe's evaluator on the first K test items at step 0, every N steps and after the last (run_arm.py).
    steps = sorted(set(range(0, a.steps, a.curve_every)) | {a.steps})
    with open(os.path.join(a.log_path, "curve.jsonl"), "w") as f:
        for s in steps:
            c = min(a.curve_items, s + (a.seed or 0))
            f.write(json.dumps({"step": s, "accuracy": c / a.curve_items, "correct": c, "n": a.curve_items}) + "\\n")
print("cookbook chatter")
print(json.dumps({"arm": a.arm, "steps_logged": a.steps, "advantages_log": log, "final_sampler_path": "tinker://fake/%s/%d" % (a.arm, a.steps)}))
`,
  );
  writeFileSync(
    path.join(dir, 'eval_gsm8k.py'),
    header +
      `with open(a.out, "w") as f:
    for i in range(a.limit):
        f.write(json.dumps({"item_id": "gsm8k_test_%d" % i, "correct": (i + len(a.checkpoint)) % 3 != 0, "answer": "1", "response": "\\\\boxed{1}"}) + "\\n")
`,
  );
  return dir;
}
