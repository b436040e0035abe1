"""Fakes of tinker-cookbook 9dfcc3a2 renderers, completers, rl types, MathEnv, rollouts and data processing; see
``tests/fakes.py`` for what they follow."""

from __future__ import annotations

import enum
import sys
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Callable

from tests.fake_tinker import *  # noqa: F401,F403
from tests.fake_tinker import STOP, QUESTION_SUFFIX, CharTokenizer, Datum, ModelInput, SamplingParams, TensorData, model_logprob  # noqa: F401

#: ``MathEnv.standard_fewshot_prefix()`` text at tinker-cookbook 9dfcc3a2cf44432d621a01005073dc6d76a1e87a,
#: ``tinker_cookbook/recipes/math_rl/math_env.py`` lines 70-80: test data describing the real prompt (the
#: question-recovery and eval tests render it), not code.
FEWSHOT_USER = "How many r's are in strawberry?"
FEWSHOT_ASSISTANT = (
    "Let's spell the word out and number all the letters: 1) s 2) t 3) r 4) a 5) w 6) b 7) e 8) r 9) r 10) y. "
    "We have r's at positions 3, 8, and 9. \\boxed{3}"
)

# --------------------------------------------------------------------------------------------------
# tokenizer, renderer, completers


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

