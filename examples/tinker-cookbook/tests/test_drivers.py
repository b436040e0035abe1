"""The scripts: calibration task selection, eval output, run_arm end to end on a fake cookbook, preflight."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
import tempfile
import unittest

from tests import fakes, support
from rl_adv_examples.common import main_wrapper
from rl_adv_examples.grading import Gsm8kItem, load_gsm8k

import eval_gsm8k
import preflight
import run_arm
import sample_calibration


def gsm8k_train_in_study_order(test: unittest.TestCase) -> tuple[list[Gsm8kItem], list[int]]:
    """GSM8K train and the study's seed-0 shuffle of its rows; skips ``test`` without numpy (the cookbook has it)."""
    try:
        import numpy  # noqa: F401
    except ImportError as error:
        test.skipTest(f"numpy is not installed (the cookbook's environment has it): {error}")
    items = load_gsm8k(support.GSM8K_DIR, "train")
    return items, sample_calibration.shuffled_order(len(items), 0)


def run_script(module, argv: list[str], env: dict[str, str] | None = None) -> tuple[int, str, str]:
    """``main_wrapper(module.run)`` with captured stdout/stderr and temporary environment variables."""
    out, err = io.StringIO(), io.StringIO()
    saved = {k: os.environ.get(k) for k in (env or {})}
    os.environ.update(env or {})
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main_wrapper(module.PROG, module.run, argv)
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    return code, out.getvalue(), err.getvalue()


def run_subprocess(script: str, argv: list[str], env: dict[str, str] | None = None) -> tuple[int, str, str]:
    """Run a driver in a fresh interpreter (``-I``-like: no user site, so only what the system has)."""
    full_env = {**os.environ, **(env or {})}
    done = subprocess.run([sys.executable, "-s", os.path.join(support.EXAMPLE_DIR, script), *argv], capture_output=True, text=True, env=full_env, timeout=120)
    return done.returncode, done.stdout, done.stderr


def read_json(path: str):
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


def item(index: int, question: str = "q", answer: str = "#### 5") -> Gsm8kItem:
    return Gsm8kItem(index, f"gsm8k_train_{index}", question, answer, answer.split("####")[-1].strip())


class CalibrationSelectionTest(unittest.TestCase):
    def test_last_n_of_the_shuffled_order_in_that_order(self) -> None:
        items = [item(i, f"question {i}") for i in range(10)]
        order = [3, 9, 0, 7, 1, 8, 2, 6, 5, 4]
        chosen = sample_calibration.calibration_tasks(items, order, 4)
        self.assertEqual([t.index for t in chosen], [2, 6, 5, 4])
        with self.assertRaisesRegex(Exception, "not a permutation"):
            sample_calibration.calibration_tasks(items, [0] * 10, 4)
        with self.assertRaisesRegex(Exception, "--tasks"):
            sample_calibration.calibration_tasks(items, order, 11)

    def test_rows_are_one_per_rollout_and_skip_unfinished_tasks(self) -> None:
        tasks = [item(7400, "Q1"), item(12, "Q2"), item(99, "Q3")]
        rows = sample_calibration.calibration_rows(tasks, [[1.0, 0.0], None, [-0.1, 0.9]])
        self.assertEqual(rows, [
            {"task_id": "gsm8k_train_7400", "prompt": "Q1", "reward": 1.0},
            {"task_id": "gsm8k_train_7400", "prompt": "Q1", "reward": 0.0},
            {"task_id": "gsm8k_train_99", "prompt": "Q3", "reward": -0.1},
            {"task_id": "gsm8k_train_99", "prompt": "Q3", "reward": 0.9},
        ])

    def test_on_gsm8k_the_tasks_are_held_out_from_60_steps_of_training(self) -> None:
        items, order = gsm8k_train_in_study_order(self)
        chosen = sample_calibration.calibration_tasks(items, order, 64)
        self.assertEqual(len({t.index for t in chosen}), 64)
        trained = set(order[: 60 * 32])  # the most either arm reaches: 60 steps x 32 tasks
        self.assertFalse(trained & {t.index for t in chosen})
        self.assertEqual([t.index for t in chosen], order[-64:])
        self.assertEqual(sample_calibration.shuffled_order(len(items), 0), order)  # deterministic


