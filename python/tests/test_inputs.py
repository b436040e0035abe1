"""compute_advantages reads lists, numpy arrays of any numeric dtype and torch tensors, returns float64, and
refuses bad input before anything is sent, naming the field and index."""

from __future__ import annotations

import math
import sys

import numpy as np
import pytest

import rl_advantages as r


def test_the_readme_example(server):
    result = r.compute_advantages("group_mean", [1, 0, 0, 1], group_ids=[0, 0, 1, 1], server=server)
    assert result.advantages.dtype == np.float64
    assert result.advantages.tolist() == [0.5, -0.5, -0.5, 0.5]
    assert result.baselines.tolist() == [0.5, 0.5, 0.5, 0.5]
    assert result.estimator == "group_mean"
    assert result.diagnostics["groups"] == 2
    assert str(result.advantages) == "[ 0.5 -0.5 -0.5  0.5]"


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.int8, np.int32, np.int64, np.uint8, np.bool_])
def test_numpy_dtypes_give_float64(server, dtype):
    rewards = np.array([1, 0, 0, 1, 1, 1], dtype=dtype)
    for ids in (np.array([0, 0, 1, 1, 2, 2], dtype=np.int64), np.array([3, 3, 1, 1, 2, 2], dtype=np.uint16), ["a", "a", "b", "b", "c", "c"]):
        result = r.compute_advantages("group_mean", rewards, group_ids=ids, server=server)
        assert result.advantages.dtype == np.float64 and result.baselines.dtype == np.float64
        assert result.advantages.tolist() == [0.5, -0.5, -0.5, 0.5, 0.0, 0.0]


def test_float32_values_are_widened_exactly(server):
    rewards32 = np.array([0.1, 0.7, 0.3], dtype=np.float32)
    a = r.compute_advantages("loo_batch_mean", rewards32, server=server)
    b = r.compute_advantages("loo_batch_mean", rewards32.astype(np.float64).tolist(), server=server)
    assert np.array_equal(a.advantages, b.advantages)


def test_torch_tensors_and_no_torch_import_otherwise(server, require_torch):
    torch = require_torch
    rewards = torch.tensor([1.0, 0.0, 0.0, 1.0], dtype=torch.bfloat16)
    ids = torch.tensor([0, 0, 1, 1])
    mask = torch.tensor([False, False, True, False])
    result = r.compute_advantages("group_mean", rewards, group_ids=ids, mask=mask, server=server)
    assert result.advantages.tolist() == [0.5, -0.5, 0.0, 0.0]
    if rewards.requires_grad is False:
        grad = torch.tensor([1.0, 0.0], requires_grad=True) * 1.0
        assert r.compute_advantages("loo_batch_mean", grad, server=server).advantages.tolist() == [1.0, -1.0]


