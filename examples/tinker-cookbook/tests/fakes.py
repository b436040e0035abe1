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

``install()`` puts them in ``sys.modules``; ``uninstall()`` takes them out again.
"""

from __future__ import annotations

import asyncio
import enum
import json
import os
import re
import shutil
import struct
import sys
import types
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Callable

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


#: ``MathEnv.standard_fewshot_prefix()`` text at tinker-cookbook 9dfcc3a2cf44432d621a01005073dc6d76a1e87a,
#: ``tinker_cookbook/recipes/math_rl/math_env.py`` lines 70-80: test data describing the real prompt (the
#: question-recovery and eval tests render it), not code.
FEWSHOT_USER = "How many r's are in strawberry?"
FEWSHOT_ASSISTANT = (
    "Let's spell the word out and number all the letters: 1) s 2) t 3) r 4) a 5) w 6) b 7) e 8) r 9) r 10) y. "
    "We have r's at positions 3, 8, and 9. \\boxed{3}"
)
QUESTION_SUFFIX = " Write your answer in \\boxed{} format."
STOP = "<|im_end|>"


def f32(x: float) -> float:
    """Round to the nearest float32 (what ``torch.tensor`` of Python floats stores)."""
    return struct.unpack("f", struct.pack("f", float(x)))[0]


class FakeTensor:
    """A 1-D tensor: float32 for floats, int64 for ints; iteration, ``tolist``, ``mean``, subtraction."""

    def __init__(self, values: list[Any]):
        self._v = [v if isinstance(v, int) and not isinstance(v, bool) else f32(v) for v in values]

    def tolist(self) -> list[Any]:
        return list(self._v)

    def __iter__(self):
        return iter(self._v)

    def __len__(self) -> int:
        return len(self._v)

    def mean(self) -> float:
        return f32(sum(self._v) / len(self._v))

    def __sub__(self, other: Any) -> "FakeTensor":
        if isinstance(other, FakeTensor):
            return FakeTensor([a - b for a, b in zip(self._v, other._v)])
        return FakeTensor([a - other for a in self._v])


# --------------------------------------------------------------------------------------------------
# tinker SDK


class ModelInput:
    def __init__(self, tokens: list[int]):
        self._tokens = list(tokens)

    @classmethod
    def from_ints(cls, tokens: list[int]) -> "ModelInput":
        return cls(tokens)

    @classmethod
    def empty(cls) -> "ModelInput":
        return cls([])

    def to_ints(self) -> list[int]:
        return list(self._tokens)

    @property
    def length(self) -> int:
        return len(self._tokens)


class TensorData:
    def __init__(self, data: list[Any], dtype: str = "float32"):
        self.data = list(data)
        self.dtype = dtype

    @classmethod
    def from_torch(cls, tensor: FakeTensor) -> "TensorData":
        values = tensor.tolist()
        return cls(values, "int64" if values and all(isinstance(v, int) for v in values) else "float32")

    def tolist(self) -> list[Any]:
        return list(self.data)


@dataclass(frozen=True)
class Datum:
    model_input: ModelInput
    loss_fn_inputs: dict


@dataclass(frozen=True)
class ForwardBackwardOutput:
    loss_fn_output_type: str
    loss_fn_outputs: list
    metrics: dict = field(default_factory=dict)


@dataclass
class SamplingParams:
    max_tokens: int | None = None
    seed: int | None = None
    stop: Any = None
    temperature: float = 1.0
    top_k: int = -1
    top_p: float = 1.0


@dataclass
class SampledSequence:
    stop_reason: str
    tokens: list[int]
    logprobs: list[float] | None = None


@dataclass
class SampleResponse:
    sequences: list


class APIFuture:
    def __init__(self, value: Any):
        self._value = value

    def result(self) -> Any:
        return self._value

    async def result_async(self) -> Any:
        return self._value


@dataclass
class _SavedPath:
    path: str


def model_logprob(token: int, position: int, seed: int | None) -> float:
    """The fake model's log-probability of ``token`` at absolute ``position`` (float32).

    The LoRA seed moves it a little, as a different random LoRA initialisation would (B = 0 in real LoRA keeps
    the function unchanged at init, but the seed still decides the first update; this stand-in makes the
    difference visible before any update so the seed cannot go unnoticed in a test).
    """
    shift = 0.0 if seed is None else 1e-4 * (seed % 7)
    return f32(-0.02 * ((token * 31 + position) % 50) - 0.001 - shift)


_RESPONSES = {"n": 0}


def default_responder(prompt_text: str, params: SamplingParams) -> str:
    """A scripted model: answers the last question with the sum of its numbers, boxed (every third call
    without a box, every fifth without ending its turn, so rewards differ), then (with no stop sequence) runs
    on into a new turn, as a model without a stop would."""
    _RESPONSES["n"] += 1
    n = _RESPONSES["n"]
    question = prompt_text.rsplit("<|im_start|>user\n", 1)[-1]
    numbers = [int(x) for x in re.findall(r"\d+", question.split(QUESTION_SUFFIX)[0])]
    answer = f"the answer is {sum(numbers)}" if n % 3 == 0 else f"\\boxed{{{sum(numbers)}}}"
    work = " ".join(str(x) for x in numbers[: n % 4])
    end = "" if n % 5 == 0 else STOP + "\n<|im_start|>user\nAnd next?"
    return f"Adding {work}: {answer}.{end}"


class SamplingClient:
    #: every ``SamplingParams`` a fake sampling client received
    calls: list = []

    def __init__(self, model_path: str | None, base_model: str | None, seed: int | None = None):
        self.model_path = model_path
        self.base_model = base_model
        self.seed = seed

    async def sample_async(self, prompt: ModelInput, num_samples: int, sampling_params: SamplingParams, include_prompt_logprobs: bool = False, topk_prompt_logprobs: int = 0) -> SampleResponse:
        SamplingClient.calls.append(sampling_params)
        tinker = sys.modules["tinker"]
        text = CharTokenizer().decode(prompt.to_ints(), clean_up_tokenization_spaces=False)
        response = tinker.RESPONDER(text, sampling_params)
        stop_reason = "length"
        for s in sampling_params.stop or []:
            at = response.find(s)
            if at >= 0:
                response, stop_reason = response[: at + len(s)], "stop"
        tokens = CharTokenizer.encode(response)
        if sampling_params.max_tokens is not None and len(tokens) > sampling_params.max_tokens:
            tokens, stop_reason = tokens[: sampling_params.max_tokens], "length"
        elif stop_reason == "length":
            stop_reason = "stop"  # the end-of-sequence token ended it
        start = prompt.length
        seqs = [SampledSequence(stop_reason, tokens, [model_logprob(t, start + k, self.seed) for k, t in enumerate(tokens)]) for _ in range(num_samples)]
        return SampleResponse(seqs)


class TrainingClient:
    def __init__(self, base_model: str, seed: int | None, state_path: str | None = None):
        self.base_model = base_model
        self.seed = seed
        self.state_path = state_path
        self.forward_calls: list = []
        self.forward_backward_calls: list = []
        self.optim_steps = 0

    def _output(self, data: list, loss_fn: str) -> ForwardBackwardOutput:
        outputs = []
        loss = 0.0
        for datum in data:
            targets = datum.loss_fn_inputs["target_tokens"].tolist()
            lps = [model_logprob(t, i + 1, self.seed) for i, t in enumerate(targets)]
            outputs.append({"logprobs": TensorData(lps)})
            if loss_fn == "importance_sampling":
                old = datum.loss_fn_inputs["logprobs"].tolist()
                adv = datum.loss_fn_inputs["advantages"].tolist()
                loss += sum(-2.718281828459045 ** (lp - o) * a for lp, o, a in zip(lps, old, adv))
        return ForwardBackwardOutput("ArrayRecord", outputs, {"loss:sum": f32(loss)})

    async def forward_async(self, data: list, loss_fn: str, loss_fn_config: dict | None = None) -> APIFuture:
        self.forward_calls.append((list(data), loss_fn))
        return APIFuture(self._output(data, loss_fn))

    async def forward_backward_async(self, data: list, loss_fn: str, loss_fn_config: dict | None = None) -> APIFuture:
        self.forward_backward_calls.append((list(data), loss_fn))
        return APIFuture(self._output(data, loss_fn))

    async def optim_step_async(self, adam_params: Any = None) -> APIFuture:
        self.optim_steps += 1
        return APIFuture(None)

    async def save_state_async(self, name: str, ttl_seconds: int | None = None) -> APIFuture:
        return APIFuture(_SavedPath(f"tinker://fake/weights/{name}"))

    async def save_weights_for_sampler_async(self, name: str, ttl_seconds: int | None = None) -> APIFuture:
        return APIFuture(_SavedPath(f"tinker://fake/sampler_weights/{name}"))


class ServiceClient:
    #: every fake service client made since ``install()``
    instances: list = []

    def __init__(self, base_url: str | None = None, user_metadata: dict | None = None, **_: Any):
        self.base_url = base_url
        self.lora_seeds: list = []
        self.sync_calls_in_async: list[str] = []
        ServiceClient.instances.append(self)

    def _note_sync(self, name: str) -> None:
        # The real SDK logs a @sync_only warning with a stack trace when a sync call runs inside an event loop.
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return
        self.sync_calls_in_async.append(name)

    def create_lora_training_client(self, base_model: str, rank: int = 32, seed: int | None = None, train_mlp: bool = True, train_attn: bool = True, train_unembed: bool = True, user_metadata: dict | None = None) -> TrainingClient:
        self._note_sync("create_lora_training_client")
        self.lora_seeds.append(seed)
        return TrainingClient(base_model, seed)

    async def create_lora_training_client_async(self, base_model: str, rank: int = 32, seed: int | None = None, train_mlp: bool = True, train_attn: bool = True, train_unembed: bool = True, user_metadata: dict | None = None) -> TrainingClient:
        self.lora_seeds.append(seed)
        return TrainingClient(base_model, seed)

    async def create_training_client_from_state_with_optimizer_async(self, path: str, user_metadata: dict | None = None) -> TrainingClient:
        return TrainingClient("restored", None, state_path=path)

    def create_sampling_client(self, model_path: str | None = None, base_model: str | None = None, retry_config: Any = None) -> SamplingClient:
        self._note_sync("create_sampling_client")
        return SamplingClient(model_path, base_model)

    async def create_sampling_client_async(self, model_path: str | None = None, base_model: str | None = None, retry_config: Any = None) -> SamplingClient:
        return SamplingClient(model_path, base_model)


# --------------------------------------------------------------------------------------------------
# tokenizer, renderer, completers


def hf_clean_up_tokenization(text: str) -> str:
    """Hugging Face ``PreTrainedTokenizerBase.clean_up_tokenization`` (what ``decode`` applies unless told
    ``clean_up_tokenization_spaces=False``)."""
    for a, b in ((" .", "."), (" ?", "?"), (" !", "!"), (" ,", ","), (" ' ", "'"), (" n't", "n't"), (" 'm", "'m"), (" 's", "'s"), (" 've", "'ve"), (" 're", "'re")):
        text = text.replace(a, b)
    return text


class CharTokenizer:
    """One token per character; ``decode`` cleans tokenization spaces unless told not to, like a Hugging Face
    tokenizer whose ``clean_up_tokenization_spaces`` is on."""

    clean_up_tokenization_spaces = True

    @staticmethod
    def encode(text: str, add_special_tokens: bool = True) -> list[int]:
        return [ord(c) for c in text]

    def decode(self, tokens: list[int], skip_special_tokens: bool = False, clean_up_tokenization_spaces: bool | None = None, **_: Any) -> str:
        text = "".join(chr(t) for t in tokens)
        clean = self.clean_up_tokenization_spaces if clean_up_tokenization_spaces is None else clean_up_tokenization_spaces
        return hf_clean_up_tokenization(text) if clean else text


class ParseTermination(str, enum.Enum):
    STOP_SEQUENCE = "stop_sequence"
    EOS = "eos"
    MALFORMED = "malformed"

    @property
    def is_stop_sequence(self) -> bool:
        return self is ParseTermination.STOP_SEQUENCE


class ChatRenderer:
    """Renders messages in the Qwen chat layout with the character tokenizer."""

    def __init__(self, tokenizer: CharTokenizer | None = None):
        self.tokenizer = tokenizer or CharTokenizer()

    def build_generation_prompt(self, messages: list[dict[str, str]]) -> ModelInput:
        text = "".join(f"<|im_start|>{m['role']}\n{m['content']}{STOP}\n" for m in messages)
        return ModelInput(self.tokenizer.encode(text + "<|im_start|>assistant\n"))

    def get_stop_sequences(self) -> list[str]:
        return [STOP]

    def parse_response(self, response: list[int]) -> tuple[dict, ParseTermination]:
        text = self.tokenizer.decode(response, clean_up_tokenization_spaces=False)
        at = text.find(STOP)
        if at < 0:
            return {"role": "assistant", "content": text}, ParseTermination.MALFORMED
        return {"role": "assistant", "content": text[:at]}, ParseTermination.STOP_SEQUENCE


RENDERER_NAMES = ("qwen3_5_disable_thinking", "qwen3_5", "qwen3")


def get_renderer(name: str, tokenizer: Any, image_processor: Any = None, model_name: str | None = None) -> ChatRenderer:
    if name not in RENDERER_NAMES:
        raise ValueError(f"Unknown renderer: {name}")
    return ChatRenderer(tokenizer)


def get_text_content(message: dict) -> str:
    return message["content"]


@dataclass
class TokensWithLogprobs:
    tokens: list[int]
    maybe_logprobs: list[float] | None
    stop_reason: str = "stop"

    @property
    def logprobs(self) -> list[float]:
        if self.maybe_logprobs is None:
            raise ValueError("Logprobs are not available")
        return self.maybe_logprobs


@dataclass
class TinkerTokenCompleter:
    sampling_client: Any
    max_tokens: int
    temperature: float = 1.0
    context_window: int | None = None

    async def __call__(self, model_input: ModelInput, stop: Any, *, max_tokens: int | None = None) -> TokensWithLogprobs:
        limit = self.max_tokens if max_tokens is None else min(self.max_tokens, max_tokens)
        params = SamplingParams(stop=stop, max_tokens=limit, temperature=self.temperature)
        result = await self.sampling_client.sample_async(prompt=model_input, num_samples=1, sampling_params=params)
        seq = result.sequences[0]
        return TokensWithLogprobs(tokens=seq.tokens, maybe_logprobs=seq.logprobs, stop_reason=seq.stop_reason)


# --------------------------------------------------------------------------------------------------
# rl types, environments, rollouts, data processing


@dataclass
class Transition:
    ob: Any
    ac: Any
    reward: float
    episode_done: bool
    metrics: dict = field(default_factory=dict)
    logs: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Trajectory:
    transitions: list
    final_ob: Any
    stop_reason: str | None = None


@dataclass
class TrajectoryGroup:
    trajectories_G: list
    final_rewards_G: list
    metrics_G: list
    rollout_errors: list = field(default_factory=list)

    def get_total_rewards(self) -> list[float]:
        return [sum(t.reward for t in traj.transitions) + final for traj, final in zip(self.trajectories_G, self.final_rewards_G)]


@dataclass
class StepResult:
    reward: float
    episode_done: bool
    next_observation: Any
    next_stop_condition: Any
    metrics: dict = field(default_factory=dict)


@dataclass(frozen=True)
class ProblemGroupBuilder:
    env_thunk: Callable[[], Any]
    num_envs: int
    dataset_name: str = "problems"

    async def make_envs(self) -> list:
        return [self.env_thunk() for _ in range(self.num_envs)]

    async def compute_group_rewards(self, trajectory_group: list, env_group: list) -> list:
        return [(0.0, {}) for _ in trajectory_group]

    def logging_tags(self) -> list[str]:
        return [self.dataset_name]


def extract_gsm8k_final_answer(text: str) -> str:
    """The answer after the last ``####`` line, commas removed (as the cookbook's function)."""
    for line in reversed(text.splitlines()):
        s = line.strip()
        if s.startswith("####"):
            content = s[4:].strip()
            if content.startswith(":"):
                content = content[1:].strip()
            return content.replace(",", "").strip()
    raise ValueError("No GSM8K final answer found")