class KernelFileSpecTest(unittest.TestCase):
    """A spec arm ``kernel:PATH`` (rl-adv study revise): PATH relative to the spec file, sent to serve absolute."""

    def test_kernel_names_are_kernel_estimators(self) -> None:
        from rl_adv_examples.common import is_kernel_estimator, is_kernel_file

        self.assertTrue(is_kernel_estimator("kernel:kernel.json"))
        self.assertTrue(is_kernel_file("kernel:/abs/k.json"))
        self.assertFalse(is_kernel_estimator("kernel:"))
        self.assertFalse(is_kernel_estimator("rloo"))
        self.assertTrue(is_kernel_estimator("tfidf_kernel_loo_T0.1"))
        # From the catalogue (rl-adv estimators --json), not a list of our own: kernel_loo_T<T> is a kernel estimator.
        self.assertTrue(is_kernel_estimator("kernel_loo_T0.5"))
        self.assertTrue(is_kernel_estimator("length_bucket_loo"))
        self.assertFalse(is_kernel_estimator("loo_batch_mean"))
        self.assertFalse(is_kernel_estimator("nope"))

    def test_the_catalogue_is_rl_adv_estimators_json(self) -> None:
        import json
        import subprocess

        from rl_adv_examples.catalogue import catalogue, estimator_entry, served_fields
        from rl_adv_examples.serve_client import resolve_rl_adv_command

        printed = json.loads(subprocess.run([*resolve_rl_adv_command(), "estimators", "--json"], capture_output=True, text=True, check=True).stdout)
        self.assertEqual(catalogue(), printed["estimators"])
        self.assertEqual(estimator_entry("tfidf_kernel_loo_T0.1")["name"], "tfidf_kernel_loo")
        self.assertEqual(estimator_entry("shrinkage_loo_tfidf_kernel_loo_T0.1")["name"], "shrinkage_loo")
        self.assertEqual(estimator_entry("passk_k4")["name"], "passk")
        self.assertIsNone(estimator_entry("tfidf_kernel_loo_T"))
        self.assertEqual(served_fields("group_mean"), {"group_ids"})
        self.assertEqual(served_fields("tfidf_kernel_loo_T0.1"), {"prompts"})

    def test_load_spec_resolves_the_kernel_path_against_the_spec_folder(self) -> None:
        from rl_adv_examples.common import load_spec

        raw = read_json(support.SPEC_PATH)
        raw["arms"][1]["advantage"] = "kernel:../run/kernel.json"
        with tempfile.TemporaryDirectory() as tmp:
            os.makedirs(os.path.join(tmp, "specs"))
            path = os.path.join(tmp, "specs", "spec.v2.json")
            with open(path, "w", encoding="utf-8") as handle:
                json.dump(raw, handle)
            spec = load_spec(path)
            self.assertEqual(spec.kernel_arm().advantage, "kernel:" + os.path.join(tmp, "run", "kernel.json"))
            self.assertEqual(spec.arm("grpo_g8").advantage, "group_mean")
            raw["arms"][1]["advantage"] = "kernel:/elsewhere/k.json"
            with open(path, "w", encoding="utf-8") as handle:
                json.dump(raw, handle)
            self.assertEqual(load_spec(path).kernel_arm().advantage, "kernel:/elsewhere/k.json")


class TuningSelectionTest(unittest.TestCase):
    """``--first``: the study's tuning rows (rl-adv study --tune-kernel), one rollout per task."""

    def test_range_from_first_skips_excluded_rows_and_the_calibration_set(self) -> None:
        items = [item(i, f"question {i}") for i in range(10)]
        order = [3, 9, 0, 7, 1, 8, 2, 6, 5, 4]
        chosen = sample_calibration.range_tasks(items, order, 2, 3, exclude=[7], calibration=2)
        self.assertEqual([t.index for t in chosen], [0, 1, 8])
        # Never the last `calibration` of the order, even when asked for more.
        with self.assertRaisesRegex(Exception, "--tasks must be between 1 and 5"):
            sample_calibration.range_tasks(items, order, 2, 6, exclude=[7], calibration=2)
        with self.assertRaisesRegex(Exception, "--first must be between 0 and 7"):
            sample_calibration.range_tasks(items, order, 8, 1, calibration=2)
        self.assertEqual(sample_calibration.parse_rows("4, 5,"), [4, 5])
        with self.assertRaisesRegex(Exception, "--exclude-rows"):
            sample_calibration.parse_rows("4,x")

    def test_on_gsm8k_the_range_after_the_arms_avoids_arms_and_calibration(self) -> None:
        items, order = gsm8k_train_in_study_order(self)
        chosen = sample_calibration.range_tasks(items, order, 60 * 32, 1000, exclude=[order[1920]])
        rows = [t.index for t in chosen]
        self.assertEqual(len(set(rows)), 1000)
        self.assertFalse(set(order[: 60 * 32]) & set(rows))
        self.assertFalse(set(order[-64:]) & set(rows))
        self.assertEqual(rows, order[1921:2921])

    def test_rollouts_default_to_one_with_first_and_calibration_needs_two(self) -> None:
        code, _, err = run_script(sample_calibration, ["--spec", support.SPEC_PATH, "--out", "x.jsonl", "--rollouts", "1"])
        self.assertEqual(code, 2)
        self.assertIn("--rollouts must be at least 2", err)
        code, _, err = run_script(sample_calibration, ["--spec", support.SPEC_PATH, "--out", "x.jsonl", "--exclude-rows", "1"])
        self.assertEqual(code, 2)
        self.assertIn("--exclude-rows applies with --first only", err)


