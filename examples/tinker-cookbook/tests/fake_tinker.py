"""Fakes of torch's tensor, the tinker SDK (tinker d595dc2ba62a1494aa0f452fe1d0dbb7b321b870) and the Hugging Face
tokenizer; see ``tests/fakes.py`` for what they follow and ``install()``."""

from __future__ import annotations

import asyncio
import re
import struct
import sys
from dataclasses import dataclass, field
from typing import Any

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
# the Hugging Face tokenizer


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


