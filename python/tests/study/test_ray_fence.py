"""The per-attempt fence (rl_advantages.cluster.fence) as the TRL drivers' durable writes use it: outside a fenced
attempt nothing changes; in an attempt whose fence names another attempt, a finished file is never renamed into
place (the old file stays, no temporary file is left)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rl_advantages.cluster import FencedError, check_fence, fence_path
from rl_advantages.study.settings import write_text_durable


def test_the_fence_file_of_a_job(tmp_path: Path) -> None:
    assert fence_path(str(tmp_path), "train/full/grpo_g8/seed-2") == str(tmp_path / "ray" / "fence" / "train__full__grpo_g8__seed-2")


def test_a_stale_attempt_never_replaces_a_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fence = tmp_path / "fence"
    fence.write_text("job#2#new\n")
    target = tmp_path / "result.json"
    target.write_text("the newer attempt's\n")
    check_fence({})  # not a fenced attempt: nothing to check
    check_fence({"RL_ADV_FENCE_FILE": str(fence), "RL_ADV_FENCE_TOKEN": "job#2#new"})
    monkeypatch.setenv("RL_ADV_FENCE_FILE", str(fence))
    monkeypatch.setenv("RL_ADV_FENCE_TOKEN", "job#1#old")
    with pytest.raises(FencedError, match="is stale"):
        write_text_durable(str(target), "the stale attempt's\n")
    assert target.read_text() == "the newer attempt's\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fence", "result.json"]
    monkeypatch.setenv("RL_ADV_FENCE_TOKEN", "job#2#new")
    write_text_durable(str(target), "written\n")
    assert target.read_text() == "written\n"
