"""The replaced advantage path: question recovery, the advantages.jsonl line, the hook in a fake cookbook."""

from __future__ import annotations

import json
import os
import tempfile
import unittest
from functools import partial

from tests import fakes, support
from rl_advantages.integrations.tinker_cookbook import (
    QUESTION_SUFFIX,
    AdvantageHook,
    QuestionRecoveryError,
    QuestionResolver,
    group_mean_diagnostics,
    loo_batch_means,
    step_log_line,
)
from rl_adv_examples.arm_hook import make_hook_for_arm

CONTRACT_KEYS = {
    "arm", "step", "estimator", "rollouts", "group_size", "groups", "rewards", "baselines", "loo_mean",
    "advantages", "max_self_weight", "nonzero_advantage_fraction", "mean_abs_baseline_minus_loo_mean",
    "diagnostics",
}


def observation_text(question: str) -> str:
    renderer = fakes.ChatRenderer()
    env = fakes.MathEnv(question, "0", renderer, convo_prefix=fakes.MathEnv.standard_fewshot_prefix())
    return renderer.tokenizer.decode(fakes.run_async(env.initial_observation())[0].to_ints(), clean_up_tokenization_spaces=False)


class QuestionResolverTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls) -> None:
        cls.questions = support.train_questions()
        cls.resolver = QuestionResolver(cls.questions)

    def test_suffix_is_the_cookbook_math_env_suffix(self) -> None:
        self.assertEqual(QUESTION_SUFFIX, fakes.MathEnv.question_suffix())

    def test_from_builder_reads_the_partial_the_cookbook_builds(self) -> None:
        q = self.questions[5]
        builder = fakes.gsm8k_builder(q, 8, fakes.ChatRenderer())
        self.assertEqual(QuestionResolver.from_builder(builder), q)
        by_keyword = fakes.ProblemGroupBuilder(env_thunk=partial(fakes.MathEnv, problem=q, answer="1", renderer=None), num_envs=1)
        self.assertEqual(QuestionResolver.from_builder(by_keyword), q)
        plain_thunk = fakes.ProblemGroupBuilder(env_thunk=lambda: fakes.MathEnv(q, "1", None), num_envs=1)
        self.assertEqual(QuestionResolver.from_builder(plain_thunk), q)
        self.assertIsNone(QuestionResolver.from_builder(object()))

    def test_every_train_question_is_recovered_from_its_rendered_prompt(self) -> None:
        # The whole train split, few-shot prefix included: the question, never the chat text.
        for i, q in enumerate(self.questions):
            got = self.resolver.from_observation(observation_text(q))
            self.assertEqual(" ".join(got.split()), " ".join(q.split()), f"train row {i}")

    def test_a_question_that_ends_another_is_not_confused_with_it(self) -> None:
        short = "How many apples are left?"
        long = "Tom has 3 apples and eats one. How many apples are left?"
        resolver = QuestionResolver([short, long])
        self.assertEqual(resolver.from_observation(observation_text(long)), long)
        self.assertEqual(resolver.from_observation(observation_text(short)), short)
        self.assertIsNone(resolver.from_observation("no suffix here"))
        self.assertIsNone(resolver.from_observation(observation_text("An unknown question?")))

    def _trajectories(self, question: str, n: int = 2) -> list:
        ids = fakes.CharTokenizer.encode(observation_text(question))
        return [fakes.make_trajectory(ids, 1.0) for _ in range(n)]

    def test_resolve_checks_the_builder_against_the_decoded_prompts(self) -> None:
        q, other = self.questions[10], self.questions[11]
        builder = fakes.gsm8k_builder(q, 2, fakes.ChatRenderer())
        tok = fakes.CharTokenizer()
        self.assertEqual(self.resolver.resolve(builder, self._trajectories(q), tok), q)
        with self.assertRaisesRegex(QuestionRecoveryError, "does not contain its builder's question"):
            self.resolver.resolve(builder, self._trajectories(other), tok)
        stranger = fakes.gsm8k_builder("Not a GSM8K question at all?", 1, fakes.ChatRenderer())
        with self.assertRaisesRegex(QuestionRecoveryError, "not a GSM8K train question"):
            self.resolver.resolve(stranger, self._trajectories(q, 1), tok)

    def test_resolve_falls_back_to_the_decoded_prompt(self) -> None:
        q = self.questions[20]
        self.assertEqual(self.resolver.resolve(object(), self._trajectories(q), fakes.CharTokenizer()), q)
        with self.assertRaisesRegex(QuestionRecoveryError, "no trajectory could be decoded"):
            self.resolver.resolve(object(), self._trajectories(q), None)
        mixed = self._trajectories(q, 1) + self._trajectories(self.questions[21], 1)
        with self.assertRaisesRegex(QuestionRecoveryError, "different questions"):
            self.resolver.resolve(object(), mixed, fakes.CharTokenizer())


