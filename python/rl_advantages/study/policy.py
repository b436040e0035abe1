"""The starting policy and sampling from it: the small world's pre-training (a short supervised phase that teaches
the answer format and some arithmetic), loading a policy (the starting one, or it plus an arm's LoRA adapter), and
batched sampling and greedy decoding with the arms' generation settings.

The starting policy lives in ``RUN/trl/init`` (the small world's, built and pre-trained there once, with
``pretrain.json``) or is the spec's ``base_model`` / ``--model PATH``. Everything is seeded: the same seed gives
the same weights and the same samples (the drivers run with ``torch.use_deterministic_algorithms(True)``).
"""

from __future__ import annotations

import dataclasses
import os
import random
import time
from typing import Any, Sequence

from ..grading import grade_gsm8k_response
from .settings import DriverError, Item, Settings, render, write_json
from .tiny_lm import build_model, char_tokenizer

#: Sequences per forward pass when sampling or decoding.
CHUNK = 256


def init_dir(run_dir: str) -> str:
    return os.path.join(run_dir, "trl", "init")


def base_model_source(settings: Settings) -> str:
    """The spec's ``base_model`` as ``from_pretrained`` takes it: a local folder (``save_pretrained`` output) when
    the name is an absolute path, starts with ``./`` or ``../``, or names a folder beside the spec; else a hub name
    (``org/name``), resolved through the Hugging Face cache (``HF_HOME`` / ``HF_HUB_CACHE``, ``HF_HUB_OFFLINE``)."""
    name = settings.base_model
    if os.path.isabs(name):
        return name
    beside = os.path.normpath(os.path.join(settings.spec_dir, name))
    if name.startswith(("./", "../")) or os.path.isdir(beside):
        return beside
    return name


def is_local(source: str) -> bool:
    return os.path.isabs(source)


def policy_source(settings: Settings, run_dir: str, model: str | None) -> str:
    """Where the starting policy is loaded from: ``--model``, the small world's ``RUN/trl/init``, or the spec's
    ``base_model`` (:func:`base_model_source`)."""
    if model:
        return model
    return init_dir(run_dir) if settings.world else base_model_source(settings)


def load_tokenizer(source: str) -> Any:
    """The model's own tokenizer (its chat template with it), left-padded; its EOS pads when it has no pad token."""
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(source)
    tok.padding_side = "left"
    if tok.pad_token is None:
        tok.pad_token = tok.eos_token
    return tok


def with_renderer(settings: Settings, source: str) -> Settings:
    """The settings with the spec's ``renderer`` resolved against the model's tokenizer: ``"plain"`` (the question
    as text), a chat renderer (any other name: the tokenizer's own chat template, which it must have), or, when the
    spec names none, the chat template if the tokenizer has one, else plain (the small world's has none).

    Raises:
        DriverError: the spec names a chat renderer and the tokenizer has no chat template.
    """
    if settings.renderer == "plain":
        return settings
    template = getattr(load_tokenizer(source), "chat_template", None)
    if settings.renderer == "auto":
        return dataclasses.replace(settings, renderer="chat" if template else "plain")
    if not template:
        raise DriverError(
            f'field "renderer": {settings.renderer!r} renders prompts with the chat template of the tokenizer, and the tokenizer '
            f'of {source} has none: set "renderer": "plain" (the question as text) or use a model whose tokenizer has one'
        )
    return settings


def torch_dtype(settings: Settings) -> Any:
    """The weights' dtype for the spec's ``dtype``: bfloat16 as is; float16 only under LoRA (peft keeps the adapter
    in float32, and TRL's fp16 mixed precision cannot unscale float16 gradients of a whole model, which then loads in
    float32); float32 otherwise.

    Raises:
        DriverError: bfloat16 or float16 without a GPU (``torch.cuda.is_available()`` is False).
    """
    import torch

    if settings.dtype != "float32" and not torch.cuda.is_available():
        raise DriverError(
            f'field "dtype": {settings.dtype} needs a GPU (torch.cuda.is_available() is False), and this run has none: set '
            '"dtype": "float32" to run on the CPU'
        )
    if settings.dtype == "bfloat16":
        return torch.bfloat16
    if settings.dtype == "float16" and settings.lora is not None:
        return torch.float16
    return torch.float32


def load_base(settings: Settings, source: str) -> Any:
    """The starting policy to train, in the spec's dtype (:func:`torch_dtype`)."""
    from transformers import AutoModelForCausalLM

    return AutoModelForCausalLM.from_pretrained(source, dtype=torch_dtype(settings))


