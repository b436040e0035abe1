"""tinker-cookbook: which GSM8K question a trajectory group was asked (the text the kernel estimators read).

Part of :mod:`rl_advantages.integrations.tinker_cookbook` (re-exported there). The kernel's text is the task's
GSM8K ``question``, never the rendered chat prompt: :class:`QuestionResolver` takes it from the group's builder
(``ProblemGroupBuilder.env_thunk`` is ``partial(MathEnv, question, answer, renderer, ...)`` in
tinker-cookbook 9dfcc3a2) and checks it against the trajectory's decoded first observation; when the builder
does not give it, it finds the known GSM8K question that the observation ends with.
"""

from __future__ import annotations

import functools
from typing import Any, Sequence

__all__ = ["QUESTION_SUFFIX", "QuestionRecoveryError", "QuestionResolver"]

#: ``MathEnv.question_suffix()`` in tinker-cookbook: the user turn is question + this suffix.
QUESTION_SUFFIX = " Write your answer in \\boxed{} format."

class QuestionRecoveryError(RuntimeError):
    """The GSM8K question of a trajectory could not be recovered, or two sources disagree."""


def _norm(text: str) -> str:
    return " ".join(text.split())


class QuestionResolver:
    """Recovers the GSM8K question of each trajectory.

    Args:
        known_questions: the GSM8K train questions (the rows the cookbook samples from). When empty,
            the builder is the only source and nothing is cross-checked against the data set.
        suffix: the text the environment appends to the question in the user turn.
    """

    def __init__(self, known_questions: Sequence[str] = (), suffix: str = QUESTION_SUFFIX):
        self.suffix = suffix
        self._norm_suffix = _norm(suffix)
        self._known: dict[str, str] = {}
        self._by_tail: dict[str, list[str]] = {}
        for q in known_questions:
            n = _norm(q)
            self._known.setdefault(n, q)
            self._by_tail.setdefault(n[-8:], []).append(n)

    @staticmethod
    def from_builder(builder: Any) -> str | None:
        """The question a cookbook ``ProblemGroupBuilder`` will put in its envs, or None.

        ``env_thunk`` is ``functools.partial(MathEnv, problem, answer, renderer, convo_prefix=...)`` in the
        cookbook's GSM8K dataset; any other thunk is called once and its env's ``problem`` read.
        """
        thunk = getattr(builder, "env_thunk", None)
        if thunk is None:
            return None
        if isinstance(thunk, functools.partial):
            if thunk.args and isinstance(thunk.args[0], str):
                return thunk.args[0]
            problem = thunk.keywords.get("problem") if thunk.keywords else None
            if isinstance(problem, str):
                return problem
        try:
            env = thunk()
        except Exception:  # a thunk that cannot be called here gives no answer, not a crash
            return None
        problem = getattr(env, "problem", None)
        return problem if isinstance(problem, str) else None

    def from_observation(self, text: str) -> str | None:
        """The known question whose ``question + suffix`` is the last user turn in ``text``, or None."""
        n = _norm(text)
        at = n.rfind(self._norm_suffix)
        if at < 0:
            return None
        head = n[:at].rstrip()
        candidates = self._by_tail.get(head[-8:], [])
        best = None
        for q in candidates:
            if head.endswith(q) and (best is None or len(q) > len(best)):
                best = q
        if best is None:  # questions shorter than the bucket key
            for q in self._known:
                if len(q) < 8 and head.endswith(q) and (best is None or len(q) > len(best)):
                    best = q
        return None if best is None else self._known[best]

    def decode_first_observation(self, trajectory: Any, tokenizer: Any) -> str | None:
        """The text of the trajectory's first observation, or None when it cannot be decoded."""
        if tokenizer is None:
            return None
        transitions = getattr(trajectory, "transitions", None)
        if not transitions:
            return None
        try:
            tokens = transitions[0].ob.to_ints()
        except Exception:  # non-text chunks, or an empty synthetic transition
            return None
        if not tokens:
            return None
        # No tokenization-space clean-up: it would turn " ," into "," (23 GSM8K train questions contain " ,",
        # " ." or " 's"), so the decoded prompt would no longer contain the question verbatim.
        return str(tokenizer.decode(tokens, clean_up_tokenization_spaces=False))

    def resolve(self, builder: Any, trajectories: Sequence[Any], tokenizer: Any, where: str = "") -> str:
        """The GSM8K question of a group: from its builder, checked against every decoded observation.

        Raises:
            QuestionRecoveryError: no source gives it, the builder's question is not a known GSM8K
                question, or an observation does not end with ``question + suffix``.
        """
        from_builder = self.from_builder(builder)
        texts = [self.decode_first_observation(t, tokenizer) for t in trajectories]
        if from_builder is not None:
            question = from_builder
            if self._known and _norm(question) not in self._known:
                raise QuestionRecoveryError(f"{where}the builder's question is not a GSM8K train question: {question[:120]!r}")
            expected = _norm(question + self.suffix)
            for i, text in enumerate(texts):
                if text is not None and expected not in _norm(text):
                    raise QuestionRecoveryError(
                        f"{where}trajectory {i}'s prompt does not contain its builder's question + suffix: "
                        f"question {question[:80]!r}, prompt ends {_norm(text)[-160:]!r}"
                    )
            return question
        found = [self.from_observation(t) for t in texts if t is not None]
        if not found or any(q is None for q in found):
            raise QuestionRecoveryError(
                f"{where}cannot recover the GSM8K question: the builder does not carry it "
                + ("and no trajectory could be decoded" if not found else "and a decoded prompt matches no known question")
            )
        if len(set(found)) != 1:
            raise QuestionRecoveryError(f"{where}the trajectories of one group show different questions")
        return found[0]  # type: ignore[return-value]

