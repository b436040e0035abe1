"""Minimal stand-ins for torch, tinker and the tinker-cookbook pieces the drivers touch.

They follow the signatures of tinker-cookbook HEAD 9dfcc3a2cf44432d621a01005073dc6d76a1e87a (the commit
read while writing the drivers; the pinned f79fdb2ba4cd967ef2807ba43097c52985f9f17f was not available):
``rl/types.py`` (Transition, Trajectory, TrajectoryGroup.get_total_rewards), ``completers.py``
(TokensWithLogprobs), ``rl/data_processing.py`` (compute_advantages), ``rl/problem_env.py``
(ProblemGroupBuilder), ``rl/train.py`` (compute_advantages imported by name, print_group,
prepare_minibatch), ``recipes/math_rl/math_env.py`` (MathEnv) and ``recipes/math_rl/train.py``
(CLIConfig, cli_main, main). They are written from those signatures, not copied.

``install()`` puts them in ``sys.modules``; ``uninstall()`` takes them out again.
"""

from __future__ import annotations

import asyncio
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
    "tinker_cookbook.completers",
    "tinker_cookbook.rl",
    "tinker_cookbook.rl.types",
    "tinker_cookbook.rl.data_processing",
    "tinker_cookbook.rl.problem_env",
    "tinker_cookbook.rl.train",
    "tinker_cookbook.recipes",
    "tinker_cookbook.recipes.math_rl",
    "tinker_cookbook.recipes.math_rl.math_env",
    "tinker_cookbook.recipes.math_rl.train",
]


def f32(x: float) -> float:
    """Round to the nearest float32 (what ``torch.tensor`` of Python floats stores)."""
    return struct.unpack("f", struct.pack("f", float(x)))[0]


class FakeTensor:
    """A 1-D float32 tensor: iteration, ``tolist``, ``mean``, subtraction."""

    def __init__(self, values: list[float]):
        self._v = [f32(v) for v in values]

    def tolist(self) -> list[float]:
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


class CharTokenizer:
    """One token per character: ``decode(encode(s)) == s``."""

    @staticmethod
    def encode(text: str) -> list[int]:
        return [ord(c) for c in text]

    @staticmethod
    def decode(tokens: list[int]) -> str:
        return "".join(chr(t) for t in tokens)


class ChatRenderer:
    """Renders messages in a Qwen-like chat layout with the character tokenizer."""

    def __init__(self, tokenizer: CharTokenizer | None = None):
        self.tokenizer = tokenizer or CharTokenizer()

    def build_generation_prompt(self, messages: list[dict[str, str]]) -> ModelInput:
        text = "".join(f"<|im_start|>{m['role']}\n{m['content']}<|im_end|>\n" for m in messages)
        return ModelInput(self.tokenizer.encode(text + "<|im_start|>assistant\n"))

    def get_stop_sequences(self) -> list[str]:
        return ["<|im_end|>"]


@dataclass
class TokensWithLogprobs:
    tokens: list[int]
    maybe_logprobs: list[float] | None
    stop_reason: str = "stop"


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


@dataclass(frozen=True)
class ProblemGroupBuilder:
    env_thunk: Callable[[], Any]
    num_envs: int
    dataset_name: str = "problems"

    def logging_tags(self) -> list[str]:
        return [self.dataset_name]


class MathEnv:
    def __init__(self, problem: str, answer: str, renderer: Any, convo_prefix: Any = None, **_: Any):
        self.problem = problem
        self.answer = answer
        self.renderer = renderer
        self.convo_prefix = convo_prefix or []

    @classmethod
    def question_suffix(cls) -> str:
        return " Write your answer in \\boxed{} format."

    def get_question(self) -> str:
        return self.problem + self.question_suffix()

    @staticmethod
    def standard_fewshot_prefix() -> list[dict[str, str]]:
        return [
            {"role": "user", "content": "How many r's are in strawberry?" + MathEnv.question_suffix()},
            {"role": "assistant", "content": "Let's spell it out. \\boxed{3}"},
        ]

    async def initial_observation(self):
        convo = self.convo_prefix + [{"role": "user", "content": self.get_question()}]
        return self.renderer.build_generation_prompt(convo), self.renderer.get_stop_sequences()


def stock_compute_advantages(trajectory_groups_P: list) -> list:
    torch = sys.modules["torch"]
    out = []
    for group in trajectory_groups_P:
        rewards_G = torch.tensor(group.get_total_rewards())
        out.append(rewards_G - rewards_G.mean())
    return out


def make_trajectory(ob_tokens: list[int], reward: float, n_action: int = 3) -> Trajectory:
    return Trajectory(
        transitions=[Transition(ob=ModelInput(ob_tokens), ac=TokensWithLogprobs([5] * n_action, [-0.5] * n_action), reward=reward, episode_done=True)],
        final_ob=ModelInput.empty(),
    )


def gsm8k_builder(question: str, group_size: int, renderer: ChatRenderer) -> ProblemGroupBuilder:
    """As the cookbook's ``Gsm8kDataset._make_env_group_builder`` builds a group."""
    return ProblemGroupBuilder(
        env_thunk=partial(MathEnv, question, "0", renderer, convo_prefix=MathEnv.standard_fewshot_prefix()),
        num_envs=group_size,
    )


async def rollout_group(builder: ProblemGroupBuilder, rewards: list[float]) -> TrajectoryGroup:
    trajectories = []
    for r in rewards:
        env = builder.env_thunk()
        ob, _stop = await env.initial_observation()
        trajectories.append(make_trajectory(ob.to_ints(), r))
    return TrajectoryGroup(trajectories, [0.0] * len(trajectories), [{} for _ in trajectories])