class EvalOutputTest(unittest.TestCase):
    def test_rows_are_graded_numeric_exact(self) -> None:
        it = Gsm8kItem(17, "gsm8k_test_17", "q", "... #### 1,000", "1000")
        self.assertEqual(eval_gsm8k.eval_row(it, "so \\boxed{1000.00}"), {"item_id": "gsm8k_test_17", "correct": True, "answer": "1000.00", "response": "so \\boxed{1000.00}"})
        self.assertEqual(eval_gsm8k.eval_row(it, "no box, 1000"), {"item_id": "gsm8k_test_17", "correct": False, "answer": None, "response": "no box, 1000"})
        self.assertFalse(eval_gsm8k.eval_row(it, "\\boxed{999}")["correct"])

    def test_limit_takes_the_first_items_and_user_turn_has_the_suffix(self) -> None:
        items = load_gsm8k(support.GSM8K_DIR, "test")
        self.assertEqual(len(items), 1319)
        self.assertEqual([i.index for i in eval_gsm8k.select_items(items, 100)], list(range(100)))
        self.assertEqual(len(eval_gsm8k.select_items(items, None)), 1319)
        self.assertEqual(eval_gsm8k.user_turn("What is 2+2?"), {"role": "user", "content": "What is 2+2? Write your answer in \\boxed{} format."})

    def test_checkpoint_can_be_a_run_folder(self) -> None:
        self.assertEqual(eval_gsm8k.resolve_checkpoint("base"), "base")
        self.assertEqual(eval_gsm8k.resolve_checkpoint("tinker://x/sampler_weights/final"), "tinker://x/sampler_weights/final")
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "checkpoints.jsonl"), "w") as handle:
                handle.write('{"name": "000020", "sampler_path": "tinker://r/sampler_weights/000020", "state_path": "tinker://r/weights/000020"}\n')
                handle.write('{"name": "000040", "state_path": "tinker://r/weights/000040"}\n')
                handle.write('{"name": "final", "sampler_path": "tinker://r/sampler_weights/final"}\n')
            self.assertEqual(eval_gsm8k.resolve_checkpoint(d), "tinker://r/sampler_weights/final")
            empty = os.path.join(d, "empty")
            os.makedirs(empty)
            with self.assertRaisesRegex(Exception, "no sampler_path"):
                eval_gsm8k.resolve_checkpoint(empty)
        with self.assertRaisesRegex(Exception, "--checkpoint must be"):
            eval_gsm8k.resolve_checkpoint("/nonexistent/folder")

    def test_missing_api_key_is_a_clear_exit_2(self) -> None:
        with tempfile.TemporaryDirectory() as d:
            code, _, err = run_script(eval_gsm8k, ["--checkpoint", "base", "--spec", support.SPEC_PATH, "--out", os.path.join(d, "e.jsonl"), "--data-dir", support.GSM8K_DIR, "--limit", "3"], env={"TINKER_API_KEY": ""})
        self.assertEqual(code, 2)
        self.assertIn("TINKER_API_KEY is not set", err)


