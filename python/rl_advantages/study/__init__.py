"""The drivers of ``rl-adv study --backend trl`` (docs/trl.md): ``python -m rl_advantages.study COMMAND``.

Modules: ``settings`` (the spec, items, prompts, rewards, determinism), ``tiny_lm`` (the small world's character
tokenizer and model), ``policy`` (pre-training, loading, sampling, greedy eval), ``arms`` (one arm through
``rl_advantages.integrations.trl``), ``preflight`` (stock TRL vs the adapter, GS1 vs the float64 reference),
``requirements`` (what the machine lacks). They need TRL, transformers, torch, peft and datasets
(python/requirements-trl.txt); importing this package needs none of them.
"""
