"""slime: a ``--custom-reward-post-process-path`` function whose "rewards" are a catalogue estimator's advantages.

Written against THUDM/slime 624b824a898ab0ec1fcb4d373004c7f3852bf515 (2026-08-21):

- ``slime/ray/rollout.py:388-390`` loads the function named by ``--custom-reward-post-process-path``;
  ``_post_process_rewards`` (:608-630) calls it as ``func(args, samples)`` with the whole rollout batch and
  expects ``(raw_rewards, rewards)``, one float per sample each; ``_convert_samples_to_train_data`` (:632-664)
  stores them as ``raw_reward`` and ``rewards``.
- ``slime/backends/megatron_utils/loss.py:763-767``: with ``--advantage-estimator grpo`` (or gspo, cispo) the
  advantage of every token of a sample is its ``rewards`` value (``get_grpo_returns``, slime/utils/ppo_utils.py:361-368).
- ``slime/utils/types.py:94-108, 246-247``: a ``Sample`` has ``group_index``, ``index``, ``prompt`` (text or chat
  messages) and ``get_reward_value(args)``.

So the function returns the raw rewards and, as "rewards", the estimator's advantages on the whole batch (group
ids from ``sample.group_index``). Prompts are the questions: ``sample.prompt`` is the data set's ``--input-key``
field (slime/utils/data.py:233-258, data_source.py:71-83), except with ``--apply-chat-template``, where it is the
chat-templated string. slime builds its data set before it loads this function (rollout.py:383-390), so for an
estimator that reads prompts, the first call redoes slime's own templating of ``--prompt-data`` once (its
``read_file``, ``_build_messages``, ``load_tokenizer(--hf-checkpoint)`` and ``apply_chat_template`` with
``--apply-chat-template-kwargs`` and the ``--tool-key`` tools, data.py:232-258) and maps each templated string to
its question (a chat's last user message); a prompt not in that map is an error. Run slime with ``--advantage-estimator grpo`` (or gspo,
cispo) so they are used as they are.

slime settings that change advantages, checked here at the first call (``args`` is slime's): an
``--advantage-estimator`` other than grpo/gspo/cispo (ppo and reinforce_plus_plus* recompute advantages from the
"rewards", loss.py:769-800), ``--custom-advantage-function-path`` (replaces that step, loss.py:758-761) and
``--normalize-advantages`` (whitens the advantages over the batch, loss.py:819) are refused. ``--gamma`` /
``--lambd`` are GAE's and REINFORCE++'s, unused by grpo; ``--disable-rewards-normalization`` and
``--disable-grpo-std-normalization`` steer only slime's default post-processing, which this function replaces
(rollout.py:609-610). The rollout's KL enters the loss, not these advantages (get_grpo_returns,
ppo_utils.py:361-368).

Group size 1 in slime today: the default post-processing subtracts the group mean (rollout.py:624-625), 0 for a
group of one, so every advantage is 0; it divides by the group std only with std normalisation on, which is the
default (``--disable-grpo-std-normalization`` turns it off, arguments.py:1005-1010) but which slime itself turns
off at ``--n-samples-per-prompt 1`` (arguments.py:1981-1983), so no NaN.

Use::

    export RL_ADV_ESTIMATOR=tfidf_kernel_loo_T0.1      # or its JSON form
    export RL_ADV_CORPUS=/data/train.jsonl             # the TF-IDF vocabulary (or RL_ADV_VECTORIZER)
    python train.py --advantage-estimator grpo --n-samples-per-prompt 1 \\
        --custom-reward-post-process-path rl_advantages.integrations.slime.post_process_rewards ...
"""

from __future__ import annotations

import itertools
import json
from typing import Any, Callable

from ._common import RolloutBatch, prompt_text, reads_field, server_from_env, spec_from_env

__all__ = ["PASS_THROUGH", "check_args", "make_post_process_rewards", "post_process_rewards", "question_of", "templated_questions"]


#: ``--prompt-data`` -> {templated prompt: question}, built once per process by :func:`templated_questions`.
_templated: dict[str, dict[str, str]] = {}


def templated_questions(args: Any) -> dict[str, str]:
    """slime's own templating of ``--prompt-data`` redone (data.py:232-258): {templated prompt: question}."""
    key = str(getattr(args, "prompt_data", None))
    if key not in _templated:
        from slime.utils.data import _build_messages, read_file
        from slime.utils.processing_utils import load_tokenizer

        tokenizer = load_tokenizer(args.hf_checkpoint, trust_remote_code=True)
        out: dict[str, str] = {}
        for data in read_file(args.prompt_data):
            messages = _build_messages(data, args.input_key, True, getattr(args, "multimodal_keys", None))
            tools = data.get(args.tool_key) if getattr(args, "tool_key", None) else None
            if isinstance(tools, str):
                tools = json.loads(tools)
            templated = tokenizer.apply_chat_template(messages, tools=tools, tokenize=False, add_generation_prompt=True,
                                                      **(getattr(args, "apply_chat_template_kwargs", None) or {}))
            out[templated] = prompt_text(messages, f"--prompt-data row {args.input_key!r}")
        _templated[key] = out
    return _templated[key]


