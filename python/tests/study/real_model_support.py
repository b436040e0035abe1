"""A small Hugging Face model as a user would have one: a 2-layer Qwen2 with random weights (seed 0) and a real
``tokenizers`` tokenizer (character WordLevel) with a chat template, written by ``save_pretrained`` to a folder, and
the same files laid out as the Hugging Face hub cache keeps a downloaded model
(``HF_HUB_CACHE/models--ORG--NAME/snapshots/REV/`` with ``refs/main``), so that ``from_pretrained("ORG/NAME")`` with
``HF_HUB_OFFLINE=1`` loads it exactly as a hub model. Nothing is downloaded.
"""

from __future__ import annotations

import os
import shutil
import string
from pathlib import Path

#: The hub name the cached copy answers to.
HUB_NAME = "tiny-org/tiny-qwen2-chat"
#: The snapshot's revision (a commit hash, as the hub cache names it).
REVISION = "0123456789abcdef0123456789abcdef01234567"

CHAT_TEMPLATE = (
    "{% for message in messages %}<|im_start|>{{ message['role'] }}\n{{ message['content'] }}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)


def make_tokenizer():
    import tokenizers
    import transformers

    vocab = {"<pad>": 0, "<|im_end|>": 1, "<|im_start|>": 2, "<unk>": 3}
    for c in string.ascii_letters + string.digits + " ?.,:+-*=\\{}()\n":
        vocab.setdefault(c, len(vocab))
    tok = tokenizers.Tokenizer(tokenizers.models.WordLevel(vocab=vocab, unk_token="<unk>"))
    tok.pre_tokenizer = tokenizers.pre_tokenizers.Split(pattern="", behavior="isolated")
    tok.decoder = tokenizers.decoders.Fuse()
    out = transformers.PreTrainedTokenizerFast(
        tokenizer_object=tok, pad_token="<pad>", eos_token="<|im_end|>", unk_token="<unk>", additional_special_tokens=["<|im_start|>"]
    )
    out.chat_template = CHAT_TEMPLATE
    return out


def save_model(folder: Path) -> Path:
    """The model and tokenizer, ``save_pretrained`` into ``folder``."""
    import torch
    import transformers

    tok = make_tokenizer()
    config = transformers.Qwen2Config(
        vocab_size=len(tok), hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
        num_key_value_heads=2, max_position_embeddings=256, tie_word_embeddings=False,
        pad_token_id=tok.pad_token_id, eos_token_id=tok.eos_token_id, bos_token_id=None,
    )
    torch.manual_seed(0)
    model = transformers.Qwen2ForCausalLM(config)
    model.generation_config.pad_token_id, model.generation_config.eos_token_id = tok.pad_token_id, tok.eos_token_id
    model.save_pretrained(folder)
    tok.save_pretrained(folder)
    return folder


def hub_cache(folder: Path, cache: Path, name: str = HUB_NAME) -> Path:
    """``folder``'s files as the hub cache ``cache`` (HF_HUB_CACHE) keeps ``name`` at :data:`REVISION`."""
    root = cache / ("models--" + name.replace("/", "--"))
    snapshot = root / "snapshots" / REVISION
    snapshot.mkdir(parents=True)
    for item in os.listdir(folder):
        shutil.copy2(folder / item, snapshot / item)
    (root / "refs").mkdir()
    (root / "refs" / "main").write_text(REVISION, encoding="utf-8")
    return snapshot


def teach(folder: Path, steps: int = 80, seed: int = 0) -> dict:
    """A short supervised phase on the saved model (as a base model is pre-trained before RL), so that the starting
    policy answers in the graded format and sometimes right and the study's rewards vary (a model with random
    weights scores -0.1 on every rollout, and the preflight's gradient checks then compare zeros): one-digit sums
    ``plus 1x1: a + b =`` in the chat the study renders (its ``GSM8K_SUFFIX``), the loss on ``\\boxed{a + b}`` and
    the end of turn, ``steps`` AdamW steps of 16 (80: it answers in the format, often wrongly). Saved over the folder; returns the last loss."""
    import random

    import torch
    import transformers

    from rl_advantages.study.settings import GSM8K_SUFFIX

    tok = transformers.AutoTokenizer.from_pretrained(folder)
    model = transformers.AutoModelForCausalLM.from_pretrained(folder, dtype=torch.float32)
    rng = random.Random(seed)
    torch.manual_seed(seed)
    torch.set_num_threads(1)
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.0)
    model.train()
    loss = None
    for _ in range(steps):
        seqs, starts = [], []
        for _ in range(16):
            a, b = rng.randrange(10), rng.randrange(10)
            chat = [{"role": "user", "content": f"plus 1x1: {a} + {b} =" + GSM8K_SUFFIX}]
            prompt = tok.apply_chat_template(chat, tokenize=False, add_generation_prompt=True)
            ids = tok(prompt, add_special_tokens=False)["input_ids"]
            seqs.append(ids + tok("\\boxed{" + str(a + b) + "}", add_special_tokens=False)["input_ids"] + [tok.eos_token_id])
            starts.append(len(ids))
        width = max(len(s) for s in seqs)
        input_ids = torch.full((len(seqs), width), tok.pad_token_id)
        labels = torch.full((len(seqs), width), -100)
        mask = torch.zeros((len(seqs), width), dtype=torch.long)
        for i, (s, start) in enumerate(zip(seqs, starts)):
            input_ids[i, : len(s)], mask[i, : len(s)] = torch.tensor(s), 1
            labels[i, start : len(s)] = torch.tensor(s[start:])
        loss = model(input_ids=input_ids, attention_mask=mask, labels=labels).loss
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
    model.save_pretrained(folder)
    return {"loss": loss.item()}