def _build_train_module() -> types.ModuleType:
    train = types.ModuleType("tinker_cookbook.rl.train")
    train.compute_advantages = stock_compute_advantages
    train.displayed = []

    def print_group(traj_group: TrajectoryGroup, tokenizer: Any) -> None:
        # HEAD: groups of more than 4 are cut to 4 representative trajectories in a new TrajectoryGroup.
        if len(traj_group.trajectories_G) > 4:
            keep = [0, 2, 4, 6][: len(traj_group.trajectories_G)]
            traj_group = TrajectoryGroup(
                [traj_group.trajectories_G[i] for i in keep],
                [traj_group.final_rewards_G[i] for i in keep],
                [traj_group.metrics_G[i] for i in keep],
            )
        train.displayed.append([float(a) for a in train.compute_advantages([traj_group])[0]])

    async def prepare_minibatch(env_group_builders_P, trajectory_groups_P, tokenizer, kl_reference_client, kl_penalty_coef, kl_discount_factor):
        for traj_group in trajectory_groups_P[:2]:
            train.print_group(traj_group, tokenizer)
        advantages_P = train.compute_advantages(trajectory_groups_P)
        return advantages_P, {}

    train.print_group = print_group
    train.prepare_minibatch = prepare_minibatch
    return train


@dataclass
class CLIConfig:
    """The fields of ``recipes/math_rl/train.py`` CLIConfig that run_arm.py sets."""

    model_name: str = "Qwen/Qwen3.5-9B"
    lora_rank: int = 32
    renderer_name: str | None = None
    env: str = "arithmetic"
    seed: int = 0
    group_size: int = 4
    groups_per_batch: int = 100
    learning_rate: float = 1e-5
    max_tokens: int = 5
    temperature: float = 1.0
    kl_penalty_coef: float = 0.0
    log_path: str | None = None
    eval_every: int = 20
    save_every: int = 20
    base_url: str | None = None
    behavior_if_log_dir_exists: str = "ask"
    max_steps: int | None = None


@dataclass
class Config:
    """The fields of ``rl/train.py`` Config the guard reads."""

    log_path: str
    max_steps: int
    group_size: int
    groups_per_batch: int
    kl_penalty_coef: float = 0.0
    remove_constant_reward_groups: bool = False
    async_config: Any = None
    stream_minibatch_config: Any = None


class FakeRecipe:
    """``recipes/math_rl/train.py``: cli_main builds a Config and awaits ``main(config)``, which here
    samples GSM8K groups with scripted rewards and calls ``rl.train.prepare_minibatch`` once per step."""

    def __init__(self, questions: list[str], reward_fn: Callable[[int, int, int], float], config_overrides: dict | None = None):
        self.questions = questions
        self.reward_fn = reward_fn
        self.config_overrides = config_overrides or {}
        self.module = types.ModuleType("tinker_cookbook.recipes.math_rl.train")
        self.module.CLIConfig = CLIConfig
        self.module.cli_main = self.cli_main
        self.module.main = self.main
        self.seen_configs: list = []

    async def cli_main(self, cli_config: CLIConfig) -> None:
        self.seen_configs.append(cli_config)
        config = Config(
            log_path=cli_config.log_path,
            max_steps=cli_config.max_steps,
            group_size=cli_config.group_size,
            groups_per_batch=cli_config.groups_per_batch,
            kl_penalty_coef=cli_config.kl_penalty_coef,
            **self.config_overrides,
        )
        await self.module.main(config)

    async def main(self, config: Config) -> None:
        import os

        os.makedirs(config.log_path, exist_ok=True)
        train = sys.modules["tinker_cookbook.rl.train"]
        renderer = ChatRenderer()
        for step in range(config.max_steps):
            start = step * config.groups_per_batch
            builders = [gsm8k_builder(self.questions[start + g], config.group_size, renderer) for g in range(config.groups_per_batch)]
            groups = [
                await rollout_group(b, [self.reward_fn(step, g, k) for k in range(config.group_size)]) for g, b in enumerate(builders)
            ]
            await train.prepare_minibatch(builders, groups, renderer.tokenizer, None, 0.0, 0.0)
        with open(os.path.join(config.log_path, "checkpoints.jsonl"), "w") as handle:
            handle.write('{"name": "final", "sampler_path": "tinker://fake/sampler_weights/final"}\n')


def install(recipe: FakeRecipe | None = None) -> dict[str, types.ModuleType]:
    """Put the fakes in ``sys.modules`` (after checking no real module of those names is loaded)."""
    for name in _MODULE_NAMES:
        if name in sys.modules:
            raise RuntimeError(f"{name} is already imported; the fakes would shadow it")
    mods = {name: types.ModuleType(name) for name in _MODULE_NAMES}
    mods["torch"].tensor = lambda values: FakeTensor(list(values))
    mods["tinker"].ModelInput = ModelInput
    mods["tinker_cookbook.completers"].TokensWithLogprobs = TokensWithLogprobs
    t = mods["tinker_cookbook.rl.types"]
    t.Transition, t.Trajectory, t.TrajectoryGroup = Transition, Trajectory, TrajectoryGroup
    mods["tinker_cookbook.rl.data_processing"].compute_advantages = stock_compute_advantages
    mods["tinker_cookbook.rl.problem_env"].ProblemGroupBuilder = ProblemGroupBuilder
    mods["tinker_cookbook.recipes.math_rl.math_env"].MathEnv = MathEnv
    mods["tinker_cookbook.rl.train"] = _build_train_module()
    if recipe is not None:
        mods["tinker_cookbook.recipes.math_rl.train"] = recipe.module
    sys.modules.update(mods)
    return mods


def uninstall() -> None:
    for name in _MODULE_NAMES:
        sys.modules.pop(name, None)


def run_async(coro: Any) -> Any:
    return asyncio.run(coro)