def load_policy(settings: Settings, source: str, adapter: str | None = None) -> Any:
    """The starting policy (in the spec's dtype), with an arm's LoRA adapter merged in when given, or an arm's whole
    trained model (full fine-tuning: a folder without ``adapter_config.json``); on the GPU when there is one, in eval mode."""
    import torch
    from transformers import AutoModelForCausalLM

    full = adapter is not None and not os.path.exists(os.path.join(adapter, "adapter_config.json"))
    model = AutoModelForCausalLM.from_pretrained(adapter if full else source, dtype=torch_dtype(settings))
    if adapter and not full:
        from peft import PeftModel

        model = PeftModel.from_pretrained(model, adapter).merge_and_unload()
    if torch.cuda.is_available():
        model = model.to("cuda")
    model.eval()
    return model


def _prompt_texts(settings: Settings, tok: Any, questions: Sequence[str]) -> list[str]:
    """The text the policy continues: the question (``plain``), or the one-turn chat in the tokenizer's own template
    with the generation prompt (``enable_thinking=False``, which templates without thinking ignore)."""
    prompts = [render(settings, q) for q in questions]
    if settings.renderer == "plain":
        return list(prompts)
    return [tok.apply_chat_template(p, tokenize=False, add_generation_prompt=True, enable_thinking=False) for p in prompts]


def generate(settings: Settings, model: Any, tok: Any, questions: Sequence[str], greedy: bool) -> list[tuple[str, bool]]:
    """One completion per question: ``(text, stopped)``, ``stopped`` when it ended with EOS within max_tokens.

    Sampling uses the arms' settings (temperature, top_p 1, top_k 0, max_tokens) and the torch generator as
    seeded by the caller; greedy decoding is the eval's.
    """
    import torch

    texts = _prompt_texts(settings, tok, questions)
    out: list[tuple[str, bool]] = []
    for start in range(0, len(texts), CHUNK):
        enc = tok(texts[start : start + CHUNK], return_tensors="pt", padding=True, add_special_tokens=False).to(model.device)
        kwargs: dict[str, Any] = {"max_new_tokens": settings.max_tokens, "pad_token_id": tok.pad_token_id, "eos_token_id": tok.eos_token_id}
        if greedy:
            kwargs.update(do_sample=False)
        else:
            kwargs.update(do_sample=True, temperature=settings.temperature, top_p=1.0, top_k=0)
        with torch.no_grad():
            ids = model.generate(**enc, **kwargs)[:, enc["input_ids"].shape[1] :]
        for row in ids.tolist():
            stopped = tok.eos_token_id in row
            if stopped:
                row = row[: row.index(tok.eos_token_id)]
            out.append((tok.decode(row, skip_special_tokens=True), stopped))
    return out


def grade(items: Sequence[Item], completions: Sequence[tuple[str, bool]]) -> list[dict[str, Any]]:
    """Each completion graded by our grader (docs/method.md section 7): correct, reward, the response."""
    rows = []
    for item, (text, stopped) in zip(items, completions):
        g = grade_gsm8k_response(text, item.reference, stopped_cleanly=stopped)
        rows.append({"item_id": item.task_id, "correct": g.correct, "reward": g.reward, "response": text})
    return rows


# ---------------------------------------------------------------------------------------------------
# The small world's pre-training


def taught_answers(items: Sequence[Item], slip_fraction: float, seed: int, operations: Sequence[str] | None = None) -> list[str]:
    """The answers the pre-training teaches: the reference, except on a ``slip_fraction`` of the items (drawn with
    ``random.Random(seed)``, independently per item) whose question starts with one of ``operations`` (None: every
    item), where it is the reference plus one, a systematic slip.

    The slip is the small world's model of imperfect demonstrations: the starting policy puts probability on a
    consistent wrong answer, which a verifier's reward can correct by RL (docs/trl.md, "Making the small world
    learn"). The held-out starting accuracy is graded against the true references.

    >>> taught_answers([Item("a", "plus 1x1: 3 + 4 =", "7"), Item("b", "minus 1x1: 1 - 4 =", "-3")], 1.0, 0)
    ['8', '-2']
    >>> taught_answers([Item("a", "plus 1x1: 3 + 4 =", "7"), Item("b", "times 1x1: 2 * 4 =", "8")], 1.0, 0, ["plus"])
    ['8', '8']
    """
    rng = random.Random(seed)
    out = []
    for item in items:
        eligible = operations is None or item.question.split(" ", 1)[0] in operations
        slipped = rng.random() < slip_fraction and eligible
        out.append(str(int(item.reference) + 1) if slipped else item.reference)
    return out


