"""GSM8K grading (``numeric_exact``) and loading: the Python twin of ``src/grading/`` in rl-advantages.

It ships in the Python package (the TRL study drivers grade with it) and the Tinker drivers of
``examples/tinker-cookbook`` import it from there (``rl_adv_examples/grading.py`` re-exports it).

Definitions are docs/method.md section 7. The TypeScript and Python graders are checked against one vector
file, ``test/fixtures/grading-cases.jsonl``; a change to a rule here must change the TypeScript module,
the vector file and both test suites together.

Standard library only. Numbers are exact (``fractions.Fraction``); no floating point decides correctness.

Example::

    >>> from rl_advantages.grading import gsm8k_reward, gsm8k_reference_answer
    >>> ref = gsm8k_reference_answer("48/2 = <<48/2=24>>24\\n#### 72")
    >>> gsm8k_reward(r"So she sold \\boxed{72} clips.", ref)
    1.0
    >>> gsm8k_reward(r"So she sold \\boxed{72} clips.", ref, stopped_cleanly=False)
    0.9
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from fractions import Fraction

__all__ = [
    "GSM8K_FORMAT_COEF",
    "MAX_ANSWER_DIGITS",
    "GradingError",
    "Gsm8kGrade",
    "Gsm8kItem",
    "exact_numbers_equal",
    "extract_boxed",
    "format_exact_number",
    "grade_gsm8k_response",
    "grade_numeric_exact",
    "gsm8k_reference_answer",
    "gsm8k_reward",
    "load_gsm8k",
    "normalize_answer",
    "parse_exact_number",
    "resolve_gsm8k_dir",
]

#: Weight of the format term in the cookbook's reward, ``ProblemEnv(format_coef=0.1)``.
GSM8K_FORMAT_COEF = 0.1

#: Most digits one numeric part may have before ``parse_exact_number`` returns None. It bounds work on
#: adversarial responses and stays under Python's default 4300-digit ``int()`` limit; the TypeScript
#: grader uses the same bound so both agree.
MAX_ANSWER_DIGITS = 1000

_BOX_OPENER = "\\boxed{"
# An explicit whitespace set: str.strip() and JavaScript's trim() disagree on some code points.
_WHITESPACE = " \t\n\r\f\v\u00a0"
_LATEX_SPACING_RE = re.compile(r"\\[,:;!]")
# [0-9], never \d: Python's \d also matches non-ASCII digits, which the TypeScript grader rejects.
_DECIMAL_RE = re.compile(r"([+-]?)([0-9]*)(?:\.([0-9]*))?")
_LATEX_FRAC_RE = re.compile(r"([+-]?)\\[dt]?frac\{([^{}]*)\}\{([^{}]*)\}")
_SLASH_FRAC_RE = re.compile(r"([^/]*)/([^/]*)")

_HOW_TO_GET_GSM8K = (
    "Provide GSM8K (MIT licence, openai/grade-school-math) one of these ways: run `rl-adv data gsm8k` to download "
    "it into the cache (sha256-verified), or `rl-adv data gsm8k --from DIR` to verify and copy a local copy; or "
    'pass --data-dir DIR, or set GSM8K_DIR=DIR, with DIR a folder holding train.jsonl and test.jsonl (one JSON '
    'object a line with "question" and "answer"; the rows of Hugging Face openai/gsm8k, config "main").'
)


class GradingError(ValueError):
    """Bad input to the grader or loader; ``code`` matches the TypeScript RlAdvantagesError code."""

    def __init__(self, message: str, code: str):
        super().__init__(message)
        self.code = code


def extract_boxed(response: str) -> str | None:
    r"""Content of the last ``\boxed{...}`` in ``response`` (braces balanced), or None.

    Rules (as the TypeScript ``extractBoxed``): a box opens at exactly ``\boxed{`` (``\boxed {x}`` and
    ``\boxed 2`` are not boxes); every ``{``/``}`` counts, ``\{`` included; "last" is the box whose
    closing brace comes last, so for ``\boxed{\boxed{3}}`` the outer content ``\boxed{3}`` is returned;
    a box that never closes is ignored; a stray ``}`` is ignored (the cookbook raises instead);
    ``\boxed{}`` gives ``""``.
    """
    _check_str("response", response)
    open_stack: list[int] = []
    last: str | None = None
    for i, ch in enumerate(response):
        if ch == "{":
            open_stack.append(i)
        elif ch == "}":
            if not open_stack:
                continue  # stray closing brace: ignored
            start = open_stack.pop()
            opener_start = start + 1 - len(_BOX_OPENER)
            if opener_start >= 0 and response.startswith(_BOX_OPENER, opener_start):
                last = response[start + 1 : i]
    return last


def normalize_answer(text: str) -> str:
    r"""Normalise an answer before parsing (docs/method.md section 7).

    In order: U+2212 minus -> ``-``; delete ``\,`` ``\:`` ``\;`` ``\!``; delete ``\$`` and ``$``; delete
    ``,``; then until nothing changes: trim whitespace, unwrap a surrounding ``\text{...}`` or ``{...}``,
    drop one trailing ``%`` or ``\%`` (no division by 100), drop one trailing ``.``.
    """
    _check_str("text", text)
    s = text.replace("\u2212", "-")
    s = _LATEX_SPACING_RE.sub("", s)
    s = s.replace("\\$", "").replace("$", "").replace(",", "")
    while True:
        before = s
        s = s.strip(_WHITESPACE)
        unwrapped = _unwrap_surrounding(s, "\\text{")
        if unwrapped is None:
            unwrapped = _unwrap_surrounding(s, "{")
        if unwrapped is not None:
            s = unwrapped
        if s.endswith("\\%"):
            s = s[:-2]
        elif s.endswith("%"):
            s = s[:-1]
        if s.endswith("."):
            s = s[:-1]
        if s == before:
            return s


def parse_exact_number(text: str) -> Fraction | None:
    r"""Parse an answer (after ``normalize_answer``) as an exact rational, or None.

    Accepted: a decimal (``18``, ``-3.5``, ``.5``, ``+7``, ``18.00``; no exponent, no mixed number, no
    units); ``a/b`` with ``a`` a signed and ``b`` an unsigned decimal; ``\frac{a}{b}``, ``\dfrac``,
    ``\tfrac``, optionally signed. A zero denominator or a part with more than ``MAX_ANSWER_DIGITS``
    digits gives None.
    """
    s = normalize_answer(text)
    m = _LATEX_FRAC_RE.fullmatch(s)
    if m:
        value = _parse_quotient(m.group(2), m.group(3))
        return -value if value is not None and m.group(1) == "-" else value
    m = _SLASH_FRAC_RE.fullmatch(s)
    if m:
        return _parse_quotient(m.group(1), m.group(2))
    return _parse_decimal(s)


def format_exact_number(value: Fraction) -> str:
    """Canonical text that ``parse_exact_number`` reads back to ``value``: ``-12``, ``0.75`` (the
    denominator has only the prime factors 2 and 5), else ``num/den`` such as ``1/3``."""
    value = Fraction(value)
    num, den = value.numerator, value.denominator
    if den == 1:
        return str(num)
    twos = fives = 0
    rest = den
    while rest % 2 == 0:
        rest //= 2
        twos += 1
    while rest % 5 == 0:
        rest //= 5
        fives += 1
    if rest != 1:
        return f"{num}/{den}"
    k = max(twos, fives)
    digits = str(abs(num) * 10**k // den).rjust(k + 1, "0")
    sign = "-" if num < 0 else ""
    return f"{sign}{digits[:-k]}.{digits[-k:]}"


def exact_numbers_equal(a: Fraction, b: Fraction) -> bool:
    """Exact equality of two rationals (``Fraction`` equality; symmetric; ``18.00`` equals ``18``)."""
    return Fraction(a) == Fraction(b)


def gsm8k_reference_answer(answer_field: str) -> str:
    """The text after the last ``####`` of a GSM8K ``answer`` field, commas removed, trimmed.

    Raises GradingError (``no_reference_answer`` / ``empty_reference_answer``) when there is no ``####``
    or nothing after it.
    """
    _check_str("answer", answer_field)
    marker = answer_field.rfind("####")
    if marker < 0:
        raise GradingError(
            f'answer has no "####" marker before the final answer: {_describe(answer_field)}', "no_reference_answer"
        )
    reference = answer_field[marker + 4 :].replace(",", "").strip(_WHITESPACE)
    if reference == "":
        raise GradingError('answer has nothing after its last "####" marker', "empty_reference_answer")
    return reference


def grade_numeric_exact(response: str, reference_answer: str) -> bool:
    r"""``numeric_exact``: the last ``\boxed{...}`` parses and equals the reference exactly.

    Raises GradingError (``bad_reference``) when the reference itself does not parse.
    """
    reference = _parse_reference(reference_answer)
    return _boxed_matches(extract_boxed(response), reference)


@dataclass(frozen=True)
class Gsm8kGrade:
    """Every part of one grading decision."""

    extracted: str | None
    correct: bool
    format_ok: bool
    reward: float


def grade_gsm8k_response(response: str, reference_answer: str, stopped_cleanly: bool = True) -> Gsm8kGrade:
    r"""Grade one response: box, correctness, the cookbook's format flag and the training reward.

    ``reward = correct + 0.1 * (format_ok - 1)`` with ``format_ok = stopped_cleanly and a box exists``
    (tinker-cookbook ``ProblemEnv.step``): 1 (correct), 0.9 (correct but generation did not stop on the
    stop sequence), 0 (boxed, wrong), -0.1 (no box, or wrong and not stopped cleanly).
    """
    reference = _parse_reference(reference_answer)
    if not isinstance(stopped_cleanly, bool):
        raise GradingError(f"stopped_cleanly must be a bool, got {_describe(stopped_cleanly)}", "bad_type")
    extracted = extract_boxed(response)
    correct = _boxed_matches(extracted, reference)
    format_ok = stopped_cleanly and extracted is not None
    reward = float(correct) + GSM8K_FORMAT_COEF * (float(format_ok) - 1.0)
    return Gsm8kGrade(extracted=extracted, correct=correct, format_ok=format_ok, reward=reward)


def gsm8k_reward(response: str, reference_answer: str, stopped_cleanly: bool = True) -> float:
    """The cookbook math environment's training reward; one of -0.1, 0.0, 0.9, 1.0 (see grade_gsm8k_response)."""
    return grade_gsm8k_response(response, reference_answer, stopped_cleanly).reward


@dataclass(frozen=True)
class Gsm8kItem:
    """One GSM8K row: 0-based ``index`` among the split's rows, ``id`` = ``gsm8k_<split>_<index>``."""

    index: int
    id: str
    question: str
    answer: str
    reference_answer: str


def resolve_gsm8k_dir(flag: str | None = None) -> str:
    """The GSM8K folder, in the order every rl-adv command uses (``resolveGsm8kDir`` in src/data/gsm8k.ts):
    ``flag`` (``--data-dir``) if non-empty, else ``$GSM8K_DIR``, else the cache ``$RL_ADV_CACHE_DIR/gsm8k``
    (default ``$XDG_CACHE_HOME/rl-advantages``, else ``~/.cache/rl-advantages``) when it holds train.jsonl and
    test.jsonl (``rl-adv data gsm8k`` fills it), else GradingError saying how to provide the data. A folder
    given by ``flag`` or ``$GSM8K_DIR`` must exist; returns an absolute path."""
    if flag:
        chosen, source = flag, "--data-dir"
    elif os.environ.get("GSM8K_DIR"):
        chosen, source = os.environ["GSM8K_DIR"], "GSM8K_DIR"
    else:
        xdg = os.environ.get("XDG_CACHE_HOME")
        # XDG: a relative XDG_CACHE_HOME is invalid and ignored.
        base = os.environ.get("RL_ADV_CACHE_DIR") or (
            os.path.join(xdg, "rl-advantages") if xdg and os.path.isabs(xdg) else os.path.join(os.path.expanduser("~"), ".cache", "rl-advantages")
        )
        cached = os.path.abspath(os.path.join(base, "gsm8k"))
        if all(os.path.isfile(os.path.join(cached, f"{split}.jsonl")) for split in ("train", "test")):
            return cached
        raise GradingError(
            f"GSM8K not found: no --data-dir, no GSM8K_DIR, and no copy in the cache {cached}. {_HOW_TO_GET_GSM8K}", "missing_gsm8k_dir"
        )
    if not os.path.isdir(chosen):
        raise GradingError(f"{source} is {json.dumps(chosen)}, which is not a folder. {_HOW_TO_GET_GSM8K}", "gsm8k_dir_not_found")
    return os.path.abspath(chosen)


def load_gsm8k(directory: str, split: str) -> list[Gsm8kItem]:
    """Read ``<directory>/<split>.jsonl`` (split ``train`` or ``test``), skipping blank lines.

    Errors name the file and 1-based line: missing file, bad JSON, a missing ``question``/``answer``
    string, an answer without ``####``.
    """
    if split not in ("train", "test"):
        raise GradingError(f'split must be "train" or "test", got {_describe(split)}', "bad_split")
    path = os.path.join(directory, f"{split}.jsonl")
    if not os.path.exists(path):
        raise GradingError(f"GSM8K file {path} does not exist. {_HOW_TO_GET_GSM8K}", "gsm8k_file_not_found")
    with open(path, encoding="utf-8") as handle:
        lines = handle.read().split("\n")
    items: list[Gsm8kItem] = []
    for line_no, line in enumerate(lines, start=1):
        if line.strip() == "":
            continue
        where = f"{path} line {line_no}"
        try:
            row = json.loads(line)
        except json.JSONDecodeError as error:
            raise GradingError(f"{where} is not valid JSON: {error}", "bad_json") from None
        if not isinstance(row, dict):
            raise GradingError(f"{where} must be a JSON object, got {_describe(row)}", "bad_json")
        fields = {}
        for field in ("question", "answer"):
            value = row.get(field)
            if not isinstance(value, str):
                raise GradingError(f'{where}: field "{field}" must be a string, got {_describe(value)}', "missing_field")
            fields[field] = value
        try:
            reference = gsm8k_reference_answer(fields["answer"])
        except GradingError as error:
            raise GradingError(f"{where}: {error}", error.code) from None
        index = len(items)
        items.append(Gsm8kItem(index, f"gsm8k_{split}_{index}", fields["question"], fields["answer"], reference))
    return items


def _boxed_matches(boxed: str | None, reference: Fraction) -> bool:
    if boxed is None:
        return False
    given = parse_exact_number(boxed)
    return given is not None and given == reference


def _parse_reference(reference_answer: str) -> Fraction:
    _check_str("reference_answer", reference_answer)
    reference = parse_exact_number(reference_answer)
    if reference is None:
        raise GradingError(f"reference_answer must be a number, got {_describe(reference_answer)}", "bad_reference")
    return reference


def _parse_quotient(num_text: str, den_text: str) -> Fraction | None:
    n = _parse_decimal(num_text.strip(_WHITESPACE))
    d = _parse_decimal(den_text.strip(_WHITESPACE), signed=False)
    if n is None or d is None or d == 0:
        return None
    return n / d


def _parse_decimal(s: str, signed: bool = True) -> Fraction | None:
    m = _DECIMAL_RE.fullmatch(s)
    if not m:
        return None
    sign, int_digits, frac_digits = m.group(1), m.group(2), m.group(3) or ""
    if not signed and sign:
        return None
    count = len(int_digits) + len(frac_digits)
    if count == 0 or count > MAX_ANSWER_DIGITS:
        return None
    magnitude = int(int_digits + frac_digits)
    return Fraction(-magnitude if sign == "-" else magnitude, 10 ** len(frac_digits))


def _unwrap_surrounding(s: str, opener: str) -> str | None:
    """The inside of ``opener ... }`` when the opener's brace matches the final ``}``, else None."""
    if not s.startswith(opener) or not s.endswith("}"):
        return None
    depth = 0
    for i in range(len(opener) - 1, len(s)):
        ch = s[i]
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return s[len(opener) : -1] if i == len(s) - 1 else None
    return None


def _check_str(field: str, value: object) -> None:
    if not isinstance(value, str):
        raise GradingError(f"{field} must be a string, got {_describe(value)}", "bad_type")


def _describe(value: object) -> str:
    if isinstance(value, str):
        return json.dumps(value[:40] + "…" if len(value) > 40 else value, ensure_ascii=False)
    if value is None:
        return "None"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, (bool, int, float)):
        return repr(value)
    return type(value).__name__