class LogLineTest(unittest.TestCase):
    def test_fields_are_exactly_the_contract(self) -> None:
        line = step_log_line("gs1_tfidf_g1", 4, "tfidf_kernel_loo_T0.1", [1, 1, 1, 1], [1.0, 0.0, 0.9, -0.1],
                             [0.5, 0.25, 0.5, 0.5], [0.6, 0.6, 0.3, 0.6333333333333333], [0.5, -0.25, 0.4, -0.6], 0.0)
        self.assertEqual(set(line), CONTRACT_KEYS)
        self.assertEqual((line["arm"], line["step"], line["rollouts"], line["group_size"], line["groups"]), ("gs1_tfidf_g1", 4, 4, 1, 4))
        self.assertEqual(line["nonzero_advantage_fraction"], 1.0)
        # |0.5-0.6| + |0.25-0.6| + |0.5-0.3| + |0.5-0.6333| = 0.1 + 0.35 + 0.2 + 0.1333 = 0.78333
        self.assertAlmostEqual(line["mean_abs_baseline_minus_loo_mean"], 0.7833333333333333 / 4, places=15)
        json.dumps(line, allow_nan=False)

    def test_nonzero_threshold_and_group_size_rule(self) -> None:
        line = step_log_line("a", 0, "group_mean", [8, 8, 7, 8], [0.0] * 31, [0.0] * 31, [0.0] * 31, [1e-6] * 30 + [2e-6], 0.125)
        self.assertEqual(line["nonzero_advantage_fraction"], 1 / 31)  # |A| > 1e-6, strictly
        self.assertEqual(line["group_size"], 7)  # the first size that differs from the first group's
        # Every reward is 0: four zero-variance groups, and no advantage is exactly 0.
        self.assertEqual(line["diagnostics"], {"groups": 4, "groups_of_one": 0, "zero_variance_groups": 4,
                                               "zero_advantage_fraction": 0.0, "masked": 0})
        one = step_log_line("a", 0, "group_mean", [1, 2], [1.0, 0.5, 0.5], [1.0, 0.5, 0.5], [0.5, 0.75, 0.75], [0.0, 0.0, 0.0], 1.0)
        self.assertEqual(one["diagnostics"], {"groups": 2, "groups_of_one": 1, "zero_variance_groups": 1,
                                              "zero_advantage_fraction": 1.0, "masked": 0})
        with self.assertRaises(ValueError):
            step_log_line("a", 0, "group_mean", [2], [0.0, 1.0], [0.0], [0.0, 0.0], [0.0, 0.0], 0.5)

    def test_group_mean_diagnostics(self) -> None:
        b, loo, msw = group_mean_diagnostics([[1.0, 0.0], [0.9, 0.9, -0.1, 1.0]])
        self.assertEqual(b[:2], [0.5, 0.5])
        self.assertAlmostEqual(b[2], 2.7 / 4, places=15)
        self.assertEqual(len(loo), 6)
        self.assertAlmostEqual(loo[0], (3.7 - 1.0) / 5, places=15)
        self.assertEqual(msw, 0.5)
        self.assertEqual(loo_batch_means([2.0]), [0.0])


