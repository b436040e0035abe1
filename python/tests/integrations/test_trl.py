"""The TRL adapter against the real TRL (trl 1.13.0, transformers, CPU torch): two training steps each.

No hub access: the model is a 2-layer Llama with hidden size 32 and random weights from a fixed seed, the
tokenizer a character-level WordLevel tokenizer built here. Rewards are a deterministic function of the
completion text, so two runs with the same seed sample the same completions and get the same rewards.

- stock ``trl.GRPOTrainer`` with ``scale_rewards="none"`` (A = r - group mean, grpo_trainer.py:2785-2808 in
  1.13.0) and ``GRPOTrainer(advantage_estimator="group_mean")`` give the same advantages (max |diff| <= 1e-6:
  TRL computes in float32, the estimator in float64);
- ``num_generations=1`` with ``tfidf_kernel_loo_T0.1`` trains 2 steps and its advantages are the estimator's on
  the same prompts and rewards, computed again outside the trainer.
"""

from __future__ import annotations

import string

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("trl")
transformers = pytest.importorskip("transformers")
datasets = pytest.importorskip("datasets")
tokenizers = pytest.importorskip("tokenizers")

import trl  # noqa: E402

import rl_advantages  # noqa: E402
from rl_advantages.integrations.trl import GRPOConfig, GRPOTrainer  # noqa: E402

PROMPTS = [
    "how many apples are left",
    "what is the sum of two numbers",
    "how many apples does she eat",
    "the train leaves at noon",
    "what is the product of the numbers",
    "how many pears are left",
    "she buys three apples",
    "the bus leaves at nine",
]


def make_tokenizer() -> transformers.PreTrainedTokenizerFast:
    chars = list(string.ascii_lowercase + string.digits + " ?.,")
    vocab = {"<pad>": 0, "<eos>": 1, "<bos>": 2, "<unk>": 3}
    for c in chars:
        vocab[c] = len(vocab)
    model = tokenizers.models.WordLevel(vocab=vocab, unk_token="<unk>")
    tok = tokenizers.Tokenizer(model)
    tok.pre_tokenizer = tokenizers.pre_tokenizers.Split(pattern="", behavior="isolated")
    tok.decoder = tokenizers.decoders.Fuse()
    return transformers.PreTrainedTokenizerFast(
        tokenizer_object=tok, pad_token="<pad>", eos_token="<eos>", bos_token="<bos>", unk_token="<unk>"
    )


def make_model(tokenizer: transformers.PreTrainedTokenizerFast) -> transformers.PreTrainedModel:
    torch.manual_seed(0)
    config = transformers.LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=4,
        max_position_embeddings=128,
        pad_token_id=tokenizer.pad_token_id,
        eos_token_id=tokenizer.eos_token_id,
        bos_token_id=tokenizer.bos_token_id,
    )
    return transformers.LlamaForCausalLM(config)


SEEN: list[tuple[str, float]] = []


def reward_vowels(prompts, completions, **kwargs):
    """Fraction of vowels in the completion (a deterministic, varied reward)."""
    out = []
    for p, c in zip(prompts, completions):
        r = sum(ch in "aeiou" for ch in c) / max(len(c), 1)
        SEEN.append((p, r))
        out.append(r)
    return out


def reward_vowels_or_none(prompts, completions, **kwargs):
    """As reward_vowels, but None (unscorable) for completions of a length divisible by 4: TRL masks those rows out
    of the group mean and gives them A = 0 (grpo_trainer.py:2790, :2836 in 1.13.0); the adapter masks them too."""
    out = reward_vowels(prompts, completions)
    return [None if len(c) % 4 == 0 else r for c, r in zip(completions, out)]


def run(trainer_cls, tmp_path, num_generations: int, reward=reward_vowels, **extra):
    tokenizer = make_tokenizer()
    model = make_model(tokenizer)
    args_cls = GRPOConfig if num_generations == 1 else trl.GRPOConfig
    args = args_cls(
        output_dir=str(tmp_path / trainer_cls.__module__.replace(".", "_")),
        use_cpu=True,
        bf16=False,
        report_to="none",
        seed=0,
        max_steps=2,
        per_device_train_batch_size=8,
        num_generations=num_generations,
        max_completion_length=6,
        scale_rewards="none",
        beta=0.0,
        logging_steps=1,
        save_strategy="no",
        learning_rate=1e-3,
        disable_tqdm=True,
    )
    dataset = datasets.Dataset.from_dict({"prompt": PROMPTS * 2})
    trainer = trainer_cls(model=model, reward_funcs=reward, args=args, train_dataset=dataset, processing_class=tokenizer, **extra)
    captured: list[dict[str, np.ndarray]] = []
    original = trainer._generate_and_score_completions

    def capture(inputs):
        out = original(inputs)
        captured.append({"advantages": out["advantages"].detach().double().cpu().numpy(), "prompts": [x["prompt"] for x in inputs]})
        if getattr(trainer, "last_advantage_inputs", None) is not None:
            captured[-1]["inputs"] = dict(trainer.last_advantage_inputs)
        return out

    trainer._generate_and_score_completions = capture
    SEEN.clear()
    trainer.train()
    # what TRL logs (the completions table's "advantage" column): the last generation batch
    captured[-1]["logged"] = np.array(list(trainer._logs["advantages"]), dtype=np.float64)
    return trainer, captured, list(SEEN)


