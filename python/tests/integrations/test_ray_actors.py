"""The estimator module reaches the Ray actor that computes advantages, the way each Ray-based adapter loads it,
in a real local Ray runtime (ray 2.58, ``ray.init(num_cpus=2)``, started once for this module):

- verl: ``VERL_USE_EXTERNAL_MODULES=rl_advantages.integrations.verl`` (+ ``RL_ADV_VERL_ESTIMATORS``) in the job's
  ``runtime_env.env_vars`` (verl passes ``ray_kwargs.ray_init.runtime_env`` to ``ray.init``, main_ppo.py); the
  actor stands for verl's ``TaskRunner`` (``ray.remote(num_cpus=1)(TaskRunner)``): it imports verl, which imports
  the adapter (verl/__init__.py:49-52), then runs the v1 advantage step (fake verl, test_verl_v1.py).
- OpenRLHF: ``runtime_env["worker_process_setup_hook"] = "rl_advantages.integrations.openrlhf.install_from_env"``
  with ``RL_ADV_ESTIMATOR``: the actor stands for OpenRLHF's ``PPOTrainer`` actor, whose
  ``RemoteExperienceMaker`` computes the advantages (fake OpenRLHF, test_openrlhf.py).
- SkyRL: ``register()`` called inside the Ray entrypoint (the adapter's documented route), and a
  ``SkyRLEstimator`` built in the driver and shipped to the actor by Ray's serializer (as SkyRL's registry actor
  receives it) (fake SkyRL, test_skyrl.py).

In each actor (another process: its pid is not the driver's) the GS1 advantages equal the ``rl-adv advantages``
command's on the same prompts and rewards (|diff| <= 1e-6; the frameworks keep float32). The frameworks are the
fakes (they cannot be installed here); Ray, its worker processes, runtime_env and setup hook are real.
Outside CI the module skips when ray is missing; in CI (``CI`` or ``RL_ADV_REQUIRE_TORCH``) it fails.
"""

from __future__ import annotations

import importlib.util
import os

import numpy as np
import pytest

import rl_advantages

from adapter_support import FAKES, QUESTIONS, cli_advantages

_REQUIRED = bool(os.environ.get("CI") or os.environ.get("RL_ADV_REQUIRE_TORCH"))
_MISSING = [m for m in ("ray", "torch") if importlib.util.find_spec(m) is None]
if _MISSING and not _REQUIRED:
    pytest.skip(f"needs {', '.join(_MISSING)}", allow_module_level=True)

HERE = os.path.dirname(os.path.abspath(__file__))
REWARDS = [1.0, 0.0, 1.0, 0.0, 0.0, 1.0, 1.0, 0.0]
GS1 = "tfidf_kernel_loo_T0.1"


@pytest.fixture(scope="module")
def ray_runtime(corpus_file):
    assert not _MISSING, f"CI's Python lacks {', '.join(_MISSING)}: add them to python/requirements-test.txt"
    import ray

    package_parent = os.path.dirname(os.path.dirname(os.path.abspath(rl_advantages.__file__)))
    env_vars = {
        "PYTHONPATH": os.pathsep.join(p for p in [FAKES, HERE, package_parent, os.environ.get("PYTHONPATH", "")] if p),
        "OMP_NUM_THREADS": "1",
        "RL_ADV_CORPUS": corpus_file,
        "VERL_USE_EXTERNAL_MODULES": "rl_advantages.integrations.verl",  # verl
        "RL_ADV_VERL_ESTIMATORS": GS1,
        "RL_ADV_ESTIMATOR": GS1,  # OpenRLHF's setup hook
    }
    ray.init(
        num_cpus=2,
        include_dashboard=False,
        object_store_memory=100 * 1024 * 1024,  # the tests pass a few kilobytes
        log_to_driver=False,
        runtime_env={"env_vars": env_vars, "worker_process_setup_hook": "rl_advantages.integrations.openrlhf.install_from_env"},
    )
    try:
        yield ray
    finally:
        ray.shutdown()


class VerlTaskRunner:
    def run(self):
        import os
        import sys

        loaded_before = "rl_advantages.integrations.verl" in sys.modules
        import verl  # noqa: F401  (imports VERL_USE_EXTERNAL_MODULES)
        from verl.trainer.ppo import core_algos

        import test_verl_v1 as t

        advantages, _, _ = t._run_v1(*t.TRAINERS[0], "rl_adv:" + GS1, 1, REWARDS, [f"p{i}" for i in range(8)], QUESTIONS)
        return {
            "pid": os.getpid(),
            "loaded_before_verl": loaded_before,
            "registered": sorted(k for k in core_algos.ADV_ESTIMATOR_REGISTRY if k.startswith("rl_adv:")),
            "advantages": advantages[:, 0].double().tolist(),
        }


