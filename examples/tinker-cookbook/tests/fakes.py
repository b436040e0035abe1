"""Stand-ins for torch, the tinker SDK and the tinker-cookbook pieces the drivers touch.

They follow the signatures and behaviour of tinker-cookbook HEAD 9dfcc3a2cf44432d621a01005073dc6d76a1e87a
(2026-08-19) and the tinker SDK at d595dc2ba62a1494aa0f452fe1d0dbb7b321b870 (2026-08-08), read while writing
them; they are written from those files, not copied:

- ``rl/train.py``: ``compute_advantages`` / ``assemble_training_data`` imported by name (:33-36), ``print_group``
  (:210, a 4-trajectory representative subset), ``prepare_minibatch`` (:1342, returns ``(data_D, metrics)``),
  ``do_train_step_and_get_sampling_client(config, i_batch, ...)`` (:1616), ``do_sync_training`` (eval when
  ``eval_every > 0 and i_batch % eval_every == 0``, :1746; a batch whose groups all failed is skipped, :1798)
  and ``main`` (resume from ``checkpoint_utils.get_last_checkpoint(log_path).batch``, :1929;
  ``create_lora_training_client_async(model_name, rank=..., user_metadata=...)`` with no seed, :1966;
  periodic checkpoints at ``i_batch + 1``; a ``final`` checkpoint with ``batch = end_batch``).
- ``rl/data_processing.py``: ``compute_advantages``, ``assemble_training_data`` (one datum per single-turn
  trajectory: prompt tokens with advantage 0 and mask 0, action tokens with the trajectory's advantage).
- ``checkpoint_utils.py`` (``CheckpointRecord``, ``get_last_checkpoint(log_dir, required_key="state_path")``),
  ``cli_utils.check_log_dir`` ("delete", "resume", "raise", "ask").
- ``recipes/math_rl/train.py`` (``CLIConfig`` defaults, ``cli_main`` -> ``check_log_dir`` -> ``main``) and
  ``recipes/math_rl/math_env.py`` (``MathEnv`` with the real few-shot prefix, reward
  ``0.1 * (format - 1) + correct``, ``extract_gsm8k_final_answer``).
- ``completers.py`` (``TokensWithLogprobs``, ``TinkerTokenCompleter``), ``rl/rollouts.py``
  (``do_group_rollout``), ``rl/problem_env.py`` (``ProblemGroupBuilder``), ``renderers`` (``get_renderer``,
  ``get_text_content``, ``Renderer.parse_response``), ``tokenizer_utils.get_tokenizer``.
- SDK ``ServiceClient``: ``create_lora_training_client[_async](base_model, rank=32, seed=None, ...)`` (seed None
  means a random initialisation), ``create_sampling_client[_async](model_path=None, base_model=None, ...)``;
  ``TrainingClient.forward[_async](data, loss_fn)`` returning an ``APIFuture[ForwardBackwardOutput]``.

What is stood in: the network (a deterministic "model" whose log-probability of a token depends on the token,
its position and the LoRA seed; a scripted responder), the tokenizer (one token per character, with the
Hugging Face ``clean_up_tokenization`` rule when not told otherwise) and the data set download.

They live in ``fake_tinker.py`` (torch's tensor, the SDK, the tokenizer), ``fake_cookbook.py`` (renderers,
completers, rl types, MathEnv, rollouts, data processing) and ``fake_training.py`` (checkpoints, log dir,
``rl.train``, the recipe); this module re-exports them. ``install()`` puts them in ``sys.modules``;
``uninstall()`` takes them out again.
"""

from __future__ import annotations

import asyncio
import sys
import types
from typing import Any

from tests import fake_tinker
from tests.fake_cookbook import *  # noqa: F401,F403
from tests.fake_tinker import *  # noqa: F401,F403
from tests.fake_training import *  # noqa: F401,F403
from tests.fake_training import _build_train_module