def _sft_batch(tok: Any, items: Sequence[Item], answers: Sequence[str]) -> dict[str, Any]:
    """Prompt + ``\\boxed{answer}`` + EOS, left-padded; the loss only on the answer and EOS."""
    import torch

    seqs, prompt_lens = [], []
    for item, taught in zip(items, answers):
        prompt = tok(item.question, add_special_tokens=False)["input_ids"]
        answer = tok("\\boxed{" + taught + "}", add_special_tokens=False)["input_ids"] + [tok.eos_token_id]
        seqs.append(prompt + answer)
        prompt_lens.append(len(prompt))
    width = max(len(s) for s in seqs)
    ids = torch.full((len(seqs), width), tok.pad_token_id, dtype=torch.long)
    mask = torch.zeros((len(seqs), width), dtype=torch.long)
    labels = torch.full((len(seqs), width), -100, dtype=torch.long)
    for i, (seq, plen) in enumerate(zip(seqs, prompt_lens)):
        pad = width - len(seq)
        ids[i, pad:] = torch.tensor(seq)
        mask[i, pad:] = 1
        labels[i, pad + plen :] = torch.tensor(seq[plen:])
    return {"input_ids": ids, "attention_mask": mask, "labels": labels}


def pretrain(settings: Settings, run_dir: str, sft_items: Sequence[Item], seed: int) -> dict[str, Any]:
    """Builds the small world's model from ``model_config`` (seed ``seed``) and teaches it on ``sft_items``.

    The spec's ``pretrain``: ``steps`` AdamW steps of ``batch_size`` items taken in file order (cycling), lr
    ``lr`` with linear warm-up over the first 5% and linear decay to 10%; the last ``eval_items`` items are
    held out and decoded greedily for the starting accuracy. Writes the model and tokenizer to
    ``RUN/trl/init`` and returns (and writes) ``pretrain.json``.
    """
    import torch

    p = settings.pretrain or {}
    steps, batch, lr, held = int(p.get("steps", 500)), int(p.get("batch_size", 64)), float(p.get("lr", 3e-3)), int(p.get("eval_items", 500))
    if len(sft_items) <= held:
        raise DriverError(f"the sft split has {len(sft_items)} items; pretrain.eval_items {held} must leave some to train on")
    slip = float(p.get("slip_fraction", 0.0))
    if not 0.0 <= slip <= 1.0:
        raise DriverError(f'field "pretrain.slip_fraction": must be a number in [0, 1] (the fraction of demonstrations taught the answer plus one), got {slip}')
    train, heldout = sft_items[:-held], sft_items[-held:]
    slip_ops = p.get("slip_operations")
    if slip_ops is not None and (not isinstance(slip_ops, list) or not all(isinstance(o, str) and o for o in slip_ops)):
        raise DriverError(f'field "pretrain.slip_operations": must be a list of operation words (e.g. ["plus", "minus"]), got {slip_ops!r}')
    answers = taught_answers(train, slip, seed, slip_ops)
    tok = char_tokenizer()
    model = build_model(settings.model_config or {}, len(tok), tok.pad_token_id, tok.eos_token_id, seed)
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.0)
    warmup = max(1, steps // 20)
    started = time.perf_counter()
    model.train()
    losses = []
    for step in range(steps):
        at = [(step * batch + k) % len(train) for k in range(batch)]
        chunk, taught = [train[i] for i in at], [answers[i] for i in at]
        scale = min(1.0, (step + 1) / warmup) * max(0.1, 1.0 - step / steps)
        for group in optimizer.param_groups:
            group["lr"] = lr * scale
        loss = model(**_sft_batch(tok, chunk, taught)).loss
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        optimizer.zero_grad()
        losses.append(loss.item())
    model.eval()
    rows = grade(heldout, generate(settings, model, tok, [i.question for i in heldout], greedy=True))
    accuracy = sum(r["correct"] for r in rows) / len(rows)
    out = init_dir(run_dir)
    model.save_pretrained(out)
    tok.save_pretrained(out)
    report = {
        "steps": steps,
        "batch_size": batch,
        "lr": lr,
        "seed": seed,
        "parameters": sum(t.numel() for t in model.parameters()),
        "final_loss": losses[-1],
        "slip_fraction": slip,
        "slip_operations": slip_ops,
        "heldout_items": held,
        "heldout_accuracy": accuracy,
        "target_accuracy": list(p.get("target_accuracy", [0.3, 0.7])),
        "seconds": round(time.perf_counter() - started, 3),
    }
    write_json(os.path.join(out, "pretrain.json"), report)
    return report
