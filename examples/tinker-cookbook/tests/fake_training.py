"""Fakes of tinker-cookbook 9dfcc3a2 checkpoints, log-dir handling, ``rl.train`` (main loop) and the math_rl
recipe; see ``tests/fakes.py`` for what they follow."""

from __future__ import annotations

import json
import os
import shutil
import sys
import types
from dataclasses import dataclass, field
from typing import Any, Callable

from tests.fake_cookbook import *  # noqa: F401,F403
from tests.fake_cookbook import CharTokenizer, ChatRenderer, ProblemGroupBuilder, SamplingClient, TrainingClient, TrajectoryGroup, assemble_training_data, gsm8k_builder, rollout_group, stock_compute_advantages  # noqa: F401

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


@dataclass
class BenchmarkResult:
    """``eval/benchmarks/_types.py`` BenchmarkResult (the fields ``RLTestSetEvaluator`` fills)."""

    name: str
    score: float
    num_examples: int
    num_correct: int
    num_errors: int = 0
    metrics: dict = field(default_factory=dict)


class FakeMlLogger:
    store = None


class RLTestSetEvaluator:
    """``rl/metric_util.py`` RLTestSetEvaluator (:156): ``env_group_builders_P`` is the test dataset flattened
    (:189); a call rolls out every builder and sets ``last_result`` (a group is correct when any reward > 0,
    :352) and returns metrics prefixed ``test/``. The rewards are the dataset's script for the sampling client's step."""

    def __init__(self, dataset: Any, max_tokens: int, name: str = "test", num_groups_to_log: int = 4, strategy: Any = None):
        self.env_group_builders_P = [b for i in range(len(dataset)) for b in dataset.get_batch(i)]
        self.dataset = dataset
        self.max_tokens = max_tokens
        self.name = name
        self.last_result: BenchmarkResult | None = None

    async def __call__(self, sampling_client: Any, *, rollout_summary_export: Any = None, store: Any = None) -> dict:
        step = int(str(sampling_client.model_path).rsplit("step", 1)[-1])
        self.dataset.recipe.eval_clients.append(sampling_client.model_path)
        groups = [await rollout_group(b, [self.dataset.recipe.eval_reward(step, j)]) for j, b in enumerate(self.env_group_builders_P)]
        correct = sum(1 for g in groups if any(r > 0 for r in g.get_total_rewards()))
        rewards = [r for g in groups for r in g.get_total_rewards()]
        metrics = {"env/all/correct": correct / len(groups), "env/all/total_episodes": len(groups), "env/all/reward/total": sum(rewards) / len(rewards)}
        self.last_result = BenchmarkResult(self.name, correct / len(groups), len(groups), correct, 0, dict(metrics))
        return {f"{self.name}/{k}": v for k, v in metrics.items()}


