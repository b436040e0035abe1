"""Shared fixtures: a small corpus file, a server fitted on it, and torch when the tests need it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import rl_advantages as r
from client_support import make_corpus


@pytest.fixture(scope="session")
def corpus_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("corpus") / "corpus.txt"
    path.write_text("\n".join(make_corpus()) + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="session")
def server(corpus_file: Path):
    with r.Server(corpus=corpus_file) as s:
        yield s


@pytest.fixture()
def require_torch():
    """torch, or a skip; RL_ADV_REQUIRE_TORCH=1 (CI) makes a missing torch a failure instead."""
    if os.environ.get("RL_ADV_REQUIRE_TORCH") == "1":
        import torch  # noqa: F401

    return pytest.importorskip("torch")
