"""The rl-adv serve client: a real subprocess round trip, and failure modes against small fake servers."""

from __future__ import annotations

import os
import sys
import tempfile
import textwrap
import unittest

from tests import support
from rl_adv_examples.serve_client import RlAdvServe, RlAdvServeError, resolve_rl_adv_command

import preflight


def _fake_server(body: str) -> list[str]:
    """A Python script standing in for ``rl-adv``; ``body`` runs after reading argv."""
    folder = tempfile.mkdtemp(prefix="fake-rl-adv-")
    path = os.path.join(folder, "fake_rl_adv.py")
    with open(path, "w") as handle:
        handle.write("import json, sys, time\n" + textwrap.dedent(body))
    return [sys.executable, path]


class RoundTripTest(unittest.TestCase):
    """Against the real ``node dist/cli.js serve`` of this checkout."""

    @classmethod
    def setUpClass(cls) -> None:
        cls.command = support.rl_adv_command()
        if cls.command is None:
            raise unittest.SkipTest(support.SKIP_SERVE)
        cls.corpus = os.path.join(support.GSM8K_DIR, "train.jsonl")

    def test_estimators_round_trip_in_order(self) -> None:
        with RlAdvServe(self.corpus, command=self.command) as serve:
            loo = serve.compute("loo_batch_mean", [1.0, 0.0, 1.0, 0.9])
            # (sum - r_i) / (B - 1): sum 2.9
            self.assertEqual(loo.baselines, [1.9 / 3, 2.9 / 3, 1.9 / 3, 2.0 / 3])
            self.assertEqual(loo.max_self_weight, 0.0)
            grouped = serve.compute("group_mean", [1.0, 0.0, -0.1, 0.9], group_ids=[0, 0, 1, 1])
            self.assertEqual(grouped.baselines, [0.5, 0.5, 0.4, 0.4])
            self.assertEqual(grouped.advantages, [0.5, -0.5, -0.5, 0.5])
            self.assertEqual(grouped.max_self_weight, 0.5)

    def test_kernel_matches_the_pure_python_float64_reference(self) -> None:
        questions = support.train_questions()
        prompts = questions[100:132]
        rewards = [(-0.1, 0.0, 0.9, 1.0)[i % 4] for i in range(32)]
        expected = preflight.kernel_reference_pure(questions, prompts, rewards, 0.1)
        with RlAdvServe(self.corpus, command=self.command) as serve:
            out = serve.compute("tfidf_kernel_loo_T0.1", rewards, prompts=prompts)
        for got, want in zip(out.baselines, expected):
            self.assertAlmostEqual(got, want, delta=1e-12)
        for got, r in zip(out.loo_mean, rewards):
            self.assertAlmostEqual(got, (sum(rewards) - r) / 31, delta=1e-15)

    def test_error_response_raises_and_the_server_goes_on(self) -> None:
        with RlAdvServe(self.corpus, command=self.command) as serve:
            with self.assertRaises(RlAdvServeError) as caught:
                serve.compute("not_an_estimator", [1.0, 0.0])
            self.assertEqual(caught.exception.code, "unknown_estimator")
            self.assertIn("not_an_estimator", str(caught.exception))
            with self.assertRaises(RlAdvServeError):
                serve.compute("loo_batch_mean", [1.0])  # B >= 2
            self.assertEqual(serve.compute("loo_batch_mean", [1.0, 0.0]).baselines, [0.0, 1.0])

    def test_a_bad_corpus_reports_the_servers_stderr(self) -> None:
        serve = RlAdvServe("/nonexistent/train.jsonl", command=self.command, timeout=60)
        try:
            with self.assertRaises(RlAdvServeError) as caught:
                serve.compute("loo_batch_mean", [1.0, 0.0])
            self.assertEqual(caught.exception.code, "server_exited")
            self.assertIn("/nonexistent/train.jsonl", str(caught.exception))
        finally:
            serve.close()


