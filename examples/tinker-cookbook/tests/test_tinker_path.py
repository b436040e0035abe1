"""Issue 13 items 4, 5, 6, 8 and 9: the pin, async sampling clients, the eval's stop, the question decode, and
eval_gsm8k.generate / sample_calibration.sample_rewards through fake renderers, completers and rollouts."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import tempfile
import unittest
from unittest import mock

from tests import fakes, support
from rl_advantages.integrations.tinker_cookbook import QuestionRecoveryError, QuestionResolver
from rl_adv_examples.common import COOKBOOK_PIN, COOKBOOK_RECORD_REV, DriverError, load_spec
from rl_adv_examples.grading import load_gsm8k
from rl_advantages.integrations.tinker_cookbook import prepare_resumed_log
from rl_adv_examples.provenance import LoraSeed, append_provenance, check_cookbook_revision, expected_cookbook_revision, installed_cookbook_revision

import eval_gsm8k
import sample_calibration


class FakeDistribution:
    def __init__(self, direct_url: dict | None, version: str = "0.5.0"):
        self.version = version
        self._direct = direct_url

    def read_text(self, name: str) -> str | None:
        return json.dumps(self._direct) if name == "direct_url.json" and self._direct is not None else None


class CookbookPinTest(unittest.TestCase):
    def test_requirements_pin_the_public_commit(self) -> None:
        self.assertEqual(COOKBOOK_PIN, "9dfcc3a2cf44432d621a01005073dc6d76a1e87a")
        with open(os.path.join(support.EXAMPLE_DIR, "requirements.txt")) as handle:
            lines = [l.strip() for l in handle if l.strip() and not l.lstrip().startswith("#")]
        pins = [l for l in lines if l.startswith("tinker-cookbook")]
        self.assertEqual(pins, [f"tinker-cookbook[math-rl] @ git+https://github.com/thinking-machines-lab/tinker-cookbook.git@{COOKBOOK_PIN}"])
        self.assertFalse(any(COOKBOOK_RECORD_REV in l for l in lines))  # the record's commit only in comments

    def test_installed_revision_from_pip_direct_url(self) -> None:
        vcs = {"url": "https://github.com/thinking-machines-lab/tinker-cookbook.git", "vcs_info": {"vcs": "git", "commit_id": COOKBOOK_PIN, "requested_revision": COOKBOOK_PIN}}
        info = installed_cookbook_revision(lambda name: FakeDistribution(vcs))
        self.assertEqual((info["commit"], info["version"]), (COOKBOOK_PIN, "0.5.0"))
        self.assertIsNone(installed_cookbook_revision(lambda name: FakeDistribution(None))["commit"])
        # An editable install of a git checkout: the folder's HEAD.
        if shutil.which("git") is None:
            self.skipTest("git is not installed")
        repo = tempfile.mkdtemp(prefix="cookbook-")
        git = ["git", "-C", repo, "-c", "user.name=t", "-c", "user.email=t@t"]
        subprocess.run(["git", "init", "-q", repo], check=True)
        subprocess.run(git + ["commit", "-q", "--allow-empty", "-m", "x"], check=True)
        head = subprocess.run(["git", "-C", repo, "rev-parse", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()
        info = installed_cookbook_revision(lambda name: FakeDistribution({"url": f"file://{repo}", "dir_info": {"editable": True}}))
        self.assertEqual(info["commit"], head)

    def test_the_expected_revision_is_the_flag_then_the_environment_then_the_pin(self) -> None:
        with mock.patch.dict(os.environ, {"RL_ADV_COOKBOOK_REV": ""}):
            self.assertEqual(expected_cookbook_revision(None), COOKBOOK_PIN)
        with mock.patch.dict(os.environ, {"RL_ADV_COOKBOOK_REV": "f79fdb2"}):
            self.assertEqual(expected_cookbook_revision(None), "f79fdb2")
            self.assertEqual(expected_cookbook_revision("abc123"), "abc123")
            record = {"version": "0.1", "commit": COOKBOOK_RECORD_REV, "source": "git"}
            with mock.patch("sys.stderr"):
                self.assertTrue(check_cookbook_revision("t", None, record)["verified"])  # short SHA prefix matches
        with mock.patch.dict(os.environ, {"RL_ADV_COOKBOOK_REV": ""}):
            with self.assertRaisesRegex(DriverError, f"installed tinker-cookbook is at {COOKBOOK_RECORD_REV}.*pip install .*@{COOKBOOK_PIN}"):
                check_cookbook_revision("t", None, {"version": "0.1", "commit": COOKBOOK_RECORD_REV, "source": "git"})
            with mock.patch("sys.stderr"):
                self.assertFalse(check_cookbook_revision("t", None, {"version": None, "commit": None, "source": "x"})["verified"])


class LoraSeedAndResumeLogTest(unittest.TestCase):
    def test_lora_seed_fills_a_missing_seed_in_any_call_form_and_refuses_another(self) -> None:
        service = fakes.ServiceClient()
        with LoraSeed(fakes.ServiceClient, 7) as seeder:
            fakes.run_async(service.create_lora_training_client_async("m", rank=8, user_metadata={}))
            fakes.run_async(service.create_lora_training_client_async("m", 8, None))
            service.create_lora_training_client("m", rank=8)
            fakes.run_async(service.create_lora_training_client_async("m", seed=7))
            with self.assertRaisesRegex(DriverError, "seed 3, but the arm's seed is 7"):
                fakes.run_async(service.create_lora_training_client_async("m", seed=3))
        self.assertEqual(service.lora_seeds, [7, 7, 7, 7])
        self.assertEqual([c["seed"] for c in seeder.calls], [7, 7, 7, 7])
        fakes.run_async(service.create_lora_training_client_async("m"))
        self.assertEqual(service.lora_seeds[-1], None)  # uninstalled

    def test_resumed_log_keeps_earlier_batches_and_moves_the_rest(self) -> None:
        d = tempfile.mkdtemp(prefix="resume-")
        log = os.path.join(d, "advantages.jsonl")
        with open(log, "w") as handle:
            for step in (0, 1, 2, 3):
                handle.write(json.dumps({"step": step}) + "\n")
        self.assertEqual(prepare_resumed_log(log, 2), 2)
        self.assertEqual(prepare_resumed_log(log, 2), 0)  # idempotent
        with open(log) as handle:
            self.assertEqual([json.loads(l)["step"] for l in handle], [0, 1])
        with open(os.path.join(d, "advantages.superseded.jsonl")) as handle:
            self.assertEqual([json.loads(l)["step"] for l in handle], [2, 3])
        with open(log, "a") as handle:
            handle.write("not json\n")
        with self.assertRaisesRegex(ValueError, "line 3 is not an advantages.jsonl line"):
            prepare_resumed_log(log, 0)
        self.assertEqual(prepare_resumed_log(os.path.join(d, "absent.jsonl"), 0), 0)

    def test_provenance_appends_runs_and_refuses_a_foreign_file(self) -> None:
        d = tempfile.mkdtemp(prefix="prov-")
        append_provenance(d, {"arm": "a", "status": "failed"})
        path = append_provenance(d, {"arm": "a", "status": "finished"})
        with open(path) as handle:
            self.assertEqual([r["status"] for r in json.load(handle)["runs"]], ["failed", "finished"])
        with open(path, "w") as handle:
            handle.write("[1, 2]")
        with self.assertRaisesRegex(DriverError, "not a provenance file"):
            append_provenance(d, {"arm": "a"})


class SamplingTest(unittest.TestCase):
    """eval_gsm8k.generate and sample_calibration.sample_rewards on fake renderers, completers and rollouts."""

    @classmethod
    def setUpClass(cls) -> None:
        cls.spec = load_spec(support.SPEC_PATH)
        cls.test_items = load_gsm8k(support.GSM8K_DIR, "test")[:6]
        cls.train_items = load_gsm8k(support.GSM8K_DIR, "train")
        cls.answers = {i.question: i.reference_answer for i in cls.test_items + cls.train_items}

    def setUp(self) -> None:
        self.mods = fakes.install()

    def tearDown(self) -> None:
        fakes.uninstall()

    def knows(self, every: int = 1):
        """A responder that answers correctly on every ``every``-th call (boxed, ending its turn)."""
        count = {"n": 0}

        def respond(prompt_text: str, params) -> str:
            count["n"] += 1
            question = prompt_text.rsplit("<|im_start|>user\n", 1)[-1].split(fakes.QUESTION_SUFFIX)[0]
            answer = self.answers[question] if count["n"] % every == 0 else "-1"
            return f"So \\boxed{{{answer}}}.{fakes.STOP}\n<|im_start|>user\nmore"

        return respond

    def eval_args(self, *extra: str):
        return eval_gsm8k.build_parser().parse_args(["--checkpoint", "base", "--out", "x.jsonl", "--spec", support.SPEC_PATH, *extra])

    def test_generate_defaults_to_the_records_stop_and_an_async_client(self) -> None:
        self.mods["tinker"].RESPONDER = self.knows()
        responses = asyncio.run(eval_gsm8k.generate(self.eval_args(), self.spec, self.test_items))
        rows = [eval_gsm8k.eval_row(i, r) for i, r in zip(self.test_items, responses)]
        self.assertTrue(all(r["correct"] for r in rows))
        # Item 6: stop [] as the record's evaluator; the response is the renderer's parsed message (run-on cut).
        self.assertEqual([c.stop for c in fakes.SamplingClient.calls], [[]] * 6)
        self.assertEqual([(c.temperature, c.max_tokens) for c in fakes.SamplingClient.calls], [(0.0, 512)] * 6)
        self.assertFalse(any("more" in r for r in responses))
        # Item 5: no sync constructor inside the event loop (the fake records what the SDK would warn about).
        (service,) = fakes.ServiceClient.instances
        self.assertEqual(service.sync_calls_in_async, [])
        fakes.SamplingClient.calls.clear()
        asyncio.run(eval_gsm8k.generate(self.eval_args("--stop", "renderer"), self.spec, self.test_items[:2]))
        self.assertEqual([c.stop for c in fakes.SamplingClient.calls], [[fakes.STOP]] * 2)

    def test_generate_prompt_is_the_fewshot_prefix_then_the_question(self) -> None:
        seen = []
        self.mods["tinker"].RESPONDER = lambda text, params: seen.append(text) or fakes.STOP
        asyncio.run(eval_gsm8k.generate(self.eval_args(), self.spec, self.test_items[:1]))
        # Item 9: the real MathEnv.standard_fewshot_prefix text (tinker-cookbook 9dfcc3a2 math_env.py:70-80).
        expected = (
            "<|im_start|>user\nHow many r's are in strawberry? Write your answer in \\boxed{} format.<|im_end|>\n"
            "<|im_start|>assistant\nLet's spell the word out and number all the letters: 1) s 2) t 3) r 4) a 5) w 6) b "
            "7) e 8) r 9) r 10) y. We have r's at positions 3, 8, and 9. \\boxed{3}<|im_end|>\n"
            f"<|im_start|>user\n{self.test_items[0].question} Write your answer in \\boxed{{}} format.<|im_end|>\n<|im_start|>assistant\n"
        )
        self.assertEqual(seen, [expected])

    def test_sample_rewards_runs_the_cookbook_rollout_with_its_reward(self) -> None:
        self.mods["tinker"].RESPONDER = self.knows(every=2)
        args = sample_calibration.build_parser().parse_args(["--spec", support.SPEC_PATH, "--out", "c.jsonl", "--rollouts", "4"])
        tasks = self.train_items[:3]
        rewards = asyncio.run(sample_calibration.sample_rewards(args, self.spec, tasks))
        # Every other call answers right: 1.0 (boxed, stop) and 0.0 (boxed -1, stop), as MathEnv's reward.
        self.assertEqual(rewards, [[0.0, 1.0, 0.0, 1.0]] * 3)
        self.assertEqual({(c.temperature, c.max_tokens, tuple(c.stop)) for c in fakes.SamplingClient.calls}, {(1.0, 512, (fakes.STOP,))})
        (service,) = fakes.ServiceClient.instances
        self.assertEqual(service.sync_calls_in_async, [])

    def test_the_fake_records_a_sync_constructor_inside_a_loop(self) -> None:
        service = fakes.ServiceClient()

        async def sync_inside() -> None:
            service.create_sampling_client(base_model="m")

        asyncio.run(sync_inside())
        self.assertEqual(service.sync_calls_in_async, ["create_sampling_client"])


class QuestionDecodeTest(unittest.TestCase):
    """Item 8: the question check decodes without tokenization-space clean-up."""

    def test_questions_a_cleaning_decode_would_change_are_recovered(self) -> None:
        questions = support.train_questions()
        changed = [q for q in questions if fakes.hf_clean_up_tokenization(q) != q]
        self.assertEqual(len(changed), 23)
        resolver = QuestionResolver(questions)
        renderer = fakes.ChatRenderer()
        tokenizer = fakes.CharTokenizer()  # cleans by default, like the Hugging Face tokenizer
        for q in changed:
            builder = fakes.gsm8k_builder(q, 2, renderer)
            group = fakes.run_async(fakes.rollout_group(builder, [1.0, 0.0]))
            self.assertEqual(resolver.resolve(builder, group.trajectories_G, tokenizer), q)
        # What a cleaning decode does to the first of them: the check would stop the run.
        builder = fakes.gsm8k_builder(changed[0], 1, renderer)
        group = fakes.run_async(fakes.rollout_group(builder, [1.0]))
        with mock.patch.object(QuestionResolver, "decode_first_observation", lambda self, t, tok: tok.decode(t.transitions[0].ob.to_ints())):
            with self.assertRaisesRegex(QuestionRecoveryError, "does not contain its builder's question"):
                resolver.resolve(builder, group.trajectories_G, tokenizer)


if __name__ == "__main__":
    unittest.main()