class MathEnv:
    def __init__(self, problem: str, answer: str, renderer: Any, convo_prefix: Any = None, grader: str = "sympy", timeout: float = 1.0, format_coef: float = 0.1, require_stop_sequence_for_format: bool = True):
        self.problem = problem
        self.answer = answer
        self.renderer = renderer
        self.convo_prefix = convo_prefix or []
        self.format_coef = format_coef

    @classmethod
    def question_suffix(cls) -> str:
        return QUESTION_SUFFIX

    def get_question(self) -> str:
        return self.problem + self.question_suffix()

    @staticmethod
    def standard_fewshot_prefix() -> list[dict[str, str]]:
        return [
            {"role": "user", "content": FEWSHOT_USER + MathEnv.question_suffix()},
            {"role": "assistant", "content": FEWSHOT_ASSISTANT},
        ]

    @property
    def stop_condition(self) -> list[str]:
        return self.renderer.get_stop_sequences()

    async def initial_observation(self):
        convo = self.convo_prefix + [{"role": "user", "content": self.get_question()}]
        return self.renderer.build_generation_prompt(convo), self.stop_condition

    async def step(self, action: list[int], *, extra: Any = None) -> StepResult:
        from rl_adv_examples.grading import grade_gsm8k_response

        message, termination = self.renderer.parse_response(action)
        content = get_text_content(message)
        grade = grade_gsm8k_response(content, self.answer)
        correct_format = float(termination.is_stop_sequence and grade.extracted is not None)
        correct_answer = float(grade.correct)
        reward = self.format_coef * (correct_format - 1) + correct_answer
        return StepResult(reward, True, ModelInput.empty(), self.stop_condition, {"format": correct_format, "correct": correct_answer})


