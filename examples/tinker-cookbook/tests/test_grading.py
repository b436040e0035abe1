"""Tests for rl_adv_examples.grading: the shared vector file, the real GSM8K data, and invariants.

Run: cd examples/tinker-cookbook && python3 -m unittest discover -s tests -t .
"""

from __future__ import annotations

import json
import os
import random
import re
import tempfile
import unittest
from fractions import Fraction
from pathlib import Path

from rl_adv_examples.grading import (
    MAX_ANSWER_DIGITS,
    GradingError,
    exact_numbers_equal,
    extract_boxed,
    format_exact_number,
    grade_gsm8k_response,
    grade_numeric_exact,
    gsm8k_reference_answer,
    gsm8k_reward,
    load_gsm8k,
    normalize_answer,
    parse_exact_number,
    resolve_gsm8k_dir,
)
from tests import support

REPO_ROOT = Path(__file__).resolve().parents[3]
CASES_FILE = REPO_ROOT / "test" / "fixtures" / "grading-cases.jsonl"
GSM8K_DIR = Path(support.GSM8K_DIR)


def _read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").split("\n") if line.strip()]


class SharedVectorsTest(unittest.TestCase):
    """test/fixtures/grading-cases.jsonl, which the TypeScript grader asserts too."""

    @classmethod
    def setUpClass(cls) -> None:
        cls.cases = _read_jsonl(CASES_FILE)

    def test_file_shape(self) -> None:
        self.assertGreaterEqual(len(self.cases), 40)
        self.assertEqual(len({c["name"] for c in self.cases}), len(self.cases))
        self.assertTrue(any(c["correct"] for c in self.cases))
        self.assertTrue(any(c["extracted"] is None for c in self.cases))

    def test_every_case(self) -> None:
        for c in self.cases:
            with self.subTest(c["name"]):
                self.assertEqual(extract_boxed(c["response"]), c["extracted"])
                self.assertEqual(grade_numeric_exact(c["response"], c["reference"]), c["correct"])
                boxed = c["extracted"] is not None
                self.assertEqual(gsm8k_reward(c["response"], c["reference"]), float(c["correct"]) + 0.1 * (float(boxed) - 1))
                self.assertEqual(gsm8k_reward(c["response"], c["reference"], stopped_cleanly=False), float(c["correct"]) - 0.1)


class RewardTest(unittest.TestCase):
    def test_four_values(self) -> None:
        self.assertEqual(gsm8k_reward(r"\boxed{72}", "72"), 1.0)
        self.assertEqual(gsm8k_reward(r"\boxed{72}", "72", stopped_cleanly=False), 0.9)
        self.assertEqual(gsm8k_reward(r"\boxed{70}", "72"), 0.0)
        self.assertEqual(gsm8k_reward(r"\boxed{70}", "72", stopped_cleanly=False), -0.1)
        self.assertEqual(gsm8k_reward("The answer is 72", "72"), -0.1)

    def test_grade_details(self) -> None:
        grade = grade_gsm8k_response(r"It is \boxed{3/4}", "0.75")
        self.assertEqual((grade.extracted, grade.correct, grade.format_ok, grade.reward), ("3/4", True, True, 1.0))

    def test_errors(self) -> None:
        with self.assertRaisesRegex(GradingError, 'reference_answer must be a number, got "seventy"'):
            grade_numeric_exact(r"\boxed{1}", "seventy")
        with self.assertRaisesRegex(GradingError, "stopped_cleanly must be a bool"):
            gsm8k_reward(r"\boxed{1}", "1", stopped_cleanly=1)  # type: ignore[arg-type]
        with self.assertRaisesRegex(GradingError, "response must be a string, got None"):
            grade_numeric_exact(None, "1")  # type: ignore[arg-type]


class ReferenceAnswerTest(unittest.TestCase):
    def test_last_marker_without_commas(self) -> None:
        self.assertEqual(gsm8k_reference_answer("48/2 = <<48/2=24>>24\n#### 72"), "72")
        self.assertEqual(gsm8k_reference_answer("a #### 1\nb\n####  1,080 \n"), "1080")

    def test_missing_marker(self) -> None:
        with self.assertRaisesRegex(GradingError, 'no "####" marker'):
            gsm8k_reference_answer("The answer is 72")
        with self.assertRaisesRegex(GradingError, 'nothing after its last "####"'):
            gsm8k_reference_answer("72 ####  ")