class RunArmTest(unittest.TestCase):
    def setUp(self) -> None:
        self.dir = tempfile.mkdtemp(prefix="run-arm-")
        self.questions = support.train_questions()

    def tearDown(self) -> None:
        fakes.uninstall()

    def args(self, arm: str, steps: int = 3) -> list[str]:
        return ["--arm", arm, "--spec", support.SPEC_PATH, "--log-path", os.path.join(self.dir, arm), "--steps", str(steps), "--data-dir", support.GSM8K_DIR]

    def reward(self, step: int, group: int, k: int) -> float:
        return (-0.1, 0.0, 0.9, 1.0)[(step * 7 + group * 3 + k) % 4]

    def test_missing_tinker_is_exit_2_with_how_to_install(self) -> None:
        # In a fresh interpreter: importing a real torch (Debian's python3-torch) in this process would leave
        # torch half-imported once the fakes are taken out of sys.modules again.
        code, _, err = run_subprocess("run_arm.py", self.args("grpo_g8"), env={"TINKER_API_KEY": "x"})
        self.assertEqual(code, 2, err)
        self.assertIn("pip install -r examples/tinker-cookbook/requirements.txt", err)
        self.assertNotIn("torch", sys.modules)

    def test_missing_rl_advantages_package_is_exit_2_with_how_to_install(self) -> None:
        from unittest import mock

        fakes.install(fakes.FakeRecipe(self.questions, self.reward))
        with mock.patch.dict(sys.modules, {"rl_advantages.integrations.tinker_cookbook": None}):
            code, _, err = run_script(run_arm, self.args("grpo_g8"), env={"TINKER_API_KEY": "x"})
        self.assertEqual(code, 2, err)
        self.assertIn("pip install ./python", err)

    def test_missing_api_key_and_unknown_arm(self) -> None:
        code, _, err = run_script(run_arm, self.args("grpo_g8"), env={"TINKER_API_KEY": ""})
        self.assertEqual((code, "TINKER_API_KEY" in err), (2, True))
        code, _, err = run_script(run_arm, self.args("nope"), env={"TINKER_API_KEY": "x"})
        self.assertEqual(code, 2)
        self.assertIn("grpo_g8", err)

    def test_grpo_arm_runs_the_recipe_with_the_spec_settings(self) -> None:
        recipe = fakes.FakeRecipe(self.questions, self.reward)
        fakes.install(recipe)
        code, out, err = run_script(run_arm, self.args("grpo_g8"), env={"TINKER_API_KEY": "x"})
        self.assertEqual(code, 0, err)
        (cfg,) = recipe.seen_configs
        self.assertEqual(
            (cfg.model_name, cfg.env, cfg.group_size, cfg.groups_per_batch, cfg.learning_rate, cfg.lora_rank, cfg.max_tokens, cfg.kl_penalty_coef, cfg.seed, cfg.max_steps, cfg.renderer_name),
            ("Qwen/Qwen3.5-2B", "gsm8k", 8, 4, 3e-05, 32, 512, 0.0, 0, 3, "qwen3_5_disable_thinking"),
        )
        summary = json.loads(out.strip().splitlines()[-1])
        self.assertEqual(summary["final_sampler_path"], "tinker://fake/sampler_weights/final")
        with open(summary["advantages_log"]) as handle:
            lines = [json.loads(line) for line in handle]
        self.assertEqual([(l["step"], l["rollouts"], l["group_size"], l["estimator"]) for l in lines], [(s, 32, 8, "group_mean") for s in range(3)])
        # The hook is gone after the run.
        self.assertIs(sys.modules["tinker_cookbook.rl.train"].compute_advantages, fakes.stock_compute_advantages)

    def test_gs1_arm_through_rl_adv_serve(self) -> None:
        command = support.rl_adv_command()
        if command is None:
            self.skipTest(support.SKIP_SERVE)
        recipe = fakes.FakeRecipe(self.questions, self.reward)
        fakes.install(recipe)
        argv = self.args("gs1_tfidf_g1", steps=2) + ["--rl-adv", " ".join(command)]
        code, out, err = run_script(run_arm, argv, env={"TINKER_API_KEY": "x"})
        self.assertEqual(code, 0, err)
        with open(json.loads(out.strip().splitlines()[-1])["advantages_log"]) as handle:
            lines = [json.loads(line) for line in handle]
        self.assertEqual(len(lines), 2)
        expected_b = preflight.kernel_reference_pure(self.questions, self.questions[32:64], lines[1]["rewards"], 0.1)
        for got, want in zip(lines[1]["baselines"], expected_b):
            self.assertAlmostEqual(got, want, delta=1e-12)
        self.assertEqual((lines[1]["rollouts"], lines[1]["group_size"], lines[1]["max_self_weight"]), (32, 1, 0.0))

    def test_pilot_logs_feed_rl_adv_gate_metrics(self) -> None:
        """The contract end to end: both arms' logs -> rl-adv gate-metrics -> the executed-config metrics."""
        command = support.rl_adv_command()
        if command is None:
            self.skipTest(support.SKIP_SERVE)
        probe = subprocess.run(command + ["gate-metrics", "--help"], capture_output=True, text=True)
        if probe.returncode != 0:
            self.skipTest("this build of rl-adv has no gate-metrics command yet")
        logs = {}
        for arm in ("grpo_g8", "gs1_tfidf_g1"):
            fakes.install(fakes.FakeRecipe(self.questions, self.reward))
            code, out, err = run_script(run_arm, self.args(arm) + ["--rl-adv", " ".join(command)], env={"TINKER_API_KEY": "x"})
            fakes.uninstall()
            self.assertEqual(code, 0, err)
            logs[arm] = json.loads(out.strip().splitlines()[-1])["advantages_log"]
        calibration = os.path.join(self.dir, "calibration.jsonl")
        with open(calibration, "w") as handle:
            for t in range(40):
                for k in range(4):
                    handle.write(json.dumps({"task_id": f"gsm8k_train_{t}", "prompt": self.questions[t], "reward": float((t + k) % 3 == 0)}) + "\n")
        calibrated = subprocess.run(
            command + ["calibrate", "--input", calibration, "--corpus", os.path.join(support.GSM8K_DIR, "train.jsonl"), "--batches", "200", "--interval", "none", "--json"],
            capture_output=True, text=True,
        )
        self.assertEqual(calibrated.returncode, 0, calibrated.stderr)
        calibration_json = os.path.join(self.dir, "calibration.json")
        with open(calibration_json, "w") as handle:
            handle.write(calibrated.stdout)
        metrics = subprocess.run(
            command + ["gate-metrics", "--spec", support.SPEC_PATH, "--calibration", calibration_json, "--json"]
            + [f"--pilot-log={arm}={path}" for arm, path in logs.items()],
            capture_output=True, text=True,
        )
        self.assertEqual(metrics.returncode, 0, metrics.stderr)
        m = json.loads(metrics.stdout)
        self.assertEqual((m["executed_rollouts_per_step"], m["executed_group_size_gs1"], m["executed_group_size_grpo"], m["self_weight_max"]), (32, 1, 8, 0))
        with open(logs["gs1_tfidf_g1"]) as handle:
            lines = [json.loads(line) for line in handle]
        expected_gap = sum(l["mean_abs_baseline_minus_loo_mean"] for l in lines) / len(lines)
        self.assertAlmostEqual(m["pilot_mean_abs_gs1_minus_batchmean_baseline"], expected_gap, places=12)

    def test_a_broken_rl_adv_fails_before_training(self) -> None:
        recipe = fakes.FakeRecipe(self.questions, self.reward)
        fakes.install(recipe)
        argv = self.args("gs1_tfidf_g1") + ["--rl-adv", f"{sys.executable} -c 'import sys; sys.exit(3)'"]
        code, _, err = run_script(run_arm, argv, env={"TINKER_API_KEY": "x"})
        self.assertEqual(code, 1)
        self.assertIn("rl-adv serve", err)
        self.assertEqual(recipe.seen_configs, [])  # the recipe never started

    def test_guard_refuses_constant_reward_group_removal(self) -> None:
        recipe = fakes.FakeRecipe(self.questions, self.reward, config_overrides={"remove_constant_reward_groups": True})
        fakes.install(recipe)
        code, _, err = run_script(run_arm, self.args("grpo_g8"), env={"TINKER_API_KEY": "x"})
        self.assertEqual(code, 2)
        self.assertIn("remove_constant_reward_groups is on", err)

    def test_existing_log_path_is_refused_without_overwrite(self) -> None:
        os.makedirs(os.path.join(self.dir, "grpo_g8"))
        code, _, err = run_script(run_arm, self.args("grpo_g8"), env={"TINKER_API_KEY": "x"})
        self.assertEqual(code, 2)
        self.assertIn("--overwrite", err)
        self.assertIn("--resume", err)
        code, _, err = run_script(run_arm, self.args("grpo_g8") + ["--resume", "--overwrite"], env={"TINKER_API_KEY": "x"})
        self.assertEqual((code, "contradict" in err), (2, True))

    def read_log(self, arm: str, name: str = "advantages.jsonl") -> list[dict]:
        with open(os.path.join(self.dir, arm, name)) as handle:
            return [json.loads(line) for line in handle]

    def test_lora_client_gets_the_arm_seed_and_provenance_records_it(self) -> None:
        """Issue 13 item 1: the recipe creates the LoRA client with no seed (rl/train.py:1966); run_arm passes the arm's."""
        spec = read_json(support.SPEC_PATH)
        for a in spec["arms"]:
            a["seed"] = 3
        spec_path = os.path.join(self.dir, "spec-seed3.json")
        with open(spec_path, "w") as handle:
            json.dump(spec, handle)
        recipe = fakes.FakeRecipe(self.questions, self.reward)
        fakes.install(recipe)
        original = fakes.ServiceClient.__dict__["create_lora_training_client_async"]
        argv = self.args("grpo_g8", steps=2)
        argv[argv.index("--spec") + 1] = spec_path
        code, out, err = run_script(run_arm, argv, env={"TINKER_API_KEY": "x"})
        self.assertEqual(code, 0, err)
        (client,) = fakes.ServiceClient.instances
        self.assertEqual(client.lora_seeds, [3])
        self.assertEqual(recipe.seen_configs[0].seed, 3)  # the data shuffle seed, unchanged
        self.assertIs(fakes.ServiceClient.__dict__["create_lora_training_client_async"], original)  # restored
        (record,) = read_json(os.path.join(self.dir, "grpo_g8", "provenance.json"))["runs"]
        self.assertEqual((record["lora_seed"], record["data_seed"], record["status"]), (3, 3, "finished"))
        self.assertEqual(record["lora_clients"], [{"method": "create_lora_training_client_async", "base_model": "Qwen/Qwen3.5-2B", "rank": 32, "seed": 3}])
        self.assertEqual(json.loads(out.strip().splitlines()[-1])["lora_seed"], 3)
        # Without the driver, the recipe's call carries no seed: a random initialisation.
        service = fakes.ServiceClient()
        fakes.run_async(service.create_lora_training_client_async("Qwen/Qwen3.5-2B", rank=32, user_metadata={}))
        self.assertEqual(service.lora_seeds, [None])

    def test_resume_continues_from_the_cookbooks_last_checkpoint(self) -> None:
        """Issue 13 item 3: a failed run resumes from checkpoints.jsonl; steps are the cookbook's batch indices."""
        recipe = fakes.FakeRecipe(self.questions, self.reward, fail_at=3)
        fakes.install(recipe)
        argv = self.args("grpo_g8", steps=5) + ["--save-every", "2"]
        code, _, err = run_script(run_arm, argv, env={"TINKER_API_KEY": "x"})
        self.assertEqual(code, 1, err)
        self.assertIn("sampling failed at batch 3", err)
        self.assertEqual([l["step"] for l in self.read_log("grpo_g8")], [0, 1, 2])
        code, _, err = run_script(run_arm, argv, env={"TINKER_API_KEY": "x"})
        self.assertEqual(code, 2)  # an existing run is never silently reused
        code, out, err = run_script(run_arm, argv + ["--resume"], env={"TINKER_API_KEY": "x"})
        self.assertEqual(code, 0, err)
        # The last checkpoint with a state_path is batch 2: batch 2 runs again, its first line is kept aside.
        self.assertEqual([l["step"] for l in self.read_log("grpo_g8")], [0, 1, 2, 3, 4])
        self.assertEqual([l["step"] for l in self.read_log("grpo_g8", "advantages.superseded.jsonl")], [2])
        train = sys.modules["tinker_cookbook.rl.train"]
        self.assertEqual([i for i, _ in train.trained], [0, 1, 2, 2, 3, 4])
        first, second = fakes.ServiceClient.instances
        self.assertEqual((first.lora_seeds, second.lora_seeds), ([0], []))  # resumed from state, not a new LoRA
        summary = json.loads(out.strip().splitlines()[-1])
        self.assertEqual((summary["resumed_from_batch"], summary["steps_logged"], summary["final_sampler_path"]), (2, 5, "tinker://fake/sampler_weights/final"))
        runs = read_json(os.path.join(self.dir, "grpo_g8", "provenance.json"))["runs"]
        self.assertEqual([(r["status"], r["resumed_from_batch"], r["resumed_from_state"]) for r in runs], [("failed", None, None), ("finished", 2, "tinker://fake/weights/000002")])
        # Resuming a finished arm (what the study does on a re-run) trains nothing and keeps the log.
        code, out, err = run_script(run_arm, argv + ["--resume"], env={"TINKER_API_KEY": "x"})
        self.assertEqual(code, 0, err)
        self.assertEqual([l["step"] for l in self.read_log("grpo_g8")], [0, 1, 2, 3, 4])
        self.assertEqual(len(train.trained), 6)
        self.assertEqual(json.loads(out.strip().splitlines()[-1])["resumed_from_batch"], 5)

    def test_a_skipped_batch_keeps_the_cookbook_step_index(self) -> None:
        fakes.install(fakes.FakeRecipe(self.questions, self.reward, skip=(1,)))
        code, out, err = run_script(run_arm, self.args("grpo_g8", steps=3), env={"TINKER_API_KEY": "x"})
        self.assertEqual(code, 0, err)
        self.assertEqual([l["step"] for l in self.read_log("grpo_g8")], [0, 2])
        self.assertEqual(json.loads(out.strip().splitlines()[-1])["steps_logged"], 2)

    def test_the_renderer_is_passed_explicitly(self) -> None:
        """Issue 13 item 4: Qwen3.5-2B is not in model_info at 9dfcc3a2, so the spec's bare command fails."""
        recipe = fakes.FakeRecipe(self.questions, self.reward)
        fakes.install(recipe)
        # The shipped spec names the renderer; the recipe alone would not find one for this model.
        self.assertEqual(read_json(support.SPEC_PATH)["renderer"], "qwen3_5_disable_thinking")
        with self.assertRaisesRegex(KeyError, "Qwen3.5-2B"):
            fakes.run_async(recipe.cli_main(fakes.CLIConfig(model_name="Qwen/Qwen3.5-2B", env="gsm8k", log_path=os.path.join(self.dir, "bare"))))
        code, _, err = run_script(run_arm, self.args("grpo_g8", steps=1), env={"TINKER_API_KEY": "x"})
        self.assertEqual(code, 0, err)
        self.assertEqual(recipe.seen_configs[-1].renderer_name, "qwen3_5_disable_thinking")

    def test_in_training_eval_is_off_unless_asked(self) -> None:
        """Issue 13 item 7: the recipe's eval_every=20 would sample all 1319 test items at steps 0, 20, 40."""
        recipe = fakes.FakeRecipe(self.questions, self.reward)
        fakes.install(recipe)
        code, _, err = run_script(run_arm, self.args("grpo_g8", steps=3), env={"TINKER_API_KEY": "x"})
        self.assertEqual(code, 0, err)
        self.assertEqual(recipe.seen_configs[0].eval_every, 0)
        self.assertEqual(sys.modules["tinker_cookbook.rl.train"].evaluated_at, [])
        self.assertEqual(fakes.CLIConfig().eval_every, 20)  # the recipe's own default
        code, _, err = run_script(run_arm, self.args("grpo_g8", steps=3) + ["--overwrite", "--eval-every", "2"], env={"TINKER_API_KEY": "x"})
        self.assertEqual(code, 0, err)
        self.assertEqual(sys.modules["tinker_cookbook.rl.train"].evaluated_at, [(0, 1319), (2, 1319)])