_MODULE_NAMES = [
    "torch",
    "tinker",
    "tinker_cookbook",
    "tinker_cookbook.checkpoint_utils",
    "tinker_cookbook.cli_utils",
    "tinker_cookbook.completers",
    "tinker_cookbook.renderers",
    "tinker_cookbook.tokenizer_utils",
    "tinker_cookbook.rl",
    "tinker_cookbook.rl.types",
    "tinker_cookbook.rl.data_processing",
    "tinker_cookbook.rl.problem_env",
    "tinker_cookbook.rl.rollouts",
    "tinker_cookbook.rl.train",
    "tinker_cookbook.recipes",
    "tinker_cookbook.recipes.math_rl",
    "tinker_cookbook.recipes.math_rl.math_env",
    "tinker_cookbook.recipes.math_rl.train",
]


def install(recipe: FakeRecipe | None = None) -> dict[str, types.ModuleType]:
    """Put the fakes in ``sys.modules`` (after checking no real module of those names is loaded)."""
    for name in _MODULE_NAMES:
        if name in sys.modules:
            raise RuntimeError(f"{name} is already imported; the fakes would shadow it")
    mods = {name: types.ModuleType(name) for name in _MODULE_NAMES}
    mods["torch"].tensor = lambda values: FakeTensor(list(values))
    tinker = mods["tinker"]
    for cls in (ModelInput, TensorData, Datum, ForwardBackwardOutput, SamplingParams, SamplingClient, TrainingClient, ServiceClient):
        setattr(tinker, cls.__name__, cls)
    tinker.RESPONDER = default_responder
    fake_tinker._RESPONSES["n"] = 0
    tinker.__version__ = "0.0.0-fake"
    ServiceClient.instances = []
    SamplingClient.calls = []
    mods["tinker_cookbook"].__version__ = "0.0.0-fake"
    cu = mods["tinker_cookbook.checkpoint_utils"]
    cu.CheckpointRecord, cu.load_checkpoints_file, cu.get_last_checkpoint = CheckpointRecord, load_checkpoints_file, get_last_checkpoint
    mods["tinker_cookbook.cli_utils"].check_log_dir = check_log_dir
    c = mods["tinker_cookbook.completers"]
    c.TokensWithLogprobs, c.TinkerTokenCompleter = TokensWithLogprobs, TinkerTokenCompleter
    r = mods["tinker_cookbook.renderers"]
    r.get_renderer, r.get_text_content, r.ParseTermination = get_renderer, get_text_content, ParseTermination
    mods["tinker_cookbook.tokenizer_utils"].get_tokenizer = lambda model_name: CharTokenizer()
    t = mods["tinker_cookbook.rl.types"]
    t.Transition, t.Trajectory, t.TrajectoryGroup = Transition, Trajectory, TrajectoryGroup
    dp = mods["tinker_cookbook.rl.data_processing"]
    dp.compute_advantages, dp.assemble_training_data = stock_compute_advantages, assemble_training_data
    mods["tinker_cookbook.rl.problem_env"].ProblemGroupBuilder = ProblemGroupBuilder
    mods["tinker_cookbook.rl.rollouts"].do_group_rollout = do_group_rollout
    me = mods["tinker_cookbook.recipes.math_rl.math_env"]
    me.MathEnv, me.extract_gsm8k_final_answer = MathEnv, extract_gsm8k_final_answer
    mods["tinker_cookbook.rl.train"] = _build_train_module()
    if recipe is not None:
        recipe.module.main = mods["tinker_cookbook.rl.train"].main  # imported by name, as in the recipe
        mods["tinker_cookbook.recipes.math_rl.train"] = recipe.module
    sys.modules.update(mods)
    return mods


def uninstall() -> None:
    for name in _MODULE_NAMES:
        sys.modules.pop(name, None)


def run_async(coro: Any) -> Any:
    return asyncio.run(coro)