def test_group_mean_equals_stock_trl(tmp_path):
    _, stock, stock_seen = run(trl.GRPOTrainer, tmp_path, 4, reward=reward_vowels_or_none)
    _, ours, ours_seen = run(GRPOTrainer, tmp_path, 4, reward=reward_vowels_or_none, advantage_estimator="group_mean")
    assert len(stock) == len(ours) == 2
    assert stock_seen == ours_seen  # same completions, same rewards: the comparison is of the advantages alone
    diffs = [float(np.max(np.abs(a["advantages"] - b["advantages"]))) for a, b in zip(stock, ours)]
    assert max(diffs) <= 1e-6, diffs
    assert np.max(np.abs(stock[-1]["logged"] - ours[-1]["logged"])) <= 1e-6
    assert np.array_equal(ours[-1]["logged"], ours[-1]["advantages"])  # one process: the log is the whole batch
    # not a vacuous comparison: the rewards vary inside groups
    assert any(np.any(np.abs(a["advantages"]) > 1e-3) for a in stock)
    masked = [step["inputs"]["rewards"] for step in ours]
    assert any(np.isnan(r).any() for r in masked)  # some completions were unscorable (masked), in both runs
    print("group_mean vs stock TRL max |diff|:", max(diffs))


def test_gs1_tfidf_kernel_loo_trains(tmp_path):
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("".join(f'{{"question": "{p}"}}\n' for p in PROMPTS))
    with rl_advantages.Server(corpus=str(corpus)) as server:
        trainer, ours, _ = run(GRPOTrainer, tmp_path, 1, advantage_estimator="tfidf_kernel_loo_T0.1", advantage_server=server)
        assert trainer.state.global_step == 2
        logged = [h["rl_adv/zero_advantage_fraction"] for h in trainer.state.log_history if "rl_adv/zero_advantage_fraction" in h]
        groups_of_one = [h["rl_adv/groups_of_one"] for h in trainer.state.log_history if "rl_adv/groups_of_one" in h]
        diagnostics = []
        assert len(ours) == 2
        worst = 0.0
        for step in ours:
            inputs = step["inputs"]
            assert inputs["prompts"] == step["prompts"]  # one completion per prompt, prompts as given
            again = rl_advantages.compute_advantages("tfidf_kernel_loo_T0.1", inputs["rewards"], prompts=inputs["prompts"], server=server)
            diagnostics.append(float(again.diagnostics["zero_advantage_fraction"]))
            expected = again.advantages.astype(np.float32).astype(np.float64)  # TRL keeps advantages in float32
            worst = max(worst, float(np.max(np.abs(step["advantages"] - expected))))
            if "logged" in step:
                assert np.array_equal(step["logged"], expected)
            assert np.any(np.abs(step["advantages"]) > 1e-3)  # GS1 gives a signal (TRL's own would be 0 at G = 1)
        assert worst == 0.0
        assert logged == diagnostics  # the estimator's diagnostics reach TRL's logs
        # TRL's groups (one completion each), not prompts of equal text (PROMPTS * 2 repeats some in a batch)
        assert groups_of_one == [8.0, 8.0]
    print("GS1 tfidf_kernel_loo_T0.1 vs the estimator: max |diff|", worst)


def test_gs1_refuses_an_estimator_that_needs_groups(tmp_path):
    with pytest.raises(rl_advantages.RlAdvantagesError) as caught:
        run(GRPOTrainer, tmp_path, 1, advantage_estimator="group_mean")
    assert caught.value.field == "num_generations"


def test_stock_config_refuses_one_generation(tmp_path):
    with pytest.raises(ValueError, match="at least 2 generations"):
        trl.GRPOConfig(output_dir=str(tmp_path), use_cpu=True, report_to="none", num_generations=1, per_device_train_batch_size=8)
