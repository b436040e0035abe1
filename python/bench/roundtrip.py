"""The cost of calling rl-advantages from Python, beside the same estimator written in numpy, in one process.

For B = 32 and B = 512 and the estimators ``group_mean`` (groups of 8 rollouts) and ``tfidf_kernel_loo_T0.1``
(one rollout per prompt, the GS1 case), times, interleaved call by call in a random order each round, so all see the same machine load:

- ``numpy``: the estimator in numpy (scikit-learn's TfidfVectorizer for the kernel, then the study spec's
  ``S = (X @ X.T).toarray(); W = np.exp(S / T); np.fill_diagonal(W, 0); b = (W @ r) / W.sum(1)``);
- ``rl_advantages``: ``compute_advantages(...)`` with numpy inputs, the full round trip to the server;
- ``raw pipe``: the same request line, encoded once, written to the server and its answer read (no Python
  encoding or decoding): the server's compute plus the pipe;
- ``client CPU``: what the client computes besides waiting (checking and encoding the request, decoding the
  answer into float64 arrays), without the server: the part of the added cost the machine's load does not touch;
- ``serve_client.py``: the old example client (examples/tinker-cookbook/rl_adv_examples), on ``dist/cli.js``.

and the start-up: ``Server(...).start()`` (node start, bundle load, vectorizer fit, ``describe``) and the first
``compute_advantages`` after ``import rl_advantages`` in a fresh interpreter.

Usage (needs ``pip install ./python scikit-learn`` and ``npm run build``; GSM8K from ``$GSM8K_DIR``):
    nice -n 10 python python/bench/roundtrip.py [--quick] [--out results.json]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

# One BLAS thread: the numpy side's idle BLAS threads would otherwise spin on the CPUs the server needs.
for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

import numpy as np  # noqa: E402
from sklearn.feature_extraction.text import TfidfVectorizer  # noqa: E402

import rl_advantages as r  # noqa: E402
from rl_advantages._compute import Result, _batch, _estimator_fields  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
T = 0.1
GROUP = 8


def questions(path: Path) -> list[str]:
    return [json.loads(line)["question"] for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def numpy_group_mean(rewards: np.ndarray, group_ids: np.ndarray) -> np.ndarray:
    _, inverse = np.unique(group_ids, return_inverse=True)
    means = np.bincount(inverse, weights=rewards) / np.bincount(inverse)
    return rewards - means[inverse]


def numpy_tfidf_kernel(vectorizer: TfidfVectorizer, prompts: list[str], rewards: np.ndarray) -> np.ndarray:
    x = vectorizer.transform(prompts)
    s = (x @ x.T).toarray()
    w = np.exp(s / T)
    np.fill_diagonal(w, 0)
    return rewards - (w @ rewards) / w.sum(1)


def summary(times: list[float]) -> dict[str, float]:
    ms = sorted(t * 1e3 for t in times)
    return {"median_ms": statistics.median(ms), "p10_ms": ms[len(ms) // 10], "p90_ms": ms[(9 * len(ms)) // 10], "n": len(ms)}


def raw_round_trip(server: r.Server, line: bytes) -> bytes:
    proc = server._proc  # noqa: SLF001 - the bench times the pipe without the client's encoding
    assert proc is not None and proc.stdin is not None and proc.stdout is not None
    os.write(proc.stdin.fileno(), line)
    buffer = b""
    while not buffer.endswith(b"\n"):
        buffer += os.read(proc.stdout.fileno(), 1 << 20)
    return buffer


def client_cpu(kwargs: dict, estimator: str, answer: bytes) -> None:
    """What the client does besides waiting: check and encode the request, decode the answer into float64 arrays."""
    request = _estimator_fields(estimator, {})
    request.update(_batch(kwargs.get("rewards"), kwargs.get("group_ids"), kwargs.get("prompts"), None, None, None, None))
    json.dumps({"id": 1, **request}, allow_nan=False, separators=(",", ":")).encode()
    response = json.loads(answer)
    Result(np.asarray(response["advantages"], dtype=np.float64), np.asarray(response["baselines"], dtype=np.float64),
           np.asarray(response["loo_mean"], dtype=np.float64), float(response["max_self_weight"]), dict(response["diagnostics"]), response["estimator"])  # fmt: skip


def case(server: r.Server, old, vectorizer, estimator: str, b: int, test: list[str], iterations: int, rng: np.random.Generator) -> dict:
    rewards = rng.choice([0.0, 1.0], size=b)
    if estimator == "group_mean":
        group_ids = np.repeat(np.arange(b // GROUP), GROUP)
        prompts = None
        ours = lambda: r.compute_advantages(estimator, rewards, group_ids=group_ids, server=server)  # noqa: E731
        reference = lambda: numpy_group_mean(rewards, group_ids)  # noqa: E731
        request = {"estimator": estimator, "rewards": rewards.tolist(), "group_ids": group_ids.tolist()}
        legacy = lambda: old.compute(estimator, rewards.tolist(), group_ids=group_ids.tolist())  # noqa: E731
    else:
        prompts = [test[k] for k in rng.choice(len(test), size=b, replace=False)]
        ours = lambda: r.compute_advantages(estimator, rewards, prompts=prompts, server=server)  # noqa: E731
        reference = lambda: numpy_tfidf_kernel(vectorizer, prompts, rewards)  # noqa: E731
        request = {"estimator": estimator, "rewards": rewards.tolist(), "prompts": prompts}
        legacy = lambda: old.compute(estimator, rewards.tolist(), prompts=prompts)  # noqa: E731
    line = (json.dumps({"id": 0, **request}, separators=(",", ":")) + "\n").encode()
    raw = lambda: raw_round_trip(server, line)  # noqa: E731
    server.start()
    answer = raw()
    kwargs = {"rewards": rewards, "group_ids": group_ids if prompts is None else None, "prompts": prompts}
    cpu = lambda: client_cpu(kwargs, estimator, answer)  # noqa: E731
    difference = float(np.max(np.abs(ours().advantages - reference())))
    timings: dict[str, list[float]] = {"numpy": [], "rl_advantages": [], "raw_pipe": [], "client_cpu": [], "serve_client_py": []}
    calls = {"numpy": reference, "rl_advantages": ours, "raw_pipe": raw, "client_cpu": cpu, "serve_client_py": legacy}
    for _ in range(max(10, iterations // 10)):  # warm-up (JIT, caches) of every side
        for call in calls.values():
            call()
    names = list(calls)
    for _ in range(iterations):
        rng.shuffle(names)  # a new order each round: no side always runs right after another
        for name in names:
            call = calls[name]
            start = time.perf_counter()
            call()
            timings[name].append(time.perf_counter() - start)
    result = {name: summary(times) for name, times in timings.items()}
    result["added_ms"] = result["rl_advantages"]["median_ms"] - result["numpy"]["median_ms"]
    result["max_abs_difference"] = difference
    return result


def startup(corpus: Path, repeats: int) -> dict:
    with_corpus, bare, first_call = [], [], []
    for _ in range(repeats):
        for times, kwargs in ((with_corpus, {"corpus": corpus}), (bare, {})):
            start = time.perf_counter()
            server = r.Server(**kwargs).start()
            times.append(time.perf_counter() - start)
            server.close()
        code = "import time; s = time.perf_counter(); import rl_advantages as r; r.compute_advantages('group_mean', [1, 0], group_ids=[0, 0]); print(time.perf_counter() - s)"
        first_call.append(float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout))
    return {"start_with_gsm8k_corpus": summary(with_corpus), "start_without_corpus": summary(bare), "import_and_first_call": summary(first_call)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer iterations (a smoke run)")
    parser.add_argument("--out", type=Path, help="also write the figures as JSON")
    args = parser.parse_args()
    gsm8k = Path(os.environ.get("GSM8K_DIR", REPO.parent / "shared" / "data" / "gsm8k"))
    corpus, test = gsm8k / "train.jsonl", questions(gsm8k / "test.jsonl")
    vectorizer = TfidfVectorizer().fit(questions(corpus))
    sys.path.insert(0, str(REPO / "examples" / "tinker-cookbook"))
    from rl_adv_examples.serve_client import RlAdvServe  # the old client, for comparison

    rng = np.random.default_rng(0)
    figures: dict = {
        "machine": {"python": platform.python_version(), "numpy": np.__version__, "node": subprocess.run([r.find_node(), "--version"], capture_output=True, text=True).stdout.strip(),
                    "cpus": os.cpu_count(), "load_average_start": os.getloadavg()},
        "cases": {},
    }  # fmt: skip
    with r.Server(corpus=corpus) as server, RlAdvServe(corpus=str(corpus), command=["node", str(REPO / "dist" / "cli.js")]) as old:
        for estimator in ("group_mean", f"tfidf_kernel_loo_T{T}"):
            for b in (32, 512):
                iterations = (200 if b == 32 else 40) if args.quick else (2000 if b == 32 else 300)
                figures["cases"][f"{estimator} B={b}"] = case(server, old, vectorizer, estimator, b, test, iterations, rng)
    figures["startup"] = startup(corpus, 2 if args.quick else 5)
    figures["machine"]["load_average_end"] = os.getloadavg()
    print("| case | numpy | rl_advantages | added | raw pipe | client CPU | serve_client.py | max abs diff |")
    print("|---|---|---|---|---|---|---|---|")
    for name, c in figures["cases"].items():
        cells = [f"{c[k]['median_ms']:.3f} ({c[k]['p10_ms']:.3f}-{c[k]['p90_ms']:.3f})" for k in ("numpy", "rl_advantages")]
        print(f"| {name} | {cells[0]} | {cells[1]} | {c['added_ms']:.3f} | {c['raw_pipe']['median_ms']:.3f} | {c['client_cpu']['median_ms']:.3f} | {c['serve_client_py']['median_ms']:.3f} | {c['max_abs_difference']:.1e} |")
    for name, s in figures["startup"].items():
        print(f"{name}: median {s['median_ms']:.0f} ms ({s['p10_ms']:.0f}-{s['p90_ms']:.0f}, n = {s['n']})")
    print("load average start/end:", figures["machine"]["load_average_start"], figures["machine"]["load_average_end"])
    if args.out:
        args.out.write_text(json.dumps(figures, indent=2) + "\n")


if __name__ == "__main__":
    main()
