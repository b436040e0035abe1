"""The numpy/scikit-learn reference of one benchmark case, in its own process.

The kernel is the study spec's own code, unchanged:
    X = vec.transform(prompts); S = (X @ X.T).toarray(); W = np.exp(S / T)
    np.fill_diagonal(W, 0); b = (W @ rewards) / W.sum(1)
Usage: python3 bench/reference.py <inputs.json> <case> <out.json>
"""
import json
import resource
import statistics
import sys
import time

import numpy as np
from sklearn.feature_extraction.text import TfidfVectorizer


def rss_mb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize() / 1e6


def kernel(vec, prompts, rewards, T):
    X = vec.transform(prompts)
    S = (X @ X.T).toarray()
    W = np.exp(S / T)
    np.fill_diagonal(W, 0)
    b = (W @ rewards) / W.sum(1)
    return b


def main():
    inputs_path, case_name, out_path = sys.argv[1:4]
    with open(inputs_path) as f:
        inputs = json.load(f)
    spec = next(c for c in inputs["cases"] if c["name"] == case_name)
    T = inputs["temperature"]
    vec = TfidfVectorizer().fit(inputs["train"])
    first = None
    if spec["kind"] == "fit":
        def task():
            TfidfVectorizer().fit(inputs["train"])
    elif spec["kind"] == "kernel":
        prompts, rewards = spec["prompts"], np.array(spec["rewards"])

        def task():
            return kernel(vec, prompts, rewards, T)
        first = task
    elif spec["kind"] == "rotating":
        batches, rewards = spec["batches"], np.array(spec["rewards"])
        state = {"next": 0}

        def task():
            batch = batches[state["next"]]
            state["next"] = (state["next"] + 1) % len(batches)
            return kernel(vec, batch, rewards, T)

        def first():
            return kernel(vec, batches[0], rewards, T)
    else:
        raise SystemExit(f"case {case_name}: kind {spec['kind']} has no reference")

    baselines = first().tolist() if first else None
    rss_setup = rss_mb()
    for _ in range(min(spec.get("warmup", 5), 5)):
        task()
    samples = []
    budget = spec.get("time", 1000) / 1000
    cpu_start = time.process_time()  # every thread of the process (OpenBLAS's included)
    start = time.perf_counter()
    while len(samples) < spec.get("iterations", 10) or time.perf_counter() - start < budget:
        t0 = time.perf_counter()
        task()
        samples.append((time.perf_counter() - t0) * 1000)
    cpu_per_wall = (time.process_time() - cpu_start) / (time.perf_counter() - start)
    with open(out_path, "w") as f:
        json.dump({
            "medianMs": statistics.median(samples),
            "meanMs": statistics.fmean(samples),
            "samples": len(samples),
            "rssSetupMb": rss_setup,
            "maxRssMb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e3,
            "baselines": baselines,
            "cpuPerWall": cpu_per_wall,
        }, f)


if __name__ == "__main__":
    main()