class PreflightLogicTest(unittest.TestCase):
    def test_compare_tolerance_and_cosine(self) -> None:
        ok = preflight.compare([1.0, 2.0 + 1e-7], [1.0, 2.0], atol=1e-6, rtol=0.0)
        self.assertTrue(ok["passed"])
        self.assertFalse(ok["bit_identical"])
        self.assertAlmostEqual(ok["max_abs_error"], 1e-7, delta=1e-12)
        self.assertFalse(preflight.compare([1.0, 2.1], [1.0, 2.0], atol=1e-6, rtol=1e-5)["passed"])
        self.assertTrue(preflight.compare([100.0 + 5e-4], [100.0], atol=0.0, rtol=1e-5)["passed"])
        # Within atol everywhere, but pointing the other way: the cosine check fails it.
        flipped = preflight.compare([1e-6, -1e-6], [-1e-6, 1e-6], atol=1e-5, rtol=0.0, min_cosine=0.9999)
        self.assertAlmostEqual(flipped["cosine_similarity"], -1.0, places=12)
        self.assertFalse(flipped["passed"])
        self.assertEqual(preflight.compare([0.0], [0.0], 0, 0, 0.9999)["cosine_similarity"], 1.0)
        self.assertTrue(preflight.compare([0.0], [0.0], 0, 0, 0.9999)["bit_identical"])

    def test_loss_and_gradient_at_ratio_one(self) -> None:
        self.assertEqual(preflight.is_loss([0.5, -0.25], [2, 4]), -(1.0 - 1.0))
        self.assertEqual(preflight.is_gradient([0.5, -0.25], [2, 1]), [-0.5, -0.5, 0.25])

    def test_pure_reference_limits(self) -> None:
        corpus = ["the cat sat", "the dog ran", "a bird flew"]
        # Identical prompts: every weight equal, b is the LOO batch mean.
        b = preflight.kernel_reference_pure(corpus, ["the cat sat"] * 3, [1.0, 0.0, 0.5], 0.1)
        for got, want in zip(b, [0.25, 0.75, 0.5]):
            self.assertAlmostEqual(got, want, places=15)
        # Two similar prompts and one orthogonal: T -> 0 puts all weight on the most similar other prompt.
        b = preflight.kernel_reference_pure(corpus, ["the cat sat", "the cat ran", "a bird flew"], [1.0, 0.0, 0.5], 0.001)
        self.assertAlmostEqual(b[0], 0.0, places=12)
        self.assertAlmostEqual(b[1], 1.0, places=12)

    def test_pure_tfidf_matches_scikit_learn_when_available(self) -> None:
        try:
            from sklearn.feature_extraction.text import TfidfVectorizer
        except ImportError:
            self.skipTest("scikit-learn is not installed")
        corpus = support.train_questions()[:500]
        docs = corpus[:20] + ["Unknown words only: zyxw qqq", "Émile's 3 apples, 2nd try"]
        ref = TfidfVectorizer().fit(corpus)
        x = ref.transform(docs)
        vocab = ref.vocabulary_
        for i, vec in enumerate(preflight.tfidf_vectors_pure(corpus, docs)):
            row = {t: x[i, j] for t, j in vocab.items() if x[i, j] != 0}
            self.assertEqual(set(vec), set(row))
            for t in vec:
                self.assertAlmostEqual(vec[t], row[t], delta=1e-15)

    def test_default_fixed_batch_shape_and_determinism(self) -> None:
        questions = support.train_questions()
        batch = preflight.default_fixed_batch(questions)
        self.assertEqual([len(g["rewards"]) for g in batch["grpo"]], [8] * 4)
        self.assertEqual([len(g["rewards"]) for g in batch["gs1"]], [1] * 32)
        self.assertEqual(batch["grpo"][0]["question"], questions[7100])
        self.assertEqual(batch["gs1"][-1]["question"], questions[7141])
        self.assertEqual(batch, preflight.default_fixed_batch(questions))
        self.assertTrue(all(r in preflight.REWARD_VALUES for g in batch["grpo"] + batch["gs1"] for r in g["rewards"]))

    def test_spec_tolerances(self) -> None:
        spec = read_json(support.SPEC_PATH)
        tol = preflight.spec_tolerances(spec)
        self.assertEqual(tol["baseline_loss"], {"atol": 1e-06, "rtol": 1e-05})
        self.assertEqual(tol["reference_gradient"]["min_cosine"], 0.9999)


