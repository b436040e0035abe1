"""What the TRL tests share beyond test_trl.py: a tokenizer with a tool-calling chat template (TRL's own Qwen3 template
file, shipped in trl/chat_templates, which ``environment_factory`` needs), an environment, rewards that read chat
completions, and one training run that records the advantages TRL trains on.

The model is test_trl.py's 2-layer Llama with random weights from a fixed seed; nothing is downloaded.
"""

from __future__ import annotations

import os
import string
from typing import Any

import numpy as np
import tokenizers
import transformers
import trl

from test_trl import PROMPTS, make_model, make_tokenizer  # noqa: F401

os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")


def make_chat_tokenizer() -> transformers.PreTrainedTokenizerFast:
    """A character tokenizer whose chat template is TRL's Qwen3 one (tool calling; trl/chat_templates/qwen3.jinja)."""
    vocab = {"<pad>": 0, "<eos>": 1, "<bos>": 2, "<unk>": 3}
    for c in string.ascii_letters + string.digits + " ?.,<>|_/\n{}[]\":'-=()*#!`":
        vocab.setdefault(c, len(vocab))
    tok = tokenizers.Tokenizer(tokenizers.models.WordLevel(vocab=vocab, unk_token="<unk>"))
    tok.pre_tokenizer = tokenizers.pre_tokenizers.Split(pattern="", behavior="isolated")
    tok.decoder = tokenizers.decoders.Fuse()
    out = transformers.PreTrainedTokenizerFast(tokenizer_object=tok, pad_token="<pad>", eos_token="<eos>", bos_token="<bos>", unk_token="<unk>")
    with open(os.path.join(os.path.dirname(trl.__file__), "chat_templates", "qwen3.jinja"), encoding="utf-8") as handle:
        out.chat_template = handle.read()
    return out


class QuestionEnv:
    """An environment that owns the prompt: ``reset(question=...)`` returns the question, which TRL appends to the
    (empty) user message (grpo_trainer.py:2406-2420 in 1.13.0). ``silent=True`` returns None (the prompt stays empty).
    No tool methods: a tool's schema would be rendered into every prompt, making the runs slower and changing nothing here."""

    silent = False

    def reset(self, question: str | None = None, **kwargs: Any) -> str | None:
        return None if self.silent else question


class SilentEnv(QuestionEnv):
    silent = True


def _text(completion: Any) -> str:
    if isinstance(completion, str):
        return completion
    return "".join(str(m.get("content") or "") for m in completion)


def vowels(prompts, completions, **kwargs):
    """Fraction of vowels of the completion (a string, or a chat's messages)."""
    return [sum(ch in "aeiou" for ch in t) / max(len(t), 1) for t in map(_text, completions)]


def vowels_or_none(prompts, completions, **kwargs):
    """As vowels, None (unscorable) for completions of a length divisible by 4."""
    return [None if len(_text(c)) % 4 == 0 else r for c, r in zip(completions, vowels(prompts, completions))]


def length(prompts, completions, **kwargs):
    """Length of the completion over 8: a second reward function, to weigh against ``vowels``."""
    return [len(_text(c)) / 8.0 for c in completions]


def config(cls, out: str, **overrides: Any):
    kwargs: dict[str, Any] = dict(
        output_dir=out, use_cpu=True, bf16=False, report_to="none", seed=0, max_steps=2, per_device_train_batch_size=8,
        num_generations=4, max_completion_length=6, beta=0.0, logging_steps=1, save_strategy="no", learning_rate=1e-3,
        disable_tqdm=True,
    )
    kwargs.update(overrides)
    return cls(**kwargs)


def train(trainer, resume: str | None = None) -> list[dict[str, Any]]:
    """Trains; returns, per generation, the advantages TRL trains on (this process's) and what the adapter computed on."""
    steps: list[dict[str, Any]] = []
    original = trainer._generate_and_score_completions

    def capture(inputs):
        out = original(inputs)
        record = {"advantages": out["advantages"].detach().double().cpu().numpy()}
        if getattr(trainer, "last_advantage_inputs", None) is not None:
            record["inputs"] = dict(trainer.last_advantage_inputs)
        steps.append(record)
        return out

    trainer._generate_and_score_completions = capture
    trainer.train(resume_from_checkpoint=resume)
    return steps


def losses(trainer) -> np.ndarray:
    return np.array([h["loss"] for h in trainer.state.log_history if "loss" in h], dtype=np.float64)


def max_diff(a: list[dict[str, Any]], b: list[dict[str, Any]]) -> float:
    assert len(a) == len(b) and len(a) > 0
    return max(float(np.max(np.abs(x["advantages"] - y["advantages"]))) for x, y in zip(a, b))
