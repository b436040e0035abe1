"""Adapters that let a catalogue estimator replace a training framework's advantage computation.

One module per framework, each imported on its own (importing this package imports no framework):

- ``rl_advantages.integrations.trl``: ``GRPOTrainer`` / ``GRPOConfig``, drop-in subclasses of TRL's.
- ``rl_advantages.integrations.verl``: ``register()`` through ``core_algos.register_adv_est``, prompts routed for verl's v1
  trainer (TransferQueue) and its legacy trainer.
- ``rl_advantages.integrations.openrlhf``: a replacement for ``RemoteExperienceMaker.compute_advantages_and_returns``.
- ``rl_advantages.integrations.skyrl``: ``register()`` through ``register_advantage_estimator``.
- ``rl_advantages.integrations.slime``: ``post_process_rewards`` for ``--custom-reward-post-process-path``.
- ``rl_advantages.integrations.tinker_cookbook``: the ``compute_advantages`` hook of tinker-cookbook's RL loop.

The adapters keep no estimator list of their own: what an estimator reads (group ids, prompt text) comes from
``rl_advantages.catalogue()``. The framework commit each adapter was written against is in docs/python.md.
"""
