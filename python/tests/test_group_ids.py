"""Group ids are compared exactly, end to end: Python ints of any size, numpy and torch integers, strings and their
mix keep their identity; bools, floats and JSON numbers beyond 2^53 are refused; Python and serve agree."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

import rl_advantages as r


def _reference_groups(ids: list[Any]) -> list[int]:
    """First-appearance group numbers by exact identity, integers and strings apart (independent of the client)."""
    seen: dict[tuple[str, Any], int] = {}
    return [seen.setdefault(("s", str(x)) if isinstance(x, (str, np.str_)) else ("i", int(x)), len(seen)) for x in ids]


def _reference_group_mean(rewards: np.ndarray, groups: list[int]) -> np.ndarray:
    """group_mean's A_i = r_i - mean of i's group (docs/method.md: a group of one gets A = 0)."""
    labels = np.asarray(groups)
    means = np.array([rewards[labels == g].mean() for g in labels])
    return rewards - means


def test_ids_beyond_2_53_keep_their_identity(server):
    ids = np.array([2**53, 2**53 + 1, 7, 8])
    result = r.compute_advantages("group_mean", [1, 0, 1, 0], group_ids=ids, server=server)
    assert result.diagnostics["groups"] == 4  # JSON numbers would have merged the first two
    assert result.advantages.tolist() == [0.0, 0.0, 0.0, 0.0]
    big = r.compute_advantages("group_mean", [1, 0, 1, 0], group_ids=[2**200, 2**200 + 1, 2**200, -(2**70)], server=server)
    assert big.diagnostics["groups"] == 3 and big.advantages.tolist() == [0.0, 0.0, 0.0, 0.0]
    uint = r.compute_advantages("group_mean", [1, 0, 1], group_ids=np.array([2**64 - 1, 2**64 - 2, 2**64 - 1], dtype=np.uint64), server=server)
    assert uint.diagnostics["groups"] == 2 and uint.advantages.tolist() == [0.0, 0.0, 0.0]


def test_an_integer_and_its_string_are_two_groups(server):
    result = r.compute_advantages("group_mean", [1, 0, 1, 0], group_ids=[0, "0", 1, 1], server=server)
    assert result.diagnostics["groups"] == 3
    assert result.advantages.tolist() == [0.0, 0.0, 0.5, -0.5]
    raw = server.request({"estimator": "group_mean", "rewards": [1, 0, 1, 0], "group_ids": [0, "0", 1, 1]})
    assert raw["advantages"] == result.advantages.tolist()  # serve's own JSON clients: the same three groups


@pytest.mark.parametrize("ids", [[0, True], [True, True], (np.int64(1), np.bool_(False))])
def test_bools_are_refused_as_ids(ids):
    with pytest.raises(r.RlAdvantagesError) as caught:
        r.compute_advantages("group_mean", [1.0, 0.0], group_ids=ids, server=r.Server())
    assert caught.value.field == "group_ids" and caught.value.code == "bad_type"
    assert caught.value.index == [type(x) in (bool, np.bool_) for x in ids].index(True)


@pytest.mark.parametrize(
    ("ids", "index", "words"),
    [
        ([0, 2**53], 1, "2^53"),
        ([0, -(2**53) - 5], 1, "2^53"),
        ([0, True], 1, "got true"),
        ([0, 1.5], 1, "integer or a string"),
        ([0, None], 1, "got null"),
    ],
)
def test_serve_refuses_ids_json_cannot_carry_naming_field_and_index(server, ids, index, words):
    with pytest.raises(r.RlAdvantagesError) as caught:
        server.request({"estimator": "group_mean", "rewards": [1.0, 0.0], "group_ids": ids})
    error = caught.value
    assert (error.code, error.field, error.index) == ("bad_type", "group_ids", index)
    assert words in error.message


def _random_id(rng: random.Random) -> Any:
    kind = rng.randrange(9)
    small = rng.randrange(-3, 4)
    if kind == 0:
        return small
    if kind == 1:
        return np.int64(small)
    if kind == 2:
        return str(small)  # the string of an integer in the batch: another group
    if kind == 3:
        return np.str_(rng.choice(["a", "b", str(small)]))
    if kind == 4:
        return 2**53 + rng.randrange(3)  # beyond JSON's exact integers
    if kind == 5:
        return -(2**63) + rng.randrange(2)
    if kind == 6:
        return np.uint64(2**64 - 1 - rng.randrange(2))
    if kind == 7:
        return 2**100 + rng.randrange(2)
    return rng.choice(["", " ", "é", "0 "])


def _container(rng: random.Random, ids: list[Any]) -> Any:
    """The ids as a list, a tuple, or a numpy array when they share a type numpy keeps exact."""
    if all(isinstance(x, (int, np.integer)) and -(2**63) <= int(x) < 2**63 for x in ids) and rng.random() < 0.5:
        return np.array([int(x) for x in ids], dtype=np.int64)
    if all(isinstance(x, str) for x in ids) and rng.random() < 0.5:
        return np.array(ids)
    return tuple(ids) if rng.random() < 0.3 else ids


def test_python_and_serve_agree_on_random_mixed_ids(server):
    rng = random.Random(20261204)
    checked_raw = refused_raw = 0
    for _ in range(250):
        size = rng.randrange(1, 13)
        ids = [_random_id(rng) for _ in range(size)]
        rewards = np.array([rng.randrange(9) / 8 for _ in range(size)])
        groups = _reference_groups(ids)
        result = r.compute_advantages("group_mean", rewards, group_ids=_container(rng, ids), server=server)
        assert result.diagnostics["groups"] == len(set(groups)), ids
        # numpy sums a group in another order: its mean may differ in the last bit (rewards in [0, 1]).
        np.testing.assert_allclose(result.advantages, _reference_group_mean(rewards, groups), rtol=0, atol=1e-15)
        # serve given the ids as JSON itself: the same advantages bit for bit, or a refusal of the first id JSON
        # cannot carry exactly (naming field and index).
        plain = [int(x) if isinstance(x, (int, np.integer)) else str(x) for x in ids]
        unsafe = [i for i, x in enumerate(plain) if isinstance(x, int) and abs(x) > 2**53 - 1]
        request = {"estimator": "group_mean", "rewards": rewards.tolist(), "group_ids": plain}
        if unsafe:
            with pytest.raises(r.RlAdvantagesError) as caught:
                server.request(request)
            assert (caught.value.field, caught.value.index) == ("group_ids", unsafe[0])
            refused_raw += 1
        else:
            assert server.request(request)["advantages"] == result.advantages.tolist(), ids
            checked_raw += 1
        # serve given every id as a typed string (an exact encoding of any of them): the same, bit for bit.
        tagged = [f"{'s' if isinstance(x, str) else 'i'}:{x}" for x in plain]
        assert server.request({**request, "group_ids": tagged})["advantages"] == result.advantages.tolist(), ids
    assert checked_raw > 20 and refused_raw > 20  # both branches were exercised
