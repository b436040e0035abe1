"""TRL across processes: ``accelerate launch --multi_gpu --num_processes 2`` on CPU (``use_cpu=True``: the two
processes join a gloo group; accelerate's ``--cpu`` flag alone runs one process), the real ``trl.GRPOTrainer``
(trl 1.13.0) through ``rl_advantages.integrations.trl`` with ``num_generations=1`` and ``tfidf_kernel_loo_T0.1``, in the
two-line form: no ``advantage_server``, so each process fits the TF-IDF vectorizer on the train dataset's prompts.

Each process writes what its own reward function scored and the advantages it trains on (trl_two_process.py).
The whole batch of a step is the two processes' completions in process order (TRL gathers rewards with
``accelerator.gather``, grpo_trainer.py:1730-1731 in 1.13.0, and keeps ``process_slice``); the ``rl-adv
advantages`` command computes GS1 on that whole batch once, and each process's advantages must be its slice of
that (|diff| <= 1e-6; TRL keeps float32). GS1 on one process's slice alone is a different estimator: the test
also shows it differs from the whole-batch one on these batches.

Outside CI the test skips when accelerate/TRL is missing; in CI (``CI`` or ``RL_ADV_REQUIRE_TORCH``) it fails.
"""

from __future__ import annotations

import importlib.util
import json
import os
import socket
import subprocess
import sys

import numpy as np
import pytest

import rl_advantages

from adapter_support import cli_advantages

_REQUIRED = bool(os.environ.get("CI") or os.environ.get("RL_ADV_REQUIRE_TORCH"))
_MISSING = [m for m in ("torch", "trl", "accelerate", "transformers", "datasets") if importlib.util.find_spec(m) is None]
if _MISSING and not _REQUIRED:
    pytest.skip(f"needs {', '.join(_MISSING)}", allow_module_level=True)

HERE = os.path.dirname(os.path.abspath(__file__))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def dataset_corpus(tmp_path_factory):
    """The train dataset's prompts (PROMPTS * 2, as trl_two_process.py builds it): what each process, given no
    ``advantage_server``, fits its TF-IDF vectorizer on."""
    from test_trl import PROMPTS

    path = tmp_path_factory.mktemp("trl2corpus") / "train_prompts.jsonl"
    path.write_text("".join(json.dumps({"question": p}) + "\n" for p in PROMPTS * 2))
    return str(path)


@pytest.fixture(scope="module")
def two_process_run(tmp_path_factory):
    assert not _MISSING, f"CI's Python lacks {', '.join(_MISSING)}: add them to python/requirements-test.txt"
    out = tmp_path_factory.mktemp("trl2")
    package_parent = os.path.dirname(os.path.dirname(os.path.abspath(rl_advantages.__file__)))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([HERE, package_parent, env.get("PYTHONPATH", "")])
    env.update(OMP_NUM_THREADS="1", TOKENIZERS_PARALLELISM="false")
    argv = [
        sys.executable, "-m", "accelerate.commands.launch",
        "--multi_gpu", "--num_processes", "2", "--num_machines", "1", "--mixed_precision", "no", "--dynamo_backend", "no",
        "--main_process_port", str(_free_port()),
        os.path.join(HERE, "trl_two_process.py"), str(out), "-",  # no advantage_server: the two-line form
    ]
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=420)
    assert done.returncode == 0, done.stderr[-4000:]
    ranks = [json.loads((out / f"rank{r}.json").read_text()) for r in range(2)]
    return ranks


def test_each_process_trains_on_its_slice_of_the_whole_batch_gs1(two_process_run, dataset_corpus):
    corpus_file = dataset_corpus  # each process fitted its vectorizer on these prompts
    ranks = two_process_run
    assert [r["rank"] for r in ranks] == [0, 1] and all(r["world_size"] == 2 and r["backend"] == "gloo" for r in ranks)
    assert all(r["global_step"] == 2 for r in ranks) and all(len(r["steps"]) == 2 for r in ranks)
    worst = 0.0
    slice_only_gap = 0.0
    for step in range(2):
        parts = [r["steps"][step] for r in ranks]
        prompts = parts[0]["prompts"] + parts[1]["prompts"]
        rewards = parts[0]["rewards"] + parts[1]["rewards"]
        assert len(prompts) == 8 and len(set(prompts)) > 4  # one completion per prompt, prompts from both processes
        whole = cli_advantages("tfidf_kernel_loo_T0.1", rewards, prompts, corpus_file)
        for r, part in enumerate(parts):
            got = np.array(part["advantages"])
            assert part["advantages_dtype"] == "torch.float32" and got.shape == (4,)
            worst = max(worst, float(np.max(np.abs(got - whole[4 * r : 4 * r + 4]))))
            alone = cli_advantages("tfidf_kernel_loo_T0.1", part["rewards"], part["prompts"], corpus_file)
            slice_only_gap = max(slice_only_gap, float(np.max(np.abs(alone - whole[4 * r : 4 * r + 4]))))
    print(f"2 processes: max |process advantages - whole-batch CLI slice| = {worst:.3g}; per-process-only GS1 differs by up to {slice_only_gap:.3g}")
    assert worst <= 1e-6
    assert slice_only_gap > 1e-3  # the comparison can tell a per-process kernel from the whole-batch one