async def do_group_rollout(env_group_builder: Any, policy: Any, strategy: Any = None, termination: Any = None) -> TrajectoryGroup:
    envs = await env_group_builder.make_envs()
    trajectories = []
    for env in envs:
        ob, stop = await env.initial_observation()
        ac = await policy(ob, stop)
        step = await env.step(ac.tokens)
        trajectories.append(Trajectory([Transition(ob, ac, step.reward, step.episode_done, step.metrics)], ModelInput.empty()))
    group_rewards = await env_group_builder.compute_group_rewards(trajectories, envs)
    return TrajectoryGroup(trajectories, [r for r, _ in group_rewards], [m for _, m in group_rewards])


def stock_compute_advantages(trajectory_groups_P: list) -> list:
    torch = sys.modules["torch"]
    out = []
    for group in trajectory_groups_P:
        rewards_G = torch.tensor(group.get_total_rewards())
        out.append(rewards_G - rewards_G.mean())
    return out


def trajectory_to_datum(traj: Trajectory, advantage: float) -> Datum:
    """A single-turn trajectory's datum as ``trajectory_to_data`` builds it (inputs shifted right, targets left)."""
    torch = sys.modules["torch"]
    (tr,) = traj.transitions
    ob = tr.ob.to_ints()
    ac = list(tr.ac.tokens)
    full = ob + ac
    lps = [0.0] * len(ob) + list(tr.ac.logprobs)
    adv = [0.0] * len(ob) + [advantage] * len(ac)
    mask = [0.0] * len(ob) + [1.0] * len(ac)
    return Datum(
        model_input=ModelInput(full[:-1]),
        loss_fn_inputs={
            "target_tokens": TensorData.from_torch(torch.tensor(full[1:])),
            "logprobs": TensorData.from_torch(torch.tensor(lps[1:])),
            "advantages": TensorData.from_torch(torch.tensor(adv[1:])),
            "mask": TensorData.from_torch(torch.tensor(mask[1:])),
        },
    )