class FakeTestDataset:
    """``Gsm8kDataset(split="test")``: unshuffled, one rollout per item, batches of ``batch_size``."""

    def __init__(self, recipe: "FakeRecipe", batch_size: int):
        self.recipe = recipe
        self.batch_size = batch_size
        self.renderer = ChatRenderer()

    def __len__(self) -> int:
        return -(-len(self.recipe.test_questions) // self.batch_size)

    def get_batch(self, index: int) -> list:
        start = index * self.batch_size
        return [gsm8k_builder(q, 1, self.renderer) for q in self.recipe.test_questions[start : start + self.batch_size]]


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
        return SamplingClient(f"tinker://fake/sampler_weights/step{step}", config.model_name), metrics

    async def run_evaluations_parallel(evaluators, sampling_client, config, i_batch, store=None):
        """``run_evaluations_parallel`` (:633): every evaluator on the sampling client, metrics merged."""
        metrics: dict = {}
        for evaluator in evaluators:
            train.evaluated_at.append((i_batch, len(evaluator.env_group_builders_P)))
            metrics.update(await evaluator(sampling_client))
        return metrics

    async def do_sync_training(*, start_batch, end_batch, num_batches, config, training_client, kl_reference_client, evaluators, dataset, ml_logger, tokenizer, error_counter=None, strategy=None, checkpoint_mgr=None):
        """``do_sync_training`` (:1688): evals before batch ``i_batch`` trains (the policy after ``i_batch`` steps)."""
        sampling_client = SamplingClient(f"tinker://fake/sampler_weights/step{start_batch}", config.model_name)
        for i_batch in range(start_batch, end_batch):
            if config.eval_every > 0 and i_batch % config.eval_every == 0:
                await train.run_evaluations_parallel(evaluators, sampling_client, config, i_batch, store=ml_logger.store)
            builders = dataset.get_batch(i_batch)
            groups = [await dataset.rollout(i_batch, g, b) for g, b in enumerate(builders)]
            ok = [(b, g) for b, g in zip(builders, groups) if g is not None]
            if not ok:
                continue  # "all groups failed or filtered, skipping batch"
            sampling_client, _ = await train.do_train_step_and_get_sampling_client(
                config, i_batch, training_client, checkpoint_mgr, kl_reference_client, tokenizer, [b for b, _ in ok], [g for _, g in ok]
            )

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
        evaluators = [] if test_dataset is None else [RLTestSetEvaluator(test_dataset, max_tokens=config.max_tokens)]
        end_batch = min(config.max_steps, len(dataset)) if config.max_steps is not None else len(dataset)
        mgr = CheckpointManager(training_client, config.log_path, config.save_every)
        await train.do_sync_training(
            start_batch=start_batch, end_batch=end_batch, num_batches=end_batch, config=config, training_client=training_client,
            kl_reference_client=None, evaluators=evaluators, dataset=dataset, ml_logger=FakeMlLogger(), tokenizer=tokenizer,
            checkpoint_mgr=mgr,
        )
        if start_batch < end_batch:
            await mgr.save("final", {"batch": end_batch})

    train.print_group = print_group
    train.prepare_minibatch = prepare_minibatch
    train.do_train_step_and_get_sampling_client = do_train_step_and_get_sampling_client
    train.run_evaluations_parallel = run_evaluations_parallel
    train.do_sync_training = do_sync_training
    train.RLTestSetEvaluator = RLTestSetEvaluator
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

    def __init__(self, recipe: "FakeRecipe", batch_size: int, group_size: int, seed: int = 0):
        self.recipe = recipe
        self.batch_size = batch_size
        self.group_size = group_size
        self.renderer = ChatRenderer()
        # math_env.py:344-346: load the train split, then ``self.ds.shuffle(seed=seed)``; datasets' shuffle selects
        # rows in the order ``numpy.random.default_rng(seed).permutation(n)`` (checked against the real library in
        # test_seeds.py). Only with ``shuffle=True``: the other tests read the rows in file order.
        self.questions = recipe.questions
        if recipe.shuffle:
            import numpy as np

            self.questions = [recipe.questions[int(i)] for i in np.random.default_rng(seed).permutation(len(recipe.questions))]

    def __len__(self) -> int:
        return len(self.questions) // self.batch_size

    def get_batch(self, index: int) -> list:
        start = index * self.batch_size
        chosen = self.questions[start : start + self.batch_size]
        self.recipe.batches.append((index, list(chosen)))
        return [gsm8k_builder(q, self.group_size, self.renderer) for q in chosen]

    async def rollout(self, i_batch: int, g: int, builder: ProblemGroupBuilder) -> TrajectoryGroup | None:
        if i_batch == self.recipe.fail_at:
            self.recipe.fail_at = None  # fails once, as a transient sampling error
            raise RuntimeError(f"sampling failed at batch {i_batch} (FailFast)")
        if i_batch in self.recipe.skip:
            return None
        return await rollout_group(builder, [self.recipe.reward_fn(i_batch, g, k) for k in range(builder.num_envs)])


class FakeRecipe:
    """``recipes/math_rl/train.py``: ``cli_main`` builds a Config, checks the log dir, awaits ``main(config)``."""

    def __init__(
        self,
        questions: list[str],
        reward_fn: Callable[[int, int, int], float],
        config_overrides: dict | None = None,
        fail_at: int | None = None,
        skip: tuple = (),
        shuffle: bool = False,
        test_questions: list[str] | None = None,
        eval_reward: Callable[[int, int], float] | None = None,
    ):
        self.questions = questions
        self.shuffle = shuffle
        self.test_questions = test_questions if test_questions is not None else [f"test question {i}" for i in range(1319)]
        #: the test-set evaluator's reward of test item ``j`` for the policy after ``step`` steps
        self.eval_reward = eval_reward or (lambda step, j: (1.0, 0.0, -0.1)[(step + j) % 3])
        self.batches: list = []  # (batch index, the questions of that batch), every get_batch call
        self.eval_clients: list = []  # the sampling client of every test-set evaluation
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
            return FakeDataset(recipe, cli_config.groups_per_batch, cli_config.group_size, cli_config.seed), FakeTestDataset(recipe, cli_config.groups_per_batch)

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

