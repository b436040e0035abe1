"""GS1 in TRL: one completion per prompt, the baseline from the other prompts of the batch (tfidf_kernel_loo_T0.1).

Runs on CPU in seconds with no download: a 2-layer Llama with random weights and a character tokenizer built
here stand in for a real model (replace them with ``AutoModelForCausalLM.from_pretrained(...)`` and its
tokenizer). Needs ``pip install rl-advantages trl`` (torch, transformers, datasets come with TRL).

    python python/examples/trl_gs1.py                      # TRL writes to a new temporary directory
    python python/examples/trl_gs1.py --output-dir /tmp/trl-gs1 --estimator loo_batch_mean
"""

from __future__ import annotations

import argparse
import json
import logging
import string
import tempfile

import datasets
import tokenizers
import torch
import transformers

from rl_advantages.integrations.trl import GRPOConfig, GRPOTrainer

QUESTIONS = [
    "how many apples are left after she eats two",
    "what is the sum of the two numbers",
    "how many apples does the farmer sell",
    "the train leaves the station at noon",
    "what is the product of the two numbers",
    "how many pears are left in the basket",
    "she buys three apples and two pears",
    "the bus leaves the station at nine",
]


def tiny_tokenizer() -> transformers.PreTrainedTokenizerFast:
    vocab = {"<pad>": 0, "<eos>": 1, "<bos>": 2, "<unk>": 3}
    for c in string.ascii_lowercase + string.digits + " ?.,":
        vocab[c] = len(vocab)
    tok = tokenizers.Tokenizer(tokenizers.models.WordLevel(vocab=vocab, unk_token="<unk>"))
    tok.pre_tokenizer = tokenizers.pre_tokenizers.Split(pattern="", behavior="isolated")
    tok.decoder = tokenizers.decoders.Fuse()
    return transformers.PreTrainedTokenizerFast(tokenizer_object=tok, pad_token="<pad>", eos_token="<eos>", bos_token="<bos>", unk_token="<unk>")


def tiny_model(tokenizer: transformers.PreTrainedTokenizerFast) -> transformers.PreTrainedModel:
    torch.manual_seed(0)
    config = transformers.LlamaConfig(
        vocab_size=len(tokenizer), hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
        num_key_value_heads=4, max_position_embeddings=128, pad_token_id=tokenizer.pad_token_id,
        eos_token_id=tokenizer.eos_token_id, bos_token_id=tokenizer.bos_token_id,
    )
    return transformers.LlamaForCausalLM(config)


def vowel_reward(prompts, completions, **kwargs):
    """A stand-in reward: the fraction of vowels in the completion."""
    return [sum(ch in "aeiou" for ch in c) / max(len(c), 1) for c in completions]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--output-dir", default=None, help="where TRL writes (default: a new temporary directory)")
    parser.add_argument("--estimator", default="tfidf_kernel_loo_T0.1", help="a catalogue name (rl_adv:NAME too) or its JSON form")
    args = parser.parse_args()
    estimator = json.loads(args.estimator) if args.estimator.startswith("{") else args.estimator
    output_dir = args.output_dir or tempfile.mkdtemp(prefix="trl-gs1-")
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    tokenizer = tiny_tokenizer()
    # A stock TRL script changes in two lines (the import, advantage_estimator=) plus num_generations=1. With no
    # advantage_server the adapter fits GS1's TF-IDF vectorizer on train_dataset's prompts (and logs it).
    config = GRPOConfig(
        output_dir=output_dir, use_cpu=True, bf16=False, report_to="none", seed=0, max_steps=2,
        per_device_train_batch_size=8, num_generations=1, max_completion_length=8,
        beta=0.0, logging_steps=1, save_strategy="no", disable_tqdm=True,
    )
    trainer = GRPOTrainer(
        model=tiny_model(tokenizer), reward_funcs=vowel_reward, args=config,
        train_dataset=datasets.Dataset.from_dict({"prompt": QUESTIONS * 2}), processing_class=tokenizer,
        advantage_estimator=estimator,
    )
    trainer.train()
    result = trainer.last_advantage_result
    print(f"{result.estimator}: advantages of the last step {result.advantages.round(4).tolist()} (TRL wrote to {output_dir})")


if __name__ == "__main__":
    main()