def assemble_training_data(trajectory_groups_P: list, advantages_P: list) -> tuple[list, list]:
    data_D, metadata_D = [], []
    if len(trajectory_groups_P) != len(advantages_P):
        raise ValueError("safezip: lengths differ")
    for i_group, (group, advantages_G) in enumerate(zip(trajectory_groups_P, advantages_P)):
        for i_traj, (traj, a) in enumerate(zip(group.trajectories_G, advantages_G)):
            data_D.append(trajectory_to_datum(traj, float(a)))
            metadata_D.append({"group_idx": i_group, "traj_idx": i_traj})
    return data_D, metadata_D


def make_trajectory(ob_tokens: list[int], reward: float, n_action: int = 3) -> Trajectory:
    ac = [ord("x")] * n_action
    start = len(ob_tokens)
    lps = [model_logprob(t, start + k, None) for k, t in enumerate(ac)]
    return Trajectory(
        transitions=[Transition(ob=ModelInput(ob_tokens), ac=TokensWithLogprobs(ac, lps), reward=reward, episode_done=True)],
        final_ob=ModelInput.empty(),
    )


def gsm8k_builder(question: str, group_size: int, renderer: ChatRenderer, answer: str = "0") -> ProblemGroupBuilder:
    """As the cookbook's ``Gsm8kDataset._make_env_group_builder`` builds a group."""
    return ProblemGroupBuilder(
        env_thunk=partial(MathEnv, question, answer, renderer, convo_prefix=MathEnv.standard_fewshot_prefix()),
        num_envs=group_size,
    )