class ExactNumberTest(unittest.TestCase):
    def test_forms(self) -> None:
        expected = {
            "18.00": Fraction(18), "-3.5": Fraction(-7, 2), ".5": Fraction(1, 2), "+7": Fraction(7),
            "6 / 8": Fraction(3, 4), "-1.5/2": Fraction(-3, 4), r"\dfrac{ 6 }{ 8 }": Fraction(3, 4),
            r"-\frac{-3}{4}": Fraction(3, 4), r"\frac{1.5}{0.5}": Fraction(3), "$1,000.00": Fraction(1000),
        }
        for text, value in expected.items():
            with self.subTest(text):
                self.assertEqual(parse_exact_number(text), value)

    def test_rejections(self) -> None:
        for text in ["", ".", "-", "+", "1e3", "7 3/4", "3/0", r"\frac{3}{0}", "3/-4", "--5", "1.2.3",
                     "eighteen", r"\frac34", "0x10", "1_000", "\u0661\u0668", "18\n5"]:
            with self.subTest(text):
                self.assertIsNone(parse_exact_number(text))

    def test_digit_limit(self) -> None:
        self.assertEqual(parse_exact_number("9" * MAX_ANSWER_DIGITS), Fraction(int("9" * MAX_ANSWER_DIGITS)))
        self.assertIsNone(parse_exact_number("9" * (MAX_ANSWER_DIGITS + 1)))

    def test_normalize(self) -> None:
        self.assertEqual(normalize_answer(" \\text{\\$1,000.} "), "1000")
        self.assertEqual(normalize_answer("{{25\\%}}"), "25")
        self.assertEqual(normalize_answer("\\text{3}/\\text{4}"), "\\text{3}/\\text{4}")

    def test_format(self) -> None:
        self.assertEqual(format_exact_number(Fraction(3, 4)), "0.75")
        self.assertEqual(format_exact_number(Fraction(1, 80)), "0.0125")
        self.assertEqual(format_exact_number(Fraction(-1, 3)), "-1/3")
        self.assertEqual(format_exact_number(Fraction(-12)), "-12")

    def test_round_trip_and_symmetry(self) -> None:
        rng = random.Random(20240601)  # fixed seed: the same draws every run
        for _ in range(2000):
            a = Fraction(rng.randint(-10**30, 10**30), rng.randint(1, 10**12))
            b = Fraction(rng.randint(-50, 50), rng.randint(1, 20))
            self.assertEqual(parse_exact_number(format_exact_number(a)), a)
            self.assertEqual(exact_numbers_equal(a, b), exact_numbers_equal(b, a))
            self.assertEqual(exact_numbers_equal(a, b), format_exact_number(a) == format_exact_number(b))

    def test_normalize_idempotent(self) -> None:
        rng = random.Random(7)
        alphabet = "0123456789.,$%\\{}-+/ textfrac"
        for _ in range(3000):
            s = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 20)))
            once = normalize_answer(s)
            self.assertEqual(normalize_answer(once), once, s)


