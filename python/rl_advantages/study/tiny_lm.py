"""A tiny causal LM and a character tokenizer, both built in code (no hub access), for the small world.

The tokenizer is a ``PreTrainedTokenizerFast`` over a fixed character vocabulary (every printable ASCII
character plus ``<pad>``, ``<eos>`` and ``<unk>``): one token per character, decoded by concatenation. The
model is a transformers architecture (``LlamaForCausalLM`` by default) built from the spec's
``model_config`` with weights drawn from ``torch.manual_seed(seed)``. Both are saved with ``save_pretrained``
so every later driver loads the same starting policy from disk.

Example::

    >>> tok = char_tokenizer()
    >>> tok.decode(tok("7+5=")["input_ids"])
    '7+5='
"""

from __future__ import annotations

import string
from typing import Any

PAD, EOS, UNK = "<pad>", "<eos>", "<unk>"
#: The characters of the vocabulary, in id order after the three special tokens.
CHARACTERS = "".join(c for c in string.printable if c not in "\t\n\r\x0b\x0c")


def char_tokenizer() -> Any:
    """The character tokenizer: ids 0-2 are ``<pad>``, ``<eos>``, ``<unk>``, then :data:`CHARACTERS`."""
    from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    vocab = {PAD: 0, EOS: 1, UNK: 2}
    for c in CHARACTERS:
        vocab[c] = len(vocab)
    core = Tokenizer(models.WordLevel(vocab=vocab, unk_token=UNK))
    core.pre_tokenizer = pre_tokenizers.Split(Regex("."), behavior="isolated")
    core.decoder = decoders.Fuse()
    tok = PreTrainedTokenizerFast(tokenizer_object=core, pad_token=PAD, eos_token=EOS, unk_token=UNK)
    tok.padding_side = "left"
    return tok


_ARCHITECTURES = ("LlamaForCausalLM", "Qwen2ForCausalLM")


def build_model(model_config: dict[str, Any], vocab_size: int, pad_id: int, eos_id: int, seed: int) -> Any:
    """A randomly initialised causal LM from ``model_config`` (``architecture`` plus the config's fields).

    Raises ``ValueError`` naming the field for an architecture outside ``LlamaForCausalLM`` and
    ``Qwen2ForCausalLM``.
    """
    import torch
    import transformers

    fields = dict(model_config)
    architecture = fields.pop("architecture", "LlamaForCausalLM")
    if architecture not in _ARCHITECTURES:
        raise ValueError(f'model_config.architecture must be one of {", ".join(_ARCHITECTURES)}, got {architecture!r}')
    config_class = transformers.LlamaConfig if architecture == "LlamaForCausalLM" else transformers.Qwen2Config
    config = config_class(vocab_size=vocab_size, pad_token_id=pad_id, eos_token_id=eos_id, bos_token_id=eos_id, **fields)
    torch.manual_seed(seed)
    model = getattr(transformers, architecture)(config)
    model.generation_config.pad_token_id = pad_id
    model.generation_config.eos_token_id = eos_id
    return model
