"""``Server``: one long-lived ``rl-adv serve`` child speaking JSON lines, started lazily, checked by ``describe``."""

from __future__ import annotations

import atexit
import json
import os
import select
import shlex
import subprocess
import tempfile
import threading
import time
import weakref
from typing import IO, Any

from ._errors import RlAdvantagesError
from ._node import find_node
from ._package_version import __version__

__all__ = ["BUNDLE", "PROTOCOL", "Server"]

#: The serve protocol this client speaks (``describe`` answers ``"protocol"``).
PROTOCOL = 1

#: The bundled command line (``npm run build`` writes it; the wheel carries it).
BUNDLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_js", "rl-adv.js")

_STDERR_TAIL = 2000
_live: weakref.WeakSet[Server] = weakref.WeakSet()


class Server:
    """A long-lived ``rl-adv serve`` child process: requests go in as JSON lines, responses come back in order.

    The child starts at the first request (or :meth:`start`), answers a ``describe`` request first (protocol
    version, package version, estimator catalogue; a mismatch with this package is an error), and is closed by
    :meth:`close`, at the end of a ``with`` block, or at interpreter exit. Calls are serialised by a lock, so
    threads may share one server. A child that dies is reported (exit code, tail of its stderr) by the call that
    finds it dead; the next call starts a new one (the dead one's sessions are gone: load their state again).
    After ``os.fork`` the child process starts its own server.

    Args:
        corpus: a corpus to fit the TF-IDF vectorizer on at start (``rl-adv serve --corpus``): JSON lines with the
            text in ``corpus_field`` (default ``question``) or ``.txt`` one document a line. Needed by the
            prompt-kernel estimators (``tfidf_kernel_loo_T<T>``, ``length_bucket_loo``, kernel priors).
        vectorizer: instead of ``corpus``, a vectorizer saved by ``rl-adv tfidf fit``.
        corpus_field: the JSON-lines field of ``corpus`` holding each document.
        estimator_modules: ES modules whose default export is an estimator descriptor (or a list of them), registered
            in the server before any request (``rl-adv serve --estimator-module``, docs/estimators.md): they join
            the catalogue and are computed like the built-in ones.
        node: the node executable (default: see :func:`rl_advantages.find_node`).
        bundle: the ``rl-adv`` script to run (default: the one this package carries).
        timeout: seconds to wait for one response (the first includes start-up), or None to wait forever. A
            server that times out is killed, since its next line would answer the wrong request.

    Example:
        >>> import rl_advantages as r
        >>> with r.Server() as server:
        ...     r.compute_advantages("rloo", [1, 0, 1, 1], group_ids=[0, 0, 1, 1], server=server).advantages
        array([ 1., -1.,  0.,  0.])
    """

    def __init__(
        self,
        *,
        corpus: str | os.PathLike[str] | None = None,
        vectorizer: str | os.PathLike[str] | None = None,
        corpus_field: str | None = None,
        estimator_modules: list[str | os.PathLike[str]] | tuple[str | os.PathLike[str], ...] = (),
        node: str | None = None,
        bundle: str | os.PathLike[str] | None = None,
        timeout: float | None = 600.0,
    ):
        if corpus is not None and vectorizer is not None:
            raise RlAdvantagesError("bad_option", "give either corpus or vectorizer, not both", field="vectorizer")
        self._args: list[str] = []
        if corpus is not None:
            self._args += ["--corpus", os.fspath(corpus)]
        if vectorizer is not None:
            self._args += ["--vectorizer", os.fspath(vectorizer)]
        if corpus_field is not None:
            self._args += ["--corpus-field", corpus_field]
        for module in estimator_modules:
            self._args += ["--estimator-module", os.fspath(module)]
        self._node = node
        self._bundle = os.fspath(bundle) if bundle is not None else BUNDLE
        self.timeout = timeout
        self._lock = threading.RLock()
        self._proc: subprocess.Popen[bytes] | None = None
        self._stderr: IO[bytes] | None = None
        self._owner = os.getpid()
        self._buffer = bytearray()
        self._next_id = 1
        self._dirty = False  # a request line may be partly written (a call interrupted while sending it)
        self._describe: dict[str, Any] | None = None
        self._sessions: set[str] = set()
        self.argv: list[str] = []
        _live.add(self)

    # -- lifecycle ---------------------------------------------------------------------------------------------

    def start(self) -> Server:
        """Starts the child (if it is not running) and checks its ``describe`` answer; returns ``self``.

        Raises:
            RlAdvantagesError: ``node_not_found`` / ``node_too_old``, ``bundle_missing``, ``server_exited`` (it
                died at start: a bad corpus, ...), ``protocol_mismatch`` or ``version_mismatch``.
        """
        with self._lock:
            self._check_fork()
            if self._proc is None:
                self._spawn()
                try:
                    self._handshake()
                except BaseException:
                    self._stop()
                    raise
        return self

    def close(self) -> None:
        """Ends the child (closing its input, then killing it if it has not exited within 5 s). Idempotent."""
        with self._lock:
            if os.getpid() != self._owner:
                self._forget()
                return
            self._stop()

    def __enter__(self) -> Server:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def pid(self) -> int | None:
        """The child's process id, or None when none is running."""
        return None if self._proc is None else self._proc.pid

    @property
    def running(self) -> bool:
        """Whether a child is running (it may still have died since the last call)."""
        return self._proc is not None and self._proc.poll() is None

    # -- requests ----------------------------------------------------------------------------------------------

    def describe(self) -> dict[str, Any]:
        """The server's ``describe`` answer: ``{"protocol", "version", "estimators": [descriptor, ...]}``."""
        with self._lock:
            self.start()
            assert self._describe is not None
            return self._describe

    def catalogue(self) -> list[dict[str, Any]]:
        """The estimator catalogue: one descriptor dict per estimator (docs/estimators.md)."""
        return list(self.describe()["estimators"])

    def request(self, payload: dict[str, Any]) -> dict[str, Any]:
        """Sends one request (without ``"id"``, which this adds) and returns the response without its ``"id"``.

        Raises:
            RlAdvantagesError: the server's error (its code, message, field and index), or the client's
                (``server_exited``, ``timeout``, ``bad_response``).
        """
        with self._lock:
            self.start()
            session = payload.get("session")
            new = session is not None and payload.get("op") != "state_dict" and str(session) not in self._sessions
            if new:
                self._sessions.add(str(session))  # named if the server dies: its state dies with it (even mid-call)
            response = self._exchange(payload)
            error = response.get("error")
            if error is not None and new:
                self._sessions.discard(str(session))
        if error is not None:
            raise _server_error(error)
        return response

    def state_dict(self, session: str | int) -> dict[str, Any]:
        """A checkpoint of the stateful estimator of ``session``: ``{"session", "estimator", "state"}``.

        Raises:
            RlAdvantagesError: ``unknown_session`` if this server has no such session.
        """
        return self.request({"op": "state_dict", "session": session})

    def load_state_dict(self, session: str | int, estimator: str | dict[str, Any] | Any, state: Any) -> None:
        """Restores ``session`` (new, or replacing the one of that id) from a :meth:`state_dict` checkpoint; the next
        request of the session computes exactly as the saved session would have."""
        spec = dict(estimator) if not isinstance(estimator, str) and hasattr(estimator, "keys") else estimator
        self.request({"op": "load_state_dict", "session": session, "estimator": spec, "state": state})

    # -- internals ---------------------------------------------------------------------------------------------

    def _check_fork(self) -> None:
        if os.getpid() != self._owner:
            self._forget()

    def _forget(self) -> None:
        """After a fork: the parent's child and pipes are not ours; start afresh."""
        self._proc = None
        self._stderr = None
        self._buffer = bytearray()
        self._describe = None
        self._sessions = set()
        self._owner = os.getpid()

    def _spawn(self) -> None:
        if not os.path.isfile(self._bundle):
            raise RlAdvantagesError(
                "bundle_missing",
                f"the bundled rl-adv server {self._bundle} is missing: this rl_advantages was installed from a source tree "
                "that had not run `npm ci && npm run build`; build it, then `pip install ./python` again",
            )
        node = find_node(self._node)
        # --exit-with-parent: a computation in progress ends with this process, not seconds after it.
        self.argv = [node, self._bundle, "serve", "--exit-with-parent", *self._args]
        # stderr goes to a file, never a pipe nobody reads (a full pipe would block the server).
        self._stderr = tempfile.TemporaryFile()
        try:
            self._proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr, bufsize=0)
        except OSError as error:
            self._stderr.close()
            self._stderr = None
            raise RlAdvantagesError("node_not_found", f"cannot start {shlex.join(self.argv)}: {error}") from None
        self._buffer = bytearray()
        self._dirty = False
        self._sessions = set()

    def _handshake(self) -> None:
        response = self._exchange({"op": "describe"})
        if "error" in response:
            message = (response.get("error") or {}).get("message", "")
            raise RlAdvantagesError(
                "protocol_mismatch",
                f"{self._bundle} does not answer the describe request of serve protocol {PROTOCOL} ({message}): it is older "
                "than this package; reinstall rl-advantages from one build (npm run build, then pip install ./python)",
            )
        protocol = response.get("protocol")
        if protocol != PROTOCOL:
            raise RlAdvantagesError(
                "protocol_mismatch",
                f"{self._bundle} speaks serve protocol {protocol!r}; this rl_advantages speaks {PROTOCOL}: install matching versions",
            )
        version = response.get("version")
        if version != __version__:
            raise RlAdvantagesError(
                "version_mismatch",
                f"{self._bundle} is rl-advantages {version!r}, this Python package is {__version__!r}: "
                "build both from one checkout (npm run build, then pip install ./python)",
            )
        if not isinstance(response.get("estimators"), list):
            raise RlAdvantagesError("bad_response", f"describe answered without an estimator list: {_clip(json.dumps(response))}")
        self._describe = response

    def _exchange(self, payload: dict[str, Any]) -> dict[str, Any]:
        """Sends one request and returns its response. A call interrupted (KeyboardInterrupt, ...) before its answer
        leaves the server running: the next call ends a partly written line (the server answers it with an error),
        and skips the answers of earlier requests by their ids, which only grow. Responses come in request order."""
        proc = self._proc
        assert proc is not None and proc.stdin is not None and proc.stdout is not None
        if "id" in payload:
            raise RlAdvantagesError("bad_request", '"id" is the serve protocol\'s own field: Server.request numbers each request itself', field="id")
        request_id = self._next_id
        self._next_id += 1
        try:
            line = json.dumps({"id": request_id, **payload}, allow_nan=False, separators=(",", ":")).encode() + b"\n"
        except ValueError as error:  # a NaN the caller's checks let through: never sent
            raise RlAdvantagesError("non_finite", f"the request holds NaN or infinity, which JSON cannot carry: {error}") from None
        if proc.poll() is not None:
            raise self._died("had exited before this request")
        deadline = None if self.timeout is None else time.monotonic() + self.timeout
        if self._dirty:
            self._write(b"\n")  # ends an interrupted line: not JSON, or a whole request, its answer skipped below
            self._dirty = False
        self._dirty = True
        self._write(line)
        self._dirty = False
        while True:
            raw = self._read_line(deadline)
            if raw is None:
                raise self._died("exited before answering")
            try:
                response = json.loads(raw)
            except ValueError:
                raise self._broken(f"rl-adv serve wrote a line that is not JSON: {_clip(raw.decode('utf-8', 'replace'))}") from None
            answered = response.get("id") if isinstance(response, dict) else request_id + 1
            if answered == request_id:
                del response["id"]
                return response  # type: ignore[no-any-return]
            if answered is None or (type(answered) is int and answered < request_id):
                continue  # the answer to an interrupted request (or to the line that ended it): nobody waits for it
            raise self._broken(f"rl-adv serve answered {_clip(raw.decode('utf-8', 'replace'))} to request {request_id}")

    def _write(self, data: bytes) -> None:
        proc = self._proc
        assert proc is not None and proc.stdin is not None
        try:
            view = memoryview(data)
            fd = proc.stdin.fileno()
            while view:
                view = view[os.write(fd, view):]
        except (BrokenPipeError, ConnectionResetError, OSError):
            raise self._died("closed its input while the request was sent") from None

    def _broken(self, what: str) -> RlAdvantagesError:
        """The protocol is out of step: the server is stopped, and its sessions named."""
        lost = self._lost_sessions()
        self._stop(kill=True)
        return RlAdvantagesError("bad_response", f"{what}; it was stopped and the next call starts a new one. {lost}".strip())

    def _lost_sessions(self) -> str:
        """What a stopped server's sessions need: their names and how to restore them."""
        sessions = sorted(self._sessions)
        if not sessions:
            return ""
        names = ", ".join(map(repr, sessions[:5])) + (", ..." if len(sessions) > 5 else "")
        return (
            f"Its {len(sessions)} session(s) ({names}) are lost: restore each from its last checkpoint with "
            "load_state_dict(session, checkpoint['estimator'], checkpoint['state']) (a checkpoint is what state_dict(session) returned)."
        )

    def _read_line(self, deadline: float | None) -> bytes | None:
        proc = self._proc
        assert proc is not None and proc.stdout is not None
        fd = proc.stdout.fileno()
        start = 0
        while True:
            newline = self._buffer.find(b"\n", start)
            if newline >= 0:
                line = bytes(self._buffer[:newline])
                del self._buffer[: newline + 1]
                return line
            start = len(self._buffer)
            if deadline is not None and os.name != "nt":
                remaining = deadline - time.monotonic()
                if remaining <= 0 or not select.select([fd], [], [], remaining)[0]:
                    lost = self._lost_sessions()
                    self._stop(kill=True)
                    raise RlAdvantagesError(
                        "timeout",
                        f"rl-adv serve did not answer within {self.timeout} s; it was stopped (the next call starts a new one). "
                        f"Give Server(timeout=...) more for large batches or a large corpus. {lost}".strip(),
                    )
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                return None
            self._buffer += chunk

    def _died(self, what: str) -> RlAdvantagesError:
        proc = self._proc
        assert proc is not None
        try:
            code = proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            code = None
        tail = self._stderr_tail()
        lost = self._lost_sessions()
        argv = shlex.join(self.argv)
        self._stop()
        status = "is still running" if code is None else (f"was killed by signal {-code}" if code < 0 else f"exit code {code}")
        message = f"rl-adv serve ({argv}) {what} ({status})"
        message += f"; its stderr ends:\n{tail}\n" if tail else "; its stderr was empty. "
        message += "The next call starts a new server."
        message += f" {lost}" if lost else ""
        return RlAdvantagesError("server_exited", message)

    def _stderr_tail(self) -> str:
        if self._stderr is None:
            return ""
        try:
            self._stderr.flush()
            size = self._stderr.seek(0, os.SEEK_END)
            self._stderr.seek(max(0, size - _STDERR_TAIL))
            return self._stderr.read().decode("utf-8", "replace").strip()
        except (OSError, ValueError):
            return ""

    def _stop(self, kill: bool = False) -> None:
        proc, self._proc = self._proc, None
        self._describe = None
        self._sessions = set()
        self._buffer = bytearray()
        if proc is not None:
            if kill:
                proc.kill()
            try:
                if proc.stdin is not None:
                    proc.stdin.close()
            except OSError:
                pass
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            if proc.stdout is not None:
                proc.stdout.close()
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None


def _clip(text: str, limit: int = 300) -> str:
    return text if len(text) <= limit else text[:limit] + "..."


def _server_error(error: Any) -> RlAdvantagesError:
    if not isinstance(error, dict):
        return RlAdvantagesError("bad_response", f"rl-adv serve answered with a malformed error: {_clip(json.dumps(error))}")
    field = error.get("field")
    index = error.get("index")
    return RlAdvantagesError(
        str(error.get("code", "server_error")),
        str(error.get("message", "")),
        field=field if isinstance(field, str) else None,
        index=index if isinstance(index, int) and not isinstance(index, bool) else None,
    )


@atexit.register
def _close_all() -> None:
    for server in list(_live):
        try:
            server.close()
        except Exception:  # noqa: BLE001 - exiting: one server's failure must not keep the others open
            pass
