"""Per-attempt fencing of a job's writes (issue 40): one attempt at a time may write into a job's folders.

Before each attempt of a job the orchestrator's bridge writes a fresh token into the job's fence file
(``RUN/ray/fence/<job id, "/" as "__">``) and gives the attempt that file and token in its environment
(:data:`FENCE_FILE`, :data:`FENCE_TOKEN`). An attempt whose token is no longer the file's is stale (an orphan of a
killed orchestrator still running on a node while a resumed study runs the job again): the task that runs it kills
it within :data:`POLL_SECONDS`, and the TRL drivers refuse to rename a finished file into place
(:func:`check_fence`, called by ``rl_advantages.study.settings.write_text_durable``), so a stale attempt never
replaces a file the new attempt wrote. Standard library only: this module is shipped to the nodes by value.
"""

from __future__ import annotations

import os

#: The environment variables an attempt receives.
FENCE_FILE = "RL_ADV_FENCE_FILE"
FENCE_TOKEN = "RL_ADV_FENCE_TOKEN"
#: How often the task running an attempt re-reads its fence.
POLL_SECONDS = 0.5


class FencedError(Exception):
    """This attempt is no longer the job's current one."""


def fence_path(run_dir: str, job_id: str) -> str:
    """The fence file of a job in a run folder."""
    return os.path.join(run_dir, "ray", "fence", job_id.replace("/", "__"))


def read_fence(path: str) -> str | None:
    """The token in a fence file, None when there is none."""
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read().strip()
    except FileNotFoundError:
        return None


def current(path: str, token: str) -> bool:
    """Whether ``token`` is still the fence's."""
    return read_fence(path) == token


def check_fence(environ: dict[str, str] | None = None) -> None:
    """Raises :class:`FencedError` when this process runs a stale attempt (its fence holds another token); does
    nothing outside a fenced attempt."""
    env = os.environ if environ is None else environ
    path, token = env.get(FENCE_FILE), env.get(FENCE_TOKEN)
    if not path or not token:
        return
    found = read_fence(path)
    if found != token:
        raise FencedError(f"this attempt ({token}) is stale: {path} names attempt {found}; a newer attempt owns the job's files")