def question_of(prompt: Any, args: Any, i: int) -> str:
    """The question behind ``samples[i].prompt``: as is without ``--apply-chat-template``, else from
    :func:`templated_questions`.

    Raises:
        ValueError: a templated prompt that slime's templating of ``--prompt-data`` does not give.
    """
    if not getattr(args, "apply_chat_template", False) or not isinstance(prompt, str):
        return prompt_text(prompt, f"sample {i} prompt")
    questions = templated_questions(args)
    if prompt not in questions:
        raise ValueError(
            f"sample {i}: its prompt was chat-templated by slime (--apply-chat-template) and is not one slime's templating of "
            f"--prompt-data {getattr(args, 'prompt_data', None)!r} gives; the estimator needs the question text: {prompt[:120]!r}"
        )
    return questions[prompt]


#: The ``--advantage-estimator`` values under which slime uses the "rewards" as the advantages (loss.py:763-767).
PASS_THROUGH = ("grpo", "gspo", "cispo")


def check_args(args: Any) -> None:
    """Refuse the slime settings under which the returned advantages would not be the ones trained on.

    Raises:
        ValueError: naming the flag (``--advantage-estimator``, ``--custom-advantage-function-path``,
            ``--normalize-advantages``) and what to do.
    """
    estimator = getattr(args, "advantage_estimator", "grpo")
    if estimator not in PASS_THROUGH:
        raise ValueError(
            f"rl_advantages' slime post-processing returns advantages, which slime uses as they are only with --advantage-estimator "
            f"grpo, gspo or cispo (slime/backends/megatron_utils/loss.py:763-767); got --advantage-estimator {estimator}"
        )
    if getattr(args, "custom_advantage_function_path", None):
        raise ValueError(
            "--custom-advantage-function-path replaces slime's advantage step (loss.py:758-761), so rl_advantages' advantages would "
            f"not be used as they are: drop it (got {args.custom_advantage_function_path})"
        )
    if getattr(args, "normalize_advantages", False):
        raise ValueError(
            "--normalize-advantages whitens the advantages over the batch (loss.py:819) after rl_advantages computed them: drop it, "
            "or ask the estimator for a normalised form (its normalize option)"
        )


def make_post_process_rewards(estimator: Any, server: Any = None, lazy: bool = False, **options: Any) -> Callable[[Any, list[Any]], tuple[list[Any], list[float]]]:
    """A ``post_process_rewards(args, samples) -> (raw_rewards, advantages)`` for one estimator (``lazy``: looked
    up, and the server started, at the first call).

    Raises:
        RlAdvantagesError: the estimator is not in the catalogue. ValueError (at the call): see :func:`check_args`.
    """
    batch = RolloutBatch(estimator, server, lazy=lazy, **options)

    def post_process(args: Any, samples: list[Any]) -> tuple[list[Any], list[float]]:
        check_args(args)
        while samples and isinstance(samples[0], list):
            samples = list(itertools.chain.from_iterable(samples))
        raw = [s.get_reward_value(args) for s in samples]
        group_ids = [s.group_index if s.group_index is not None else s.index for s in samples]
        if batch.needs_groups and any(g is None for g in group_ids):
            raise ValueError(f"{batch.entry['name']} needs group ids and a sample has neither group_index nor index")
        prompts = [question_of(s.prompt, args, i) for i, s in enumerate(samples)] if reads_field(batch.entry, "prompts") else None
        result = batch.compute([float(r) for r in raw], group_ids=group_ids, prompts=prompts)
        return raw, [float(a) for a in result.advantages]

    post_process.last_estimator = estimator  # type: ignore[attr-defined]
    return post_process


_cache: dict[str, Callable[[Any, list[Any]], tuple[list[Any], list[float]]]] = {}


def post_process_rewards(args: Any, samples: list[Any]) -> tuple[list[Any], list[float]]:
    """The function to name in ``--custom-reward-post-process-path``: the estimator is ``RL_ADV_ESTIMATOR``, the
    server the one of ``RL_ADV_CORPUS`` / ``RL_ADV_VECTORIZER`` (else the default server)."""
    spec = spec_from_env("RL_ADV_ESTIMATOR")
    key = repr(spec)
    if key not in _cache:
        _cache[key] = make_post_process_rewards(spec, server_from_env())
    return _cache[key](args, samples)