class HookTest(unittest.TestCase):
    def setUp(self) -> None:
        self.mods = fakes.install()
        self.train = self.mods["tinker_cookbook.rl.train"]
        self.dp = self.mods["tinker_cookbook.rl.data_processing"]
        self.questions = support.train_questions()[:64]
        self.dir = tempfile.mkdtemp(prefix="hook-")
        self.log = os.path.join(self.dir, "advantages.jsonl")

    def tearDown(self) -> None:
        fakes.uninstall()

    def batch(self, group_size: int, groups: int, offset: int = 0) -> tuple[list, list]:
        renderer = fakes.ChatRenderer()
        builders = [fakes.gsm8k_builder(self.questions[offset + g], group_size, renderer) for g in range(groups)]
        rewards = [[(-0.1, 0.0, 0.9, 1.0)[(g * 3 + k) % 4] for k in range(group_size)] for g in range(groups)]
        return builders, [fakes.run_async(fakes.rollout_group(b, r)) for b, r in zip(builders, rewards)]

    def read_log(self) -> list[dict]:
        with open(self.log) as handle:
            return [json.loads(line) for line in handle]

    def test_kernel_arm_sends_questions_and_returns_per_group_tensors(self) -> None:
        stub = support.StubServe()
        hook = make_hook_for_arm("gs1_tfidf_g1", "tfidf_kernel_loo_T0.1", self.log, self.dp.compute_advantages, stub, support.train_questions(), torch_module=self.mods["torch"])
        hook.install(self.train, self.dp)
        self.assertIs(self.train.compute_advantages.__func__, AdvantageHook.compute_advantages)
        self.assertIs(self.dp.compute_advantages.__func__, AdvantageHook.compute_advantages)
        for step in range(2):
            builders, groups = self.batch(1, 32, offset=step * 32)
            fakes.run_async(self.train.prepare_minibatch(builders, groups, fakes.CharTokenizer(), None, 0.0, 0.0))
            advantages_P = self.train.last_advantages_P
            request = stub.requests[-1]
            # The GSM8K question of each task, not the rendered chat prompt; no group ids for a kernel.
            self.assertEqual(request["prompts"], self.questions[step * 32 : step * 32 + 32])
            self.assertIsNone(request["group_ids"])
            self.assertEqual(request["estimator"], "tfidf_kernel_loo_T0.1")
            self.assertEqual(len(advantages_P), 32)
            self.assertTrue(all(isinstance(t, fakes.FakeTensor) and len(t) == 1 for t in advantages_P))
            rewards = [g.get_total_rewards()[0] for g in groups]
            expected = [r - (sum(rewards) - r) / 31 for r in rewards]
            self.assertEqual([t.tolist()[0] for t in advantages_P], [fakes.f32(a) for a in expected])
        # One request per step although print_group asked twice more; display numbers are the batch's.
        self.assertEqual(len(stub.requests), 2)
        self.assertEqual(self.train.displayed[-2:], [[fakes.f32(expected[0])], [fakes.f32(expected[1])]])
        lines = self.read_log()
        self.assertEqual([line["step"] for line in lines], [0, 1])
        self.assertEqual(set(lines[0]), CONTRACT_KEYS)
        self.assertEqual((lines[1]["rollouts"], lines[1]["group_size"], lines[1]["groups"], lines[1]["max_self_weight"]), (32, 1, 32, 0.0))
        self.assertEqual(lines[1]["advantages"], expected)
        hook.uninstall()
        self.assertIs(self.train.compute_advantages, fakes.stock_compute_advantages)
        self.assertIs(self.dp.compute_advantages, fakes.stock_compute_advantages)

    def test_group_mean_arm_uses_the_stock_function_and_only_logs(self) -> None:
        hook = make_hook_for_arm("grpo_g8", "group_mean", self.log, self.dp.compute_advantages, None, [], torch_module=self.mods["torch"])
        hook.install(self.train, self.dp)
        self.assertIs(self.dp.compute_advantages, fakes.stock_compute_advantages)  # untouched
        builders, groups = self.batch(8, 4)
        fakes.run_async(self.train.prepare_minibatch(builders, groups, fakes.CharTokenizer(), None, 0.0, 0.0))
        advantages_P = self.train.last_advantages_P
        stock = fakes.stock_compute_advantages(groups)
        self.assertEqual([t.tolist() for t in advantages_P], [t.tolist() for t in stock])
        # print_group's subset call (4 of 8) got the stock numbers and wrote nothing.
        self.assertEqual(len(self.train.displayed[-1]), 4)
        (line,) = self.read_log()
        self.assertEqual((line["arm"], line["step"], line["rollouts"], line["group_size"], line["groups"]), ("grpo_g8", 0, 32, 8, 4))
        self.assertEqual(line["max_self_weight"], 0.125)
        self.assertEqual(line["advantages"], [a for t in stock for a in t.tolist()])
        rewards = [r for g in groups for r in g.get_total_rewards()]
        self.assertEqual(line["rewards"], rewards)
        for i, b in enumerate(line["baselines"]):
            g = i // 8
            self.assertAlmostEqual(b, sum(rewards[g * 8 : g * 8 + 8]) / 8, places=15)

    def test_served_group_mean_sends_group_ids(self) -> None:
        stub = support.StubServe()
        hook = AdvantageHook("p", "group_mean", self.log, self.dp.compute_advantages, client=stub, resolver=QuestionResolver(), torch_module=self.mods["torch"], force_served=True)
        builders, groups = self.batch(8, 4)
        result = hook.compute_served(builders, groups, None)
        self.assertEqual(stub.requests[0]["group_ids"], [g for g in range(4) for _ in range(8)])
        self.assertIsNone(stub.requests[0]["prompts"])
        self.assertEqual(result.offsets, [0, 8, 16, 24])

    def test_kernel_arm_outside_a_training_step_is_an_error(self) -> None:
        hook = make_hook_for_arm("gs1", "tfidf_kernel_loo_T0.1", self.log, self.dp.compute_advantages, support.StubServe(), self.questions, torch_module=self.mods["torch"])
        _, groups = self.batch(1, 2)
        with self.assertRaisesRegex(RuntimeError, "outside prepare_minibatch"):
            hook.compute_advantages(groups)

    def test_kernel_file_arm_is_served_with_its_absolute_path(self) -> None:
        # A spec arm `kernel:PATH` (docs/kernel-lab.md) reaches rl-adv serve as load_spec resolved it.
        stub = support.StubServe()
        hook = make_hook_for_arm("gs1", "kernel:/runs/sim/kernel.json", self.log, self.dp.compute_advantages, stub, support.train_questions(), torch_module=self.mods["torch"])
        hook.install(self.train, self.dp)
        builders, groups = self.batch(1, 32)
        fakes.run_async(self.train.prepare_minibatch(builders, groups, fakes.CharTokenizer(), None, 0.0, 0.0))
        self.assertEqual(stub.requests[-1]["estimator"], "kernel:/runs/sim/kernel.json")
        self.assertEqual(stub.requests[-1]["prompts"], self.questions[:32])
        self.assertEqual(self.read_log()[0]["estimator"], "kernel:/runs/sim/kernel.json")
        hook.uninstall()

    def test_gs1_through_the_package(self) -> None:
        # The hook's default client: rl_advantages.compute_advantages on a server fitted on GSM8K train; the
        # catalogue says tfidf_kernel_loo reads prompts, so the questions are sent, not group ids.
        import rl_advantages

        corpus = os.path.join(str(support.GSM8K_DIR), "train.jsonl")
        with rl_advantages.Server(corpus=corpus) as server:
            hook = AdvantageHook("gs1", "tfidf_kernel_loo_T0.1", self.log, self.dp.compute_advantages, resolver=QuestionResolver(self.questions), torch_module=self.mods["torch"], server=server)
            hook.install(self.train, self.dp)
            builders, groups = self.batch(1, 32)
            fakes.run_async(self.train.prepare_minibatch(builders, groups, fakes.CharTokenizer(), None, 0.0, 0.0))
            hook.uninstall()
            rewards = [g.get_total_rewards()[0] for g in groups]
            expected = rl_advantages.compute_advantages("tfidf_kernel_loo_T0.1", rewards, prompts=self.questions[:32], server=server)
        self.assertEqual([t.tolist()[0] for t in self.train.last_advantages_P], [fakes.f32(a) for a in expected.advantages])
        line = self.read_log()[0]
        self.assertEqual(line["advantages"], expected.advantages.tolist())
        self.assertEqual(line["baselines"], expected.baselines.tolist())
        self.assertEqual((line["group_size"], line["max_self_weight"]), (1, 0.0))

    def test_estimators_the_drivers_cannot_send_are_refused_by_the_catalogue(self) -> None:
        for name, reason in (
            ("nope", "rl-adv knows no estimator 'nope'"),
            ("remax", "remax needs greedy_rewards, which the drivers do not send"),
            ("prompt_value", "prompt_value keeps state across steps"),
        ):
            with self.assertRaises(ValueError) as caught:
                make_hook_for_arm("x", name, self.log, self.dp.compute_advantages, support.StubServe(), [])
            self.assertIn(reason, str(caught.exception))

    def test_every_sendable_estimator_is_served_with_the_fields_it_reads(self) -> None:
        # rloo and loo_batch_mean were refused, kernel_loo_T<T> was not a kernel estimator, before the catalogue.
        # The package's hook sends the group ids when the estimator requires them, else the questions.
        expected = {"rloo": (False, True), "group_mean_std": (False, True), "loo_batch_mean": (True, False), "length_bucket_loo": (True, False), "kernel:/k.json": (True, False)}
        for name, (prompts, group_ids) in expected.items():
            stub = support.StubServe()
            hook = make_hook_for_arm("arm", name, self.log, self.dp.compute_advantages, stub, support.train_questions(), torch_module=self.mods["torch"])
            hook.install(self.train, self.dp)
            builders, groups = self.batch(2, 4)
            fakes.run_async(self.train.prepare_minibatch(builders, groups, fakes.CharTokenizer(), None, 0.0, 0.0))
            request = stub.requests[-1]
            self.assertEqual((request["prompts"] is not None, request["group_ids"] is not None), (prompts, group_ids), name)
            hook.uninstall()


if __name__ == "__main__":
    unittest.main()