def test_torch_is_not_imported_for_lists_and_arrays():
    import subprocess

    code = (
        "import sys, rl_advantages as r\n"
        "r.compute_advantages('group_mean', [1, 0], group_ids=[0, 0])\n"
        "import numpy as np\n"
        "r.compute_advantages('group_mean', np.array([1.0, 0.0]), group_ids=np.array([0, 0]))\n"
        "print('torch' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "False"


def test_masked_rewards_may_be_nan(server):
    result = r.compute_advantages("group_mean", [1.0, math.nan, 0.0, 1.0], group_ids=[0, 0, 0, 0], mask=[False, True, False, False], server=server)
    assert result.advantages[1] == 0.0
    assert result.diagnostics["masked"] == 1
    ints = r.compute_advantages("group_mean", [1.0, math.nan, 0.0, 1.0], group_ids=[0, 0, 0, 0], mask=np.array([0, 1, 0, 0]), server=server)
    assert np.array_equal(ints.advantages, result.advantages)


BAD = [
    # (estimator, kwargs, code, field, index)
    ("group_mean", dict(rewards=[1.0, 0.0, math.nan], group_ids=[0, 0, 0]), "non_finite", "rewards", 2),
    ("gdpo", dict(rewards=[1.0, 0.0], group_ids=[0, 0], reward_components=[[1.0, 0.0], [0.0, math.nan]]), "non_finite", "reward_components", 1),
    ("gdpo", dict(rewards=[1.0, 0.0], group_ids=[0, 0], reward_components=[1.0, 0.0]), "bad_shape", "reward_components", None),
    ("group_mean", dict(rewards=np.array([1, 0, np.inf, 0], dtype=np.float32), group_ids=[0, 0, 1, 1]), "non_finite", "rewards", 2),
    ("group_mean", dict(rewards=[0.0, -math.inf], group_ids=[0, 0]), "non_finite", "rewards", 1),
    ("opo", dict(rewards=[1.0, 0.0], group_ids=[0, 0], lengths=[3.0, math.nan]), "non_finite", "lengths", 1),
    ("remax", dict(rewards=[1.0, 0.0], group_ids=[0, 0], greedy_rewards=np.array([math.inf, 0.0])), "non_finite", "greedy_rewards", 0),
    ("kernel_loo_T0.5", dict(rewards=[1.0, 0.0], features=[[1.0, 0.0], [0.0, math.nan]]), "non_finite", "features", 1),
    ("group_mean", dict(rewards=[1.0, math.nan], group_ids=[0, 0], mask=[True, False]), "non_finite", "rewards", 1),
    ("group_mean", dict(rewards=[1.0, "0"], group_ids=[0, 0]), "bad_type", "rewards", 1),
    ("group_mean", dict(rewards=[1.0, None], group_ids=[0, 0]), "bad_type", "rewards", 1),
    ("group_mean", dict(rewards="10", group_ids=[0, 0]), "bad_type", "rewards", None),
    ("group_mean", dict(rewards=[[1.0, 0.0]], group_ids=[0, 0]), "bad_shape", "rewards", None),
    ("group_mean", dict(rewards=[1.0, 0.0, 1.0], group_ids=[0, 0]), "length_mismatch", "group_ids", 2),
    ("group_mean", dict(rewards=[1.0, 0.0], group_ids=[0, 0.5]), "bad_type", "group_ids", 1),
    ("group_mean", dict(rewards=[1.0, 0.0], group_ids=[0, None]), "bad_type", "group_ids", 1),
    ("group_mean", dict(rewards=[1.0, 0.0], group_ids=[True, False]), "bad_type", "group_ids", 0),
    ("group_mean", dict(rewards=[1.0, 0.0], group_ids=[0, True]), "bad_type", "group_ids", 1),
    ("group_mean", dict(rewards=[1.0, 0.0], group_ids=np.array([True, False])), "bad_type", "group_ids", None),
    ("group_mean", dict(rewards=[1.0, 0.0], group_ids=[0, np.bool_(True)]), "bad_type", "group_ids", 1),
    ("tfidf_kernel_loo_T0.1", dict(rewards=[1.0, 0.0], prompts=["a", 7]), "bad_type", "prompts", 1),
    ("tfidf_kernel_loo_T0.1", dict(rewards=[1.0, 0.0], prompts="ab"), "bad_type", "prompts", None),
    ("group_mean", dict(rewards=[1.0, 0.0], group_ids=[0, 0], mask=[False, 2]), "bad_type", "mask", 1),
    ("group_mean", dict(rewards=[1.0, 0.0], group_ids=[0, 0], mask=[False]), "length_mismatch", "mask", 1),
    ("group_mean", dict(rewards=[1.0, 0.0], group_ids=[0, 0], session=1.5), "bad_type", "session", None),
    (7, dict(rewards=[1.0, 0.0]), "bad_type", "estimator", None),
]


@pytest.mark.parametrize(("estimator", "kwargs", "code", "field", "index"), BAD)
def test_bad_input_is_refused_before_sending(estimator, kwargs, code, field, index):
    server = r.Server()  # never started: the check is the client's
    with pytest.raises(r.RlAdvantagesError) as caught:
        r.compute_advantages(estimator, server=server, **kwargs)
    error = caught.value
    assert (error.code, error.field, error.index) == (code, field, index), repr(error)
    assert field in error.message
    if index is not None:
        assert f"[{index}]" in error.message or str(index) in error.message
    assert server.pid is None


def test_server_errors_carry_code_and_message(server):
    with pytest.raises(r.RlAdvantagesError) as caught:
        r.compute_advantages("group_meen", [1.0, 0.0], group_ids=[0, 0], server=server)
    assert caught.value.code == "unknown_estimator"
    assert "group_mean" in caught.value.message  # the known names are listed
    with pytest.raises(r.RlAdvantagesError) as caught:
        r.compute_advantages("rloo", [1.0, 0.0, 1.0], group_ids=[0, 0, 1], server=server)
    assert caught.value.code != "" and "group" in caught.value.message


def test_unknown_options_are_refused_with_the_closest_name(server):
    with pytest.raises(r.RlAdvantagesError) as caught:
        r.compute_advantages("group_mean", [1.0, 0.0], group_ids=[0, 0], normalise="batch", server=server)
    assert (caught.value.code, caught.value.field) == ("unknown_option", "normalise")
    assert "normalize" in caught.value.message
    with pytest.raises(r.RlAdvantagesError) as caught:
        r.compute_advantages({"name": "tfidf_kernel_loo", "temprature": 0.1}, [1.0, 0.0], prompts=["a b", "c d"], server=server)
    assert "temperature" in caught.value.message


def test_options_reach_the_estimator(server):
    plain = r.compute_advantages("group_mean", [1.0, 0.0, 0.0, 0.0], group_ids=[0, 0, 0, 0], server=server)
    scaled = r.compute_advantages("group_mean", [1.0, 0.0, 0.0, 0.0], group_ids=[0, 0, 0, 0], normalize="group", server=server)
    as_dict = r.compute_advantages({"name": "group_mean", "normalize": "group"}, [1.0, 0.0, 0.0, 0.0], group_ids=[0, 0, 0, 0], server=server)
    assert np.array_equal(scaled.advantages, as_dict.advantages)
    assert not np.array_equal(plain.advantages, scaled.advantages)
    assert np.allclose(scaled.advantages, plain.advantages / np.std([1.0, 0.0, 0.0, 0.0], ddof=1), rtol=0, atol=1e-5)