class PreflightEndToEndTest(unittest.TestCase):
    """Issue 13 item 2: stock vs hooked datums from assemble_training_data, loss from forward(), the errors block."""

    CHECKS = {"baseline_advantages", "baseline_loss", "baseline_gradient", "reference_baseline_b", "reference_advantages", "reference_self_weight", "reference_loss", "reference_gradient"}

    def setUp(self) -> None:
        self.command = support.rl_adv_command()
        if self.command is None:
            self.skipTest(support.SKIP_SERVE)
        self.dir = tempfile.mkdtemp(prefix="preflight-")
        self.out = os.path.join(self.dir, "preflight.json")

    def tearDown(self) -> None:
        fakes.uninstall()

    def argv(self) -> list[str]:
        return ["--spec", support.SPEC_PATH, "--out", self.out, "--data-dir", support.GSM8K_DIR, "--rl-adv", " ".join(self.command)]

    def run_preflight(self, extra: list[str] | None = None) -> tuple[int, str]:
        code, _, err = run_script(preflight, self.argv() + (extra or []), env={"TINKER_API_KEY": "x"})
        return code, err

    def test_all_checks_pass_through_the_cookbook_path(self) -> None:
        mods = fakes.install()
        code, err = self.run_preflight()
        self.assertEqual(code, 0, err)
        report = read_json(self.out)
        self.assertTrue(report["passed"])
        self.assertEqual(set(report["checks"]), self.CHECKS)
        self.assertEqual(set(report["errors"]), self.CHECKS - {"reference_self_weight"})
        self.assertEqual(set(report["errors"]["baseline_loss"]), {"max_abs_error", "reference_max_abs", "relative_l2_error", "cosine_similarity"})
        # The GRPO arm's hook calls the stock function: the same float32 datums, so exactly 0 (the record's 0.0).
        for name in ("baseline_advantages", "baseline_loss", "baseline_gradient"):
            self.assertEqual(report["errors"][name]["max_abs_error"], 0.0, name)
        self.assertGreater(report["errors"]["baseline_loss"]["reference_max_abs"], 0.0)
        # float64 reference vs the float32 advantages in the datums: float32 rounding, well inside atol 1e-6.
        self.assertLess(report["errors"]["reference_advantages"]["max_abs_error"], 1e-7)
        self.assertEqual(report["checks"]["reference_self_weight"]["max_self_weight"], 0.0)
        # One never-updated client, seeded with the arm's seed; forward() once per datum set (2 baseline + 2 reference).
        (service,) = fakes.ServiceClient.instances
        self.assertEqual(service.lora_seeds, [0])
        self.assertEqual(report["forward_client"], {"base_model": "Qwen/Qwen3.5-2B", "lora_rank": 32, "seed": 0, "updated": False})
        # The fixed batch was sampled from the base model through the rollout and saved with its sha256.
        batch = read_json(report["fixed_input"]["path"])
        self.assertEqual([len(g["trajectories"]) for g in batch["grpo"]], [8] * 4)
        self.assertEqual([len(g["trajectories"]) for g in batch["gs1"]], [1] * 32)
        self.assertEqual([g["row"] for g in batch["gs1"]], list(range(7110, 7142)))
        self.assertTrue(all(call.temperature == 1.0 and call.max_tokens == 512 for call in fakes.SamplingClient.calls))
        self.assertIn("tinker-cookbook", err)  # the installed revision is printed
        # Re-using the saved batch gives the same measurements.
        first = report["errors"]
        fakes.uninstall()
        fakes.install()
        code, err = self.run_preflight(["--batch", report["fixed_input"]["path"], "--out", os.path.join(self.dir, "again.json")])
        self.assertEqual(code, 0, err)
        again = read_json(os.path.join(self.dir, "again.json"))
        self.assertEqual((again["errors"], again["fixed_input"]["sha256"]), (first, report["fixed_input"]["sha256"]))
        self.assertEqual(fakes.SamplingClient.calls, [])  # nothing sampled

    def test_a_hook_that_changes_the_stock_advantages_fails_the_baseline(self) -> None:
        from unittest import mock

        from rl_advantages.integrations.tinker_cookbook import AdvantageHook

        fakes.install()
        shifted = lambda self, groups: [t - (-1e-3) for t in self.stock_compute(groups)]  # noqa: E731
        with mock.patch.object(AdvantageHook, "compute_advantages", shifted):
            code, err = self.run_preflight()
        self.assertEqual(code, 1)
        self.assertIn("baseline_loss", err)
        report = read_json(self.out)
        self.assertFalse(report["checks"]["baseline_advantages"]["passed"])
        self.assertAlmostEqual(report["errors"]["baseline_advantages"]["max_abs_error"], 1e-3, delta=1e-6)

    def test_a_kernel_fit_on_another_corpus_fails_the_reference(self) -> None:
        fakes.install()
        corpus = os.path.join(self.dir, "corpus.jsonl")
        with open(corpus, "w") as handle:
            for q in ("How many apples?", "What is the total cost?", "How long does it take?"):
                handle.write(json.dumps({"question": q, "answer": "#### 1"}) + "\n")
        code, err = self.run_preflight(["--corpus", corpus])
        self.assertEqual(code, 1, err)
        report = read_json(self.out)
        self.assertFalse(report["checks"]["reference_baseline_b"]["passed"])
        self.assertTrue(report["checks"]["baseline_loss"]["passed"])

    def kernel_file_spec(self) -> str:
        """The shipped spec with its GS1 arm on a kernel file (a hand-written length kernel) beside it."""
        raw = read_json(support.SPEC_PATH)
        raw["arms"][1]["advantage"] = "kernel:kernels/length.json"
        os.makedirs(os.path.join(self.dir, "kernels"))
        kernel = {"format": "rl-advantages/kernel", "version": 1, "family": "length",
                  "params": {"measure": "chars", "kernel": "gaussian", "bandwidth": 0.5}, "fitted": {"sd": 0.75, "scale": 0.375}}
        with open(os.path.join(self.dir, "kernels", "length.json"), "w") as handle:
            json.dump(kernel, handle)
        spec = os.path.join(self.dir, "spec.v2.json")
        with open(spec, "w") as handle:
            json.dump(raw, handle)
        return spec

    def test_a_kernel_file_arm_is_checked_through_serve(self) -> None:
        # rl-adv study revise's arms: no Python reference of the kernel, so the hook is checked against a separate
        # serve request, and the kernel's invariant (equal prompts give the LOO mean) through serve.
        fakes.install()
        argv = self.argv()
        argv[argv.index("--spec") + 1] = self.kernel_file_spec()
        code, _, err = run_script(preflight, argv, env={"TINKER_API_KEY": "x"})
        self.assertEqual(code, 0, err)
        report = read_json(self.out)
        self.assertTrue(report["passed"])
        self.assertEqual(report["estimator"], "kernel:" + os.path.join(self.dir, "kernels", "length.json"))
        self.assertIn("rl-adv serve, a separate request", report["reference"])
        self.assertEqual(set(report["checks"]), self.CHECKS | {"kernel_file_identical_prompts_loo_mean"})
        code, _, err = run_script(preflight, argv + ["--offline"])
        self.assertEqual(code, 0, err)
        self.assertTrue(read_json(self.out)["checks"]["kernel_file_identical_prompts_loo_mean"]["passed"])

    def test_offline_needs_no_cookbook(self) -> None:
        code, _, err = run_script(preflight, self.argv() + ["--offline"])
        self.assertEqual(code, 0, err)
        report = read_json(self.out)
        self.assertEqual(report["mode"], "offline")
        self.assertNotIn("baseline_advantages", report["checks"])
        self.assertTrue(report["checks"]["reference_baseline_b"]["passed"])
        self.assertIn("reference_baseline_b", report["errors"])

    def test_without_the_cookbook_the_preflight_says_how_to_install(self) -> None:
        code, _, err = run_subprocess("preflight.py", self.argv(), env={"TINKER_API_KEY": "x"})
        self.assertEqual(code, 2, err)
        self.assertIn("pip install -r", err)


if __name__ == "__main__":
    unittest.main()