class LoaderTest(unittest.TestCase):
    def test_rows_and_errors(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "test.jsonl")
            with open(path, "w", encoding="utf-8") as f:
                f.write(json.dumps({"question": "Q1", "answer": "x\n#### 1,000"}) + "\r\n\n")
                f.write(json.dumps({"question": "Q2", "answer": "#### -3"}) + "\n")
            items = load_gsm8k(tmp, "test")
            self.assertEqual([(i.index, i.id, i.reference_answer) for i in items], [(0, "gsm8k_test_0", "1000"), (1, "gsm8k_test_1", "-3")])
            with self.assertRaisesRegex(GradingError, re.escape(os.path.join(tmp, "train.jsonl")) + " does not exist"):
                load_gsm8k(tmp, "train")
            with open(path, "w", encoding="utf-8") as f:
                f.write('{"question": "Q1", "answer": "#### 1"}\n\n{"question": "Q3"}\n')
            with self.assertRaisesRegex(GradingError, re.escape(path) + ' line 3: field "answer" must be a string'):
                load_gsm8k(tmp, "test")
            with open(path, "w", encoding="utf-8") as f:
                f.write('{"question": \n')
            with self.assertRaisesRegex(GradingError, re.escape(path) + " line 1 is not valid JSON"):
                load_gsm8k(tmp, "test")

    def test_resolve_dir(self) -> None:
        """--data-dir, then GSM8K_DIR, then the cache ($RL_ADV_CACHE_DIR, $XDG_CACHE_HOME, ~/.cache), as in TypeScript."""
        names = ("GSM8K_DIR", "RL_ADV_CACHE_DIR", "XDG_CACHE_HOME", "HOME")
        saved = {k: os.environ.pop(k, None) for k in names}
        try:
            with tempfile.TemporaryDirectory() as tmp:
                os.environ["RL_ADV_CACHE_DIR"] = os.path.join(tmp, "cache")
                cached = os.path.join(tmp, "cache", "gsm8k")
                os.makedirs(cached)
                with self.assertRaisesRegex(GradingError, "no copy in the cache.*rl-adv data gsm8k --from DIR.*--data-dir DIR.*GSM8K_DIR=DIR"):
                    resolve_gsm8k_dir()  # the cache folder exists but holds no splits
                for split in ("train", "test"):
                    open(os.path.join(cached, f"{split}.jsonl"), "w").close()
                self.assertEqual(resolve_gsm8k_dir(), cached)
                os.environ["GSM8K_DIR"] = tmp
                self.assertEqual(resolve_gsm8k_dir(), os.path.abspath(tmp))
                self.assertEqual(resolve_gsm8k_dir(str(REPO_ROOT)), str(REPO_ROOT))
                with self.assertRaisesRegex(GradingError, "--data-dir is .*, which is not a folder"):
                    resolve_gsm8k_dir(os.path.join(tmp, "no-such-folder"))
                os.environ["GSM8K_DIR"] = os.path.join(tmp, "no-such-folder")
                with self.assertRaisesRegex(GradingError, "GSM8K_DIR is .*, which is not a folder"):
                    resolve_gsm8k_dir()
                del os.environ["GSM8K_DIR"], os.environ["RL_ADV_CACHE_DIR"]
                os.environ["XDG_CACHE_HOME"] = os.path.join(tmp, "xdg")
                with self.assertRaisesRegex(GradingError, re.escape(os.path.join(tmp, "xdg", "rl-advantages", "gsm8k"))):
                    resolve_gsm8k_dir()
                os.environ["XDG_CACHE_HOME"] = "relative"
                os.environ["HOME"] = os.path.join(tmp, "home")
                with self.assertRaisesRegex(GradingError, re.escape(os.path.join(tmp, "home", ".cache", "rl-advantages", "gsm8k"))):
                    resolve_gsm8k_dir()
        finally:
            for k, v in saved.items():
                os.environ.pop(k, None)
                if v is not None:
                    os.environ[k] = v


@unittest.skipUnless((GSM8K_DIR / "test.jsonl").exists(), f"GSM8K data not found at {GSM8K_DIR}")
class RealGsm8kTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls) -> None:
        cls.train = load_gsm8k(str(GSM8K_DIR), "train")
        cls.test = load_gsm8k(str(GSM8K_DIR), "test")

    def test_counts(self) -> None:
        # Published sizes (openai/grade-school-math README): 7473 train, 1319 test.
        self.assertEqual((len(self.train), len(self.test)), (7473, 1319))
        self.assertEqual(self.train[0].reference_answer, "72")
        self.assertEqual(self.test[0].reference_answer, "18")

    def test_every_reference_parses(self) -> None:
        unparsed = [i.id for i in self.train + self.test if parse_exact_number(i.reference_answer) is None]
        self.assertEqual(unparsed, [])

    def test_example_model_solutions_agree(self) -> None:
        rows = _read_jsonl(GSM8K_DIR / "example_model_solutions.jsonl")
        self.assertEqual([r["question"] for r in rows], [i.question for i in self.test])

        def final_answer(text: str) -> str | None:
            found = re.findall(r"A:[ \t]*(.*)", text)
            return found[-1] if found else None

        disagreements = []
        for row, item in zip(rows, self.test):
            reference = parse_exact_number(item.reference_answer)
            self.assertEqual(parse_exact_number(final_answer(row["ground_truth"]) or ""), reference)
            for model in ("6b_finetuning", "6b_verification", "175b_finetuning", "175b_verification"):
                answer = final_answer(row[model]["solution"])
                given = None if answer is None else parse_exact_number(answer)
                if (given is not None and given == reference) != row[model]["is_correct"]:
                    disagreements.append((item.id, model, answer))
        self.assertEqual(disagreements, [])


if __name__ == "__main__":
    unittest.main()