class OpenRLHFTrainer:
    def run(self):
        import os

        from openrlhf.trainer.ppo_utils.experience_maker import RemoteExperienceMaker

        import test_openrlhf as t

        method = RemoteExperienceMaker.compute_advantages_and_returns
        experiences = t._maker("reinforce", 1).make_experience_batch(t._experiences(REWARDS, QUESTIONS))
        by_index = t._by_index(experiences)
        firsts = []
        for e in experiences:
            for row, i in enumerate(e.index):
                firsts.append((i, float(by_index[i][0][e.action_mask[row]][0])))
        return {"pid": os.getpid(), "method_module": method.__module__, "advantages": [a for _, a in sorted(firsts)]}


class SkyRLEntrypoint:
    def run(self, shipped):
        import os

        import torch

        import rl_advantages
        from rl_advantages.integrations import skyrl as adapter
        from skyrl.train.trainer import RayPPOTrainer

        import test_skyrl as t

        server = rl_advantages.Server(corpus=os.environ["RL_ADV_CORPUS"])
        names = adapter.register([GS1], server=server)  # in the entrypoint that runs the trainer
        rewards, mask, ours, _ = RayPPOTrainer({"n_samples_per_prompt": 1, "advantage_estimator": names[0]}).step(t._rows(QUESTIONS), t._reward)
        again, _ = shipped(torch.tensor(rewards, dtype=torch.float32).unsqueeze(-1), torch.ones(len(rewards), 1), index=[f"uid-{i}" for i in range(len(rewards))])
        server.close()
        return {"pid": os.getpid(), "rewards": rewards.tolist(), "advantages": ours[:, 0].double().tolist(), "shipped": again[:, 0].double().tolist()}


def _actor(ray, cls):
    return ray.remote(num_cpus=1)(cls).remote()


def test_verl_external_modules_reach_the_task_runner_actor(ray_runtime, corpus_file):
    out = ray_runtime.get(_actor(ray_runtime, VerlTaskRunner).run.remote(), timeout=300)
    assert out["pid"] != os.getpid() and not out["loaded_before_verl"]
    assert out["registered"] == ["rl_adv:" + GS1]
    expected = cli_advantages(GS1, REWARDS, QUESTIONS, corpus_file)
    diff = float(np.max(np.abs(np.array(out["advantages"]) - expected)))
    print(f"verl v1 in a Ray actor: max |diff| vs the CLI {diff:.3g}")
    assert diff <= 1e-6


def test_openrlhf_setup_hook_reaches_the_trainer_actor(ray_runtime, corpus_file):
    out = ray_runtime.get(_actor(ray_runtime, OpenRLHFTrainer).run.remote(), timeout=300)
    assert out["pid"] != os.getpid()
    assert out["method_module"] == "rl_advantages.integrations.openrlhf"  # the hook replaced the maker's method there
    expected = cli_advantages(GS1, REWARDS, QUESTIONS, corpus_file)
    diff = float(np.max(np.abs(np.array(out["advantages"]) - expected)))
    print(f"OpenRLHF in a Ray actor: max |diff| vs the CLI {diff:.3g}")
    assert diff <= 1e-6


def test_skyrl_register_in_the_entrypoint_and_a_shipped_estimator(ray_runtime, corpus_file):
    from rl_advantages.integrations.skyrl import SkyRLEstimator

    out = ray_runtime.get(_actor(ray_runtime, SkyRLEntrypoint).run.remote(SkyRLEstimator(GS1)), timeout=300)
    assert out["pid"] != os.getpid()
    expected = cli_advantages(GS1, out["rewards"], QUESTIONS, corpus_file)
    assert np.any(np.abs(expected - np.array(out["rewards"])) > 1e-3)  # a baseline, not SkyRL's grpo A = r
    diffs = [float(np.max(np.abs(np.array(out[k]) - expected))) for k in ("advantages", "shipped")]
    print(f"SkyRL in a Ray actor: max |diff| vs the CLI {diffs[0]:.3g} (registered there), {diffs[1]:.3g} (shipped from the driver)")
    assert max(diffs) <= 1e-6