class FakeServerTest(unittest.TestCase):
    def test_serve_arguments_and_protocol(self) -> None:
        cmd = _fake_server(
            """
            assert sys.argv[1:] == ["serve", "--corpus", "C.jsonl"], sys.argv
            for line in sys.stdin:
                req = json.loads(line)
                n = len(req["rewards"])
                print(json.dumps({"id": req["id"], "advantages": req["rewards"], "baselines": [0.0] * n,
                                  "loo_mean": [0.0] * n, "max_self_weight": 0.0, "echo": req}), flush=True)
            """
        )
        with RlAdvServe("C.jsonl", command=cmd) as serve:
            out = serve.compute("tfidf_kernel_loo_T0.1", [1, 0.5], prompts=["a", "b"], group_ids=[3, 4])
            self.assertEqual(out.advantages, [1.0, 0.5])
            self.assertEqual(serve.compute("loo_batch_mean", [2, 3]).advantages, [2.0, 3.0])

    def test_server_that_dies_names_exit_code_and_stderr(self) -> None:
        cmd = _fake_server('sys.stderr.write("rl-adv: --corpus C.jsonl: no such file\\n"); sys.exit(2)\n')
        with RlAdvServe("C.jsonl", command=cmd) as serve:
            with self.assertRaises(RlAdvServeError) as caught:
                serve.compute("loo_batch_mean", [1, 0])
        self.assertEqual(caught.exception.code, "server_exited")
        self.assertIn("no such file", str(caught.exception))

    def test_out_of_order_id_is_a_bad_response(self) -> None:
        cmd = _fake_server(
            """
            for line in sys.stdin:
                print(json.dumps({"id": 99, "advantages": [0, 0], "baselines": [0, 0], "loo_mean": [0, 0], "max_self_weight": 0}), flush=True)
            """
        )
        with RlAdvServe("C.jsonl", command=cmd) as serve:
            with self.assertRaises(RlAdvServeError) as caught:
                serve.compute("loo_batch_mean", [1, 0])
        self.assertEqual(caught.exception.code, "bad_response")

    def test_wrong_length_and_non_finite_values_are_bad_responses(self) -> None:
        cmd = _fake_server(
            """
            for line in sys.stdin:
                req = json.loads(line)
                if req["id"] == 1:
                    print(json.dumps({"id": 1, "advantages": [0], "baselines": [0, 0], "loo_mean": [0, 0], "max_self_weight": 0}), flush=True)
                else:
                    print('{"id": 2, "advantages": [NaN, 0], "baselines": [0, 0], "loo_mean": [0, 0], "max_self_weight": 0}', flush=True)
            """
        )
        with RlAdvServe("C.jsonl", command=cmd) as serve:
            with self.assertRaisesRegex(RlAdvServeError, "advantages must be a list of 2"):
                serve.compute("loo_batch_mean", [1, 0])
            with self.assertRaisesRegex(RlAdvServeError, r"advantages\[0\]"):
                serve.compute("loo_batch_mean", [1, 0])

    def test_timeout(self) -> None:
        cmd = _fake_server("time.sleep(30)\n")
        serve = RlAdvServe("C.jsonl", command=cmd, timeout=0.5)
        try:
            with self.assertRaises(RlAdvServeError) as caught:
                serve.compute("loo_batch_mean", [1, 0])
            self.assertEqual(caught.exception.code, "timeout")
        finally:
            serve._proc.kill()
            serve.close()

    def test_missing_program(self) -> None:
        with self.assertRaises(RlAdvServeError) as caught:
            RlAdvServe("C.jsonl", command=["/nonexistent/rl-adv"])
        self.assertEqual(caught.exception.code, "not_found")


class ResolveCommandTest(unittest.TestCase):
    def test_explicit_string_is_split_like_a_shell(self) -> None:
        self.assertEqual(resolve_rl_adv_command("node '/a b/dist/cli.js'"), ["node", "/a b/dist/cli.js"])

    def test_environment_variable(self) -> None:
        old = os.environ.get("RL_ADV")
        os.environ["RL_ADV"] = "/opt/rl-adv --quiet"
        try:
            self.assertEqual(resolve_rl_adv_command(None), ["/opt/rl-adv", "--quiet"])
        finally:
            if old is None:
                del os.environ["RL_ADV"]
            else:
                os.environ["RL_ADV"] = old


if __name__ == "__main__":
    unittest.main()