async def rollout_group(builder: ProblemGroupBuilder, rewards: list[float]) -> TrajectoryGroup:
    """A group with scripted rewards (the observation is the env's real first observation)."""
    trajectories = []
    for r in rewards:
        env = builder.env_thunk()
        ob, _stop = await env.initial_observation()
        trajectories.append(make_trajectory(ob.to_ints(), r))
    return TrajectoryGroup(trajectories, [0.0] * len(trajectories), [{} for _ in trajectories])


# --------------------------------------------------------------------------------------------------
# checkpoints and log dir


@dataclass
class CheckpointRecord:
    name: str
    batch: int | None = None
    epoch: int | None = None
    final: bool | None = None
    state_path: str | None = None
    sampler_path: str | None = None
    extra: dict = field(default_factory=dict)

    def has(self, key: str) -> bool:
        return getattr(self, key, None) is not None if key in ("name", "batch", "epoch", "final", "state_path", "sampler_path") else key in self.extra


def load_checkpoints_file(log_dir: str) -> list[CheckpointRecord]:
    path = os.path.join(log_dir, "checkpoints.jsonl")
    if not os.path.exists(path):
        return []
    out = []
    with open(path) as handle:
        for line in handle:
            if line.strip():
                d = json.loads(line)
                known = {k: d.get(k) for k in ("batch", "epoch", "final", "state_path", "sampler_path")}
                out.append(CheckpointRecord(d["name"], **known, extra={k: v for k, v in d.items() if k not in known and k != "name"}))
    return out


