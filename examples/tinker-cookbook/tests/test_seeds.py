"""run_arm.py's replicate seed (--seed) and learning curve (--curve-items/--curve-every), on the fake cookbook;
the data order also against the real Hugging Face ``datasets`` shuffle and, given a tinker-cookbook checkout at the
pin (``RL_ADV_COOKBOOK_SRC``), the real ``Gsm8kDataset`` code of ``recipes/math_rl/math_env.py``."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import types
import unittest
from unittest import mock

from tests import fakes, support
from tests.test_drivers import read_json, run_script

import run_arm
from rl_adv_examples.common import COOKBOOK_PIN

KEY = {"TINKER_API_KEY": "x"}


def have(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def numpy_order(n: int, seed: int) -> list[int]:
    import numpy as np

    return [int(i) for i in np.random.default_rng(seed).permutation(n)]


class RunArmSeedTest(unittest.TestCase):
    def setUp(self) -> None:
        if not have("numpy"):
            self.skipTest("numpy is not installed (the cookbook's environment has it)")
        self.dir = tempfile.mkdtemp(prefix="run-arm-seed-")
        self.questions = support.train_questions()

    def tearDown(self) -> None:
        fakes.uninstall()

    def argv(self, log: str, steps: int = 2, extra: tuple[str, ...] = ()) -> list[str]:
        return ["--arm", "grpo_g8", "--spec", support.SPEC_PATH, "--log-path", os.path.join(self.dir, log), "--steps", str(steps), "--data-dir", support.GSM8K_DIR, *extra]

    def reward(self, step: int, group: int, k: int) -> float:
        return (-0.1, 0.0, 0.9, 1.0)[(step * 7 + group * 3 + k) % 4]

    def run_seed(self, log: str, seed: int | None) -> tuple[fakes.FakeRecipe, int, str, str]:
        fakes.uninstall()
        recipe = fakes.FakeRecipe(self.questions, self.reward, shuffle=True)
        fakes.install(recipe)
        code, out, err = run_script(run_arm, self.argv(log, extra=() if seed is None else ("--seed", str(seed))), env=KEY)
        return recipe, code, out, err

    def test_the_seed_is_the_recipes_data_seed_and_the_lora_seed(self) -> None:
        one, code, out, err = self.run_seed("s1", 1)
        self.assertEqual(code, 0, err)
        (client,) = fakes.ServiceClient.instances
        self.assertEqual((one.seen_configs[0].seed, client.lora_seeds), (1, [1]))
        two, code, _, err = self.run_seed("s2", 2)
        self.assertEqual(code, 0, err)
        again, code, _, err = self.run_seed("s1b", 1)
        self.assertEqual(code, 0, err)
        self.assertEqual(one.batches, again.batches)  # same seed, same data order
        self.assertNotEqual(one.batches, two.batches)
        # The order is datasets' shuffle: numpy.random.default_rng(seed).permutation(7473), 4 groups a batch.
        for recipe, seed in ((one, 1), (two, 2)):
            order = numpy_order(len(self.questions), seed)
            self.assertEqual([q for _, qs in recipe.batches for q in qs], [self.questions[r] for r in order[:8]])
        (record,) = read_json(os.path.join(self.dir, "s1", "provenance.json"))["runs"]
        self.assertEqual(
            {k: record[k] for k in ("seed", "seed_source", "data_seed", "lora_seed", "sampling_seed")},
            {"seed": 1, "seed_source": "--seed", "data_seed": 1, "lora_seed": 1, "sampling_seed": None},
        )
        self.assertEqual(json.loads(out.strip().splitlines()[-1])["seed"], 1)

    def test_without_seed_the_spec_arm_seed_is_used(self) -> None:
        recipe, code, _, err = self.run_seed("spec", None)
        self.assertEqual(code, 0, err)
        self.assertEqual(recipe.seen_configs[0].seed, 0)
        self.assertEqual(read_json(os.path.join(self.dir, "spec", "provenance.json"))["runs"][0]["seed_source"], "the spec's arms[].seed")

    def test_bad_seed_and_curve_flags_are_exit_2(self) -> None:
        fakes.install(fakes.FakeRecipe(self.questions, self.reward))
        cases = [
            (("--seed", "-1"), "--seed must be an integer >= 0"),
            (("--curve-items", "4"), "--curve-items and --curve-every go together"),
            (("--curve-items", "0", "--curve-every", "2"), "must be integers >= 1"),
            (("--curve-items", "4", "--curve-every", "2", "--eval-every", "2"), "choose one"),
        ]
        for extra, message in cases:
            code, _, err = run_script(run_arm, self.argv("bad", extra=extra), env=KEY)
            self.assertEqual(code, 2, err)
            self.assertIn(message, err)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "bad")))

    def test_a_resume_with_another_seed_is_refused_and_changes_nothing(self) -> None:
        _, code, _, err = self.run_seed("r", 3)
        self.assertEqual(code, 0, err)
        before = {name: self.read("r", name) for name in ("advantages.jsonl", "provenance.json", "checkpoints.jsonl")}
        fakes.uninstall()
        recipe = fakes.FakeRecipe(self.questions, self.reward, shuffle=True)
        fakes.install(recipe)
        code, _, err = run_script(run_arm, self.argv("r", extra=("--seed", "4", "--resume")), env=KEY)
        self.assertEqual(code, 2, err)
        self.assertIn("trained with seed 3, not 4", err)
        self.assertEqual(recipe.seen_configs, [])
        self.assertEqual(before, {name: self.read("r", name) for name in before})

    def read(self, log: str, name: str) -> str:
        with open(os.path.join(self.dir, log, name), encoding="utf-8") as handle:
            return handle.read()


class RunArmCurveTest(unittest.TestCase):
    def setUp(self) -> None:
        self.dir = tempfile.mkdtemp(prefix="run-arm-curve-")
        self.questions = support.train_questions()

    def tearDown(self) -> None:
        fakes.uninstall()

    def reward(self, step: int, group: int, k: int) -> float:
        return (-0.1, 0.0, 0.9, 1.0)[(step * 7 + group * 3 + k) % 4]

    @staticmethod
    def eval_reward(step: int, j: int) -> float:
        # Item j is right after `step` steps when (step + j) % 3 == 0; 0.9 (right, badly formatted) counts too.
        return (1.0, -0.1, 0.0)[(step + j) % 3] if j != 2 else 0.9

    def expected_row(self, step: int, n: int) -> dict:
        correct = sum(1 for j in range(n) if self.eval_reward(step, j) > 0)
        return {"step": step, "accuracy": correct / n, "correct": correct, "n": n}

    def argv(self, log: str, steps: int, curve: bool = True, extra: tuple[str, ...] = ()) -> list[str]:
        flags = ("--curve-items", "4", "--curve-every", "2") if curve else ()
        return ["--arm", "grpo_g8", "--spec", support.SPEC_PATH, "--log-path", os.path.join(self.dir, log), "--steps", str(steps), "--data-dir", support.GSM8K_DIR, *flags, *extra]

    def install(self, **kwargs) -> fakes.FakeRecipe:
        fakes.uninstall()
        recipe = fakes.FakeRecipe(self.questions, self.reward, eval_reward=self.eval_reward, **kwargs)
        fakes.install(recipe)
        return recipe

    def curve(self, log: str, name: str = "curve.jsonl") -> list[dict]:
        with open(os.path.join(self.dir, log, name)) as handle:
            return [json.loads(line) for line in handle]

    def test_rows_at_step_0_every_n_steps_and_the_last_on_the_first_k_test_items(self) -> None:
        recipe = self.install()
        code, out, err = run_script(run_arm, self.argv("c", steps=5), env=KEY)
        self.assertEqual(code, 0, err)
        self.assertEqual(recipe.seen_configs[0].eval_every, 2)  # the recipe's own eval cadence
        train = sys.modules["tinker_cookbook.rl.train"]
        self.assertEqual(train.evaluated_at, [(0, 4), (2, 4), (4, 4), (5, 4)])  # the recipe's evaluator on 4 items
        # Step s is the policy after s steps: the initial sampling client, then each train step's.
        self.assertEqual(recipe.eval_clients, [f"tinker://fake/sampler_weights/step{s}" for s in (0, 2, 4, 5)])
        self.assertEqual(self.curve("c"), [self.expected_row(s, 4) for s in (0, 2, 4, 5)])
        self.assertEqual(json.loads(out.strip().splitlines()[-1])["curve"], os.path.join(self.dir, "c", "curve.jsonl"))
        record = read_json(os.path.join(self.dir, "c", "provenance.json"))["runs"][-1]
        self.assertEqual((record["curve"], record["eval_every"]), ({"items": 4, "every": 2}, 2))
        # The hooks are gone after the run.
        self.assertEqual(train.do_sync_training.__name__, "do_sync_training")
        self.assertFalse(hasattr(train.do_sync_training, "__wrapped__"))

    def test_a_curve_does_not_change_training(self) -> None:
        runs = {}
        for log, curve in (("plain", False), ("curved", True)):
            self.install()
            code, _, err = run_script(run_arm, self.argv(log, steps=5, curve=curve), env=KEY)
            self.assertEqual(code, 0, err)
            train = sys.modules["tinker_cookbook.rl.train"]
            with open(os.path.join(self.dir, log, "advantages.jsonl")) as handle:
                runs[log] = (handle.read(), [(i, [(d.model_input.to_ints(), {k: v.tolist() for k, v in d.loss_fn_inputs.items()}) for d in data]) for i, data in train.trained])
        self.assertEqual(runs["plain"], runs["curved"])
        self.assertFalse(os.path.exists(os.path.join(self.dir, "plain", "curve.jsonl")))

    def test_the_curve_survives_a_resume(self) -> None:
        self.install(fail_at=3)
        argv = self.argv("r", steps=5, extra=("--save-every", "2"))
        code, _, err = run_script(run_arm, argv, env=KEY)
        self.assertEqual(code, 1, err)
        self.assertEqual([r["step"] for r in self.curve("r")], [0, 2])  # step 2 evaluated before batch 3 failed
        recipe = self.install()
        code, _, err = run_script(run_arm, argv + ["--resume"], env=KEY)
        self.assertEqual(code, 0, err)
        # Resumed at batch 2 (the last checkpoint): step 2 is evaluated again, its first row kept aside.
        self.assertEqual(recipe.eval_clients, [f"tinker://fake/sampler_weights/step{s}" for s in (2, 4, 5)])
        self.assertEqual(self.curve("r"), [self.expected_row(s, 4) for s in (0, 2, 4, 5)])
        self.assertEqual(self.curve("r", "curve.superseded.jsonl"), [self.expected_row(2, 4)])
        # A finished arm resumed again evaluates nothing and keeps every row.
        recipe = self.install()
        code, _, err = run_script(run_arm, argv + ["--resume"], env=KEY)
        self.assertEqual(code, 0, err)
        self.assertEqual(recipe.eval_clients, [])
        self.assertEqual([r["step"] for r in self.curve("r")], [0, 2, 4, 5])
        # Another curve on resume is refused.
        self.install()
        code, _, err = run_script(run_arm, argv[:-4] + ["--curve-items", "8", "--curve-every", "2", "--save-every", "2", "--resume"], env=KEY)
        self.assertEqual(code, 2, err)
        self.assertIn("resume it with the same --curve-items/--curve-every", err)

    def test_more_curve_items_than_the_test_split_is_refused(self) -> None:
        self.install(test_questions=["a", "b", "c"])
        code, _, err = run_script(run_arm, self.argv("few", steps=1), env=KEY)
        self.assertEqual(code, 2, err)
        self.assertIn("the recipe's test split has only 3 items", err)


class RunArmThirdArmTest(unittest.TestCase):
    """A K-arm spec's third arm (the LOO batch mean at G = 1, the ablation's) runs through the real rl-adv serve."""

    def tearDown(self) -> None:
        fakes.uninstall()

    def test_a_loo_batch_mean_arm_with_a_seed(self) -> None:
        command = support.rl_adv_command()
        if command is None:
            self.skipTest(support.SKIP_SERVE)
        d = tempfile.mkdtemp(prefix="run-arm-k-")
        spec = read_json(support.SPEC_PATH)
        spec["arms"].append({**spec["arms"][1], "name": "batchmean_g1", "advantage": "loo_batch_mean"})
        spec_path = os.path.join(d, "spec.json")
        with open(spec_path, "w") as handle:
            json.dump(spec, handle)
        questions = support.train_questions()
        recipe = fakes.FakeRecipe(questions, lambda step, g, k: float((step + 2 * g) % 3 == 0))
        fakes.install(recipe)
        argv = ["--arm", "batchmean_g1", "--spec", spec_path, "--log-path", os.path.join(d, "b"), "--steps", "2", "--seed", "5", "--data-dir", support.GSM8K_DIR, "--rl-adv", " ".join(command)]
        code, _, err = run_script(run_arm, argv, env=KEY)
        self.assertEqual(code, 0, err)
        self.assertEqual((recipe.seen_configs[0].seed, fakes.ServiceClient.instances[0].lora_seeds), (5, [5]))
        with open(os.path.join(d, "b", "advantages.jsonl")) as handle:
            lines = [json.loads(line) for line in handle]
        self.assertEqual([(l["step"], l["estimator"], l["rollouts"], l["group_size"]) for l in lines], [(0, "loo_batch_mean", 32, 1), (1, "loo_batch_mean", 32, 1)])
        for line in lines:
            rewards = line["rewards"]
            loo = [(sum(rewards) - r) / (len(rewards) - 1) for r in rewards]
            for got, want in zip(line["baselines"], loo):
                self.assertAlmostEqual(got, want, delta=1e-12)


class RealShuffleTest(unittest.TestCase):
    """The fake's data order (numpy's permutation) against the real code it stands for."""

    SEEDS = (0, 1, 2)

    def test_datasets_shuffle_is_numpys_permutation(self) -> None:
        if not (have("datasets") and have("numpy")):
            self.skipTest("Hugging Face datasets is not installed (the cookbook's environment has it)")
        import datasets

        train = datasets.Dataset.from_json(os.path.join(support.GSM8K_DIR, "train.jsonl"))
        questions = support.train_questions()
        for seed in self.SEEDS:
            shuffled = train.shuffle(seed=seed)["question"]
            self.assertEqual(shuffled, [questions[r] for r in numpy_order(len(questions), seed)])

    def test_the_real_gsm8k_dataset_trains_in_that_order(self) -> None:
        """recipes/math_rl/math_env.py of a checkout at the pin, run with its imports stood in (chz, tinker and the
        cookbook's other modules are not needed by Gsm8kDataset's order) and load_dataset reading GSM8K_DIR."""
        source = os.environ.get("RL_ADV_COOKBOOK_SRC")
        if not source:
            self.skipTest("set RL_ADV_COOKBOOK_SRC to a tinker-cookbook checkout at the pin to run the real Gsm8kDataset")
        if not (have("datasets") and have("numpy")):
            self.skipTest("Hugging Face datasets is not installed")
        head = subprocess.run(["git", "-C", source, "rev-parse", "HEAD"], capture_output=True, text=True)
        if head.returncode == 0:
            self.assertEqual(head.stdout.strip(), COOKBOOK_PIN)
        real = load_real_math_env(os.path.join(source, "tinker_cookbook", "recipes", "math_rl", "math_env.py"))
        questions = support.train_questions()
        for seed in self.SEEDS:
            dataset = real.Gsm8kDataset(batch_size=32, group_size=1, renderer=None, split="train", seed=seed)
            got = [b.env_thunk.args[0] for i in range(3) for b in dataset.get_batch(i)]
            self.assertEqual(got, [questions[r] for r in numpy_order(len(questions), seed)[:96]])
            # ...and the fake's order is the same.
            recipe = fakes.FakeRecipe(questions, lambda *a: 0.0, shuffle=True)
            fake = fakes.FakeDataset(recipe, 32, 1, seed)
            self.assertEqual([q for i in range(3) for q in fake.questions[i * 32 : (i + 1) * 32]], got)
        test = real.Gsm8kDataset(batch_size=32, group_size=1, renderer=None, split="test", seed=5)
        first = [b.env_thunk.args[0] for b in test.get_batch(0)][:4]
        with open(os.path.join(support.GSM8K_DIR, "test.jsonl")) as handle:
            self.assertEqual(first, [json.loads(next(handle))["question"] for _ in range(4)])  # the test split: file order


class _AnyAttribute(types.ModuleType):
    def __getattr__(self, name: str) -> type:
        if name.startswith("__"):
            raise AttributeError(name)
        return type(name, (), {})


def load_real_math_env(path: str) -> types.ModuleType:
    """The real math_env.py module, its cookbook imports stood in by empty classes and stubs."""
    import datasets
    from dataclasses import dataclass

    @dataclass(frozen=True)
    class ProblemGroupBuilder:
        env_thunk: object
        num_envs: int
        dataset_name: str = "problems"

    stubs = {name: _AnyAttribute(name) for name in (
        "chz", "tinker_cookbook", "tinker_cookbook.renderers", "tinker_cookbook.recipes", "tinker_cookbook.recipes.math_rl",
        "tinker_cookbook.recipes.math_rl.math_grading", "tinker_cookbook.rl", "tinker_cookbook.rl.problem_env",
        "tinker_cookbook.rl.types", "tinker_cookbook.tokenizer_utils",
    )}
    stubs["chz"].chz = lambda cls: cls
    stubs["tinker_cookbook"].renderers = stubs["tinker_cookbook.renderers"]
    stubs["tinker_cookbook.rl.problem_env"].ProblemGroupBuilder = ProblemGroupBuilder
    stubs["tinker_cookbook.rl.problem_env"].logger = mock.Mock()

    def load_dataset(path: str, **kwargs: object) -> object:
        assert (path, kwargs.get("name")) == ("openai/gsm8k", "main"), (path, kwargs)
        return datasets.Dataset.from_json(os.path.join(support.GSM8K_DIR, f"{kwargs['split']}.jsonl"))

    with mock.patch.dict(sys.modules, stubs):
        spec = importlib.util.spec_from_file_location("real_math_env", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    module.load_dataset = load_dataset
    return module


if __name__ == "__main__":
    unittest.main()
