"""The TRL drivers' kernel arms without training (docs/study.md section 8): each kernel arm's file resolved for the
server (``kernel:PATH`` relative to the spec file, ``tuned_kernel`` and ``oracle_cell_kernel`` in the run folder), and
the server computing with such a file from another working folder."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from rl_advantages.study.settings import load_settings, with_run_kernels

REPO = Path(__file__).resolve().parents[3]
KERNELS = REPO / "specs" / "arith-kernels.json"
BATCH_MEAN_FILE = {"format": "rl-advantages/kernel", "version": 1, "family": "loo_batch_mean", "params": {}, "fitted": {}}


def test_kernel_arms_resolve_to_absolute_files(tmp_path: Path) -> None:
    spec = json.loads(KERNELS.read_text(encoding="utf-8"))
    spec["arms"].append({**spec["arms"][2], "name": "file_g1", "advantage": "kernel:k/batchmean.json"})
    (tmp_path / "specs").mkdir()
    (tmp_path / "specs" / "spec.json").write_text(json.dumps(spec), encoding="utf-8")
    settings = with_run_kernels(load_settings(str(tmp_path / "specs" / "spec.json")), str(tmp_path / "specs" / "spec.json"), "runs/r")
    got = {a.name: (a.advantage, a.server_name) for a in settings.arms}
    run = os.path.abspath("runs/r")
    assert got == {
        "grpo_g8": ("group_mean", "group_mean"),
        "gs1_tfidf_g1": ("tfidf_kernel_loo_T0.1", "tfidf_kernel_loo_T0.1"),
        "batchmean_g1": ("loo_batch_mean", "loo_batch_mean"),
        "tuned_g1": ("tuned_kernel", f"kernel:{run}/kernel.json"),
        "oracle_g1": ("oracle_cell_kernel", f"kernel:{run}/oracle-kernel.json"),
        "file_g1": ("kernel:k/batchmean.json", f"kernel:{tmp_path}/specs/k/batchmean.json"),
    }
    # The arms that are not kernel files keep their name for the server: the published specs' drivers are unchanged.
    assert all(a.estimator == "" for a in settings.arms[:3])


def test_the_server_computes_with_a_resolved_kernel_file_from_another_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import rl_advantages as r

    (tmp_path / "k").mkdir()
    kernel = tmp_path / "k" / "batchmean.json"
    kernel.write_text(json.dumps(BATCH_MEAN_FILE), encoding="utf-8")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    rewards = [1.0, 0.0, 0.0, 1.0]
    with r.Server() as server:
        out = r.compute_advantages(f"kernel:{kernel}", rewards, prompts=["a", "b", "c", "d"], server=server)
    assert out.baselines.tolist() == [1 / 3, 2 / 3, 2 / 3, 1 / 3]