def get_last_checkpoint(log_dir: str, required_key: str = "state_path") -> CheckpointRecord | None:
    records = [c for c in load_checkpoints_file(log_dir) if c.has(required_key)]
    return records[-1] if records else None


class CheckpointManager:
    def __init__(self, training_client: TrainingClient, log_path: str, save_every: int):
        self.training_client = training_client
        self.log_path = log_path
        self.save_every = save_every

    async def save(self, name: str, loop_state: dict) -> dict:
        state = await (await self.training_client.save_state_async(name)).result_async()
        sampler = await (await self.training_client.save_weights_for_sampler_async(name)).result_async()
        record = {"name": name, **loop_state, "state_path": state.path, "sampler_path": sampler.path}
        with open(os.path.join(self.log_path, "checkpoints.jsonl"), "a") as handle:
            handle.write(json.dumps(record) + "\n")
        return record


class ConfigurationError(ValueError):
    pass


def check_log_dir(log_dir: str, behavior_if_exists: str) -> None:
    if os.path.exists(log_dir):
        if behavior_if_exists == "delete":
            shutil.rmtree(log_dir)
        elif behavior_if_exists == "resume":
            return
        elif behavior_if_exists == "raise":
            raise ConfigurationError(f"Log directory {log_dir} already exists. Will not delete it.")
        elif behavior_if_exists == "ask":
            raise RuntimeError("check_log_dir would prompt on stdin")
        else:
            raise AssertionError(f"Invalid behavior_if_exists: {behavior_if_exists}")


# --------------------------------------------------------------------------------------------------
# rl.train and the math_rl recipe


def _representative_inds(scores: list[float], num: int) -> list[int]:
    order = sorted(range(len(scores)), key=lambda i: scores[i])
    return [order[int(j * (len(order) - 1) / (num - 1))] for j in range(num)]


