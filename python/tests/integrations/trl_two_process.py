"""Run by ``accelerate launch --multi_gpu --num_processes 2`` (on CPU: ``use_cpu=True``, a gloo process group) from
test_trl_two_process.py (not a test module itself).

Each process trains the real ``trl.GRPOTrainer`` (trl 1.13.0) through ``rl_advantages.integrations.trl`` for 2
steps with ``num_generations=1`` and ``tfidf_kernel_loo_T0.1``, and writes ``OUT/rank<r>.json``: per step the
rewards its own reward function returned (in its completions' order, with their prompts) and the advantages TRL
trains on in that process (``_generate_and_score_completions``' ``advantages``). Nothing here reads the adapter's
gathered inputs: the test rebuilds the whole batch from the two processes' files.

Usage: accelerate launch --multi_gpu --num_processes 2 trl_two_process.py OUT CORPUS (CORPUS "-": no
``advantage_server``, each process fits the TF-IDF vectorizer on the train dataset's prompts, as a two-line change does)
"""

from __future__ import annotations

import contextlib
import json
import os
import sys

import rl_advantages
from rl_advantages.integrations.trl import GRPOConfig, GRPOTrainer

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import datasets  # noqa: E402

from test_trl import PROMPTS, make_model, make_tokenizer  # noqa: E402

LOCAL: list[tuple[str, float]] = []


def reward_vowels(prompts, completions, **kwargs):
    """Fraction of vowels in the completion; each call's (prompt, reward) kept in this process's order."""
    out = []
    for p, c in zip(prompts, completions):
        r = sum(ch in "aeiou" for ch in c) / max(len(c), 1)
        LOCAL.append((p, r))
        out.append(r)
    return out


def main(out_dir: str, corpus: str) -> None:
    tokenizer = make_tokenizer()
    model = make_model(tokenizer)
    args = GRPOConfig(
        output_dir=os.path.join(out_dir, "trainer"),
        use_cpu=True,
        bf16=False,
        report_to="none",
        seed=0,
        max_steps=2,
        per_device_train_batch_size=4,
        num_generations=1,
        max_completion_length=6,
        beta=0.0,
        logging_steps=1,
        save_strategy="no",
        learning_rate=1e-3,
        disable_tqdm=True,
    )
    dataset = datasets.Dataset.from_dict({"prompt": PROMPTS * 2})
    server = rl_advantages.Server(corpus=corpus) if corpus != "-" else None  # "-": the two-line form, no server
    with server if server is not None else contextlib.nullcontext():
        trainer = GRPOTrainer(
            model=model, reward_funcs=reward_vowels, args=args, train_dataset=dataset, processing_class=tokenizer,
            advantage_estimator="tfidf_kernel_loo_T0.1", advantage_server=server,
        )
        steps: list[dict] = []
        original = trainer._generate_and_score_completions

        def capture(inputs):
            LOCAL.clear()
            output = original(inputs)
            steps.append({
                "prompts": [p for p, _ in LOCAL],
                "rewards": [r for _, r in LOCAL],
                "advantages": output["advantages"].detach().double().cpu().tolist(),
                "advantages_dtype": str(output["advantages"].dtype),
            })
            return output

        trainer._generate_and_score_completions = capture
        trainer.train()
        rank = trainer.accelerator.process_index
        import torch.distributed as dist

        backend = dist.get_backend() if dist.is_initialized() else None
        record = {"rank": rank, "world_size": trainer.accelerator.num_processes, "backend": backend, "global_step": trainer.state.global_step, "steps": steps}
    with open(os.path.join(out_dir, f"rank{rank}.json"), "w", encoding="utf-8") as f:
        json.dump(record, f)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