def _build_train_module() -> types.ModuleType:
    train = types.ModuleType("tinker_cookbook.rl.train")
    train.compute_advantages = stock_compute_advantages
    train.assemble_training_data = assemble_training_data
    train.displayed = []
    train.evaluated_at = []
    train.trained = []  # (i_batch, datums sent to forward_backward)

    def print_group(traj_group: TrajectoryGroup, tokenizer: Any) -> None:
        if len(traj_group.trajectories_G) > 4:
            inds = _representative_inds(traj_group.get_total_rewards(), 4)
            traj_group = TrajectoryGroup(
                [traj_group.trajectories_G[i] for i in inds],
                [traj_group.final_rewards_G[i] for i in inds],
                [traj_group.metrics_G[i] for i in inds],
            )
        advantages_G = train.compute_advantages([traj_group])
        train.assemble_training_data([traj_group], advantages_G)
        train.displayed.append([float(a) for a in advantages_G[0]])

    async def prepare_minibatch(env_group_builders_P, trajectory_groups_P, tokenizer, kl_reference_client, kl_penalty_coef, kl_discount_factor):
        for traj_group in trajectory_groups_P[:2]:
            train.print_group(traj_group, tokenizer)
        advantages_P = train.compute_advantages(trajectory_groups_P)
        train.last_advantages_P = advantages_P
        data_D, _metadata_D = train.assemble_training_data(trajectory_groups_P, advantages_P)
        return data_D, {}

    async def do_train_step_and_get_sampling_client(config, i_batch, training_client, checkpoint_mgr, kl_reference_client, tokenizer, env_group_builders_P, trajectory_groups_P):
        data_D, metrics = await train.prepare_minibatch(
            env_group_builders_P, trajectory_groups_P, tokenizer, kl_reference_client, kl_penalty_coef=config.kl_penalty_coef, kl_discount_factor=0.0
        )
        await (await training_client.forward_backward_async(data_D, loss_fn=config.loss_fn)).result_async()
        await training_client.optim_step_async()
        train.trained.append((i_batch, data_D))
        step = i_batch + 1
        if config.save_every > 0 and step % config.save_every == 0:
            await checkpoint_mgr.save(f"{step:06d}", {"batch": step})
        return SamplingClient(None, config.model_name), metrics

    async def main(config: Any) -> None:
        os.makedirs(config.log_path, exist_ok=True)
        resume_info = sys.modules["tinker_cookbook.checkpoint_utils"].get_last_checkpoint(config.log_path)
        start_batch = resume_info.batch if resume_info else 0
        service_client = sys.modules["tinker"].ServiceClient(base_url=config.base_url)
        if resume_info:
            training_client = await service_client.create_training_client_from_state_with_optimizer_async(resume_info.state_path, user_metadata={})
        else:
            training_client = await service_client.create_lora_training_client_async(config.model_name, rank=config.lora_rank, user_metadata={})
        tokenizer = CharTokenizer()
        dataset, test_dataset = await config.dataset_builder()
        end_batch = min(config.max_steps, len(dataset)) if config.max_steps is not None else len(dataset)
        mgr = CheckpointManager(training_client, config.log_path, config.save_every)
        for i_batch in range(start_batch, end_batch):
            if config.eval_every > 0 and i_batch % config.eval_every == 0:
                train.evaluated_at.append((i_batch, len(test_dataset)))
            builders = dataset.get_batch(i_batch)
            groups = [await dataset.rollout(i_batch, g, b) for g, b in enumerate(builders)]
            ok = [(b, g) for b, g in zip(builders, groups) if g is not None]
            if not ok:
                continue  # "all groups failed or filtered, skipping batch"
            await train.do_train_step_and_get_sampling_client(config, i_batch, training_client, mgr, None, tokenizer, [b for b, _ in ok], [g for _, g in ok])
        if start_batch < end_batch:
            await mgr.save("final", {"batch": end_batch})

    train.print_group = print_group
    train.prepare_minibatch = prepare_minibatch
    train.do_train_step_and_get_sampling_client = do_train_step_and_get_sampling_client
    train.main = main
    return train


@dataclass
class CLIConfig:
    """``recipes/math_rl/train.py`` CLIConfig (its defaults at 9dfcc3a2)."""

    model_name: str = "Qwen/Qwen3.5-9B"
    lora_rank: int = 32
    renderer_name: str | None = None
    load_checkpoint_path: str | None = None
    env: str = "arithmetic"
    seed: int = 0
    group_size: int = 4
    groups_per_batch: int = 100
    learning_rate: float = 1e-5
    max_tokens: int = 5
    temperature: float = 1.0
    kl_penalty_coef: float = 0.0
    num_substeps: int = 1
    log_path: str | None = None
    wandb_project: str | None = None
    wandb_name: str | None = None
    compute_post_kl: bool = False
    eval_every: int = 20
    save_every: int = 20
    base_url: str | None = None
    behavior_if_log_dir_exists: str = "ask"
    max_steps_off_policy: int | None = None
    stream_minibatch_config: Any = None
    loss_fn: str = "importance_sampling"
    loss_fn_config: dict | None = None
    max_steps: int | None = None


@dataclass
class Config:
    """The fields of ``rl/train.py`` Config the fakes and the guard read."""

    learning_rate: float
    dataset_builder: Any
    model_name: str
    max_tokens: int
    log_path: str
    lora_rank: int = 32
    eval_every: int = 20
    save_every: int = 20
    base_url: str | None = None
    kl_penalty_coef: float = 0.0
    loss_fn: str = "importance_sampling"
    remove_constant_reward_groups: bool = False
    async_config: Any = None
    stream_minibatch_config: Any = None
    max_steps: int | None = None


class FakeDataset:
    """``Gsm8kDataset``: batch ``i`` is rows ``i*B .. (i+1)*B`` of the (here unshuffled) questions; rollouts get
    scripted rewards; ``fail_at`` raises inside a rollout (FailFast), ``skip`` makes every group of a batch fail."""

    def __init__(self, recipe: "FakeRecipe", batch_size: int, group_size: int):
        self.recipe = recipe
        self.batch_size = batch_size
        self.group_size = group_size
        self.renderer = ChatRenderer()

    def __len__(self) -> int:
        return len(self.recipe.questions) // self.batch_size

    def get_batch(self, index: int) -> list:
        start = index * self.batch_size
        return [gsm8k_builder(q, self.group_size, self.renderer) for q in self.recipe.questions[start : start + self.batch_size]]

    async def rollout(self, i_batch: int, g: int, builder: ProblemGroupBuilder) -> TrajectoryGroup | None:
        if i_batch == self.recipe.fail_at:
            self.recipe.fail_at = None  # fails once, as a transient sampling error
            raise RuntimeError(f"sampling failed at batch {i_batch} (FailFast)")
        if i_batch in self.recipe.skip:
            return None
        return await rollout_group(builder, [self.recipe.reward_fn(i_batch, g, k) for k in range(builder.num_envs)])


class FakeRecipe:
    """``recipes/math_rl/train.py``: ``cli_main`` builds a Config, checks the log dir, awaits ``main(config)``."""

    def __init__(self, questions: list[str], reward_fn: Callable[[int, int, int], float], config_overrides: dict | None = None, fail_at: int | None = None, skip: tuple = ()):
        self.questions = questions
        self.reward_fn = reward_fn
        self.config_overrides = config_overrides or {}
        self.fail_at = fail_at
        self.skip = tuple(skip)
        self.module = types.ModuleType("tinker_cookbook.recipes.math_rl.train")
        self.module.CLIConfig = CLIConfig
        self.module.cli_main = self.cli_main
        self.seen_configs: list = []

    async def cli_main(self, cli_config: CLIConfig) -> None:
        self.seen_configs.append(cli_config)
        if cli_config.renderer_name is None and cli_config.load_checkpoint_path is None:
            # resolve_renderer_name_from_checkpoint_or_default -> model_info: Qwen3.5-2B is not in it at 9dfcc3a2.
            raise KeyError(cli_config.model_name.split("/")[-1])
        recipe = self

        async def dataset_builder():
            return FakeDataset(recipe, cli_config.groups_per_batch, cli_config.group_size), list(range(1319))

        config = Config(
            learning_rate=cli_config.learning_rate,
            dataset_builder=dataset_builder,
            model_name=cli_config.model_name,
            max_tokens=cli_config.max_tokens,
            log_path=cli_config.log_path,
            lora_rank=cli_config.lora_rank,
            eval_every=cli_config.eval_every,
            save_every=cli_config.save_every,
            base_url=cli_config.base_url,
            kl_penalty_coef=cli_config.kl_penalty_coef,
            max_steps=cli_config.max_steps,
            **self.config_overrides,
        )
        sys.modules["tinker_cookbook.cli_utils"].check_log_dir(config.log_path, behavior_if_exists=cli_config.behavior_if_log_dir_exists)
        await self.module.main(config)


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
    _RESPONSES["n"] = 0
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
