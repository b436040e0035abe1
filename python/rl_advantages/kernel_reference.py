"""The float64 reference of the spec's TF-IDF kernel baseline (docs/method.md section 3), for the preflight.

The spec's code: ``TfidfVectorizer().fit(train_questions)``, ``S = X X^T``, ``W = exp(S / T)``, ``w_ii = 0``,
``b = W r / W.sum(1)``. scikit-learn and numpy when importable, else a pure-Python float64 version of the same
definitions. Standard library only (numpy and scikit-learn optional). Used by the Tinker drivers' preflight
(examples/tinker-cookbook) and the TRL study's (rl_advantages.study.preflight).
"""

from __future__ import annotations

import math
import re
from typing import Sequence

__all__ = ["kernel_reference", "kernel_reference_pure", "tfidf_vectors_pure"]

_TOKEN_RE = re.compile(r"(?u)\b\w\w+\b")



def tfidf_vectors_pure(corpus: Sequence[str], docs: Sequence[str]) -> list[dict[str, float]]:
    """scikit-learn ``TfidfVectorizer()`` defaults in pure Python: lowercase, ``(?u)\\b\\w\\w+\\b`` tokens,
    smooth idf ``ln((1 + n) / (1 + df)) + 1``, raw tf, L2-normalised rows (docs/method.md section 3)."""
    df: dict[str, int] = {}
    for doc in corpus:
        for term in set(_TOKEN_RE.findall(doc.lower())):
            df[term] = df.get(term, 0) + 1
    n = len(corpus)
    idf = {t: math.log((1 + n) / (1 + d)) + 1.0 for t, d in df.items()}
    out = []
    for doc in docs:
        counts: dict[str, int] = {}
        for term in _TOKEN_RE.findall(doc.lower()):
            if term in idf:
                counts[term] = counts.get(term, 0) + 1
        vec = {t: c * idf[t] for t, c in counts.items()}
        norm = math.sqrt(sum(v * v for v in vec.values()))
        out.append({t: v / norm for t, v in vec.items()} if norm > 0 else {})
    return out


def kernel_reference_pure(corpus: Sequence[str], prompts: Sequence[str], rewards: Sequence[float], temperature: float) -> list[float]:
    """The spec's ``gs1_adv`` baselines b in pure-Python float64: ``W = exp(S / T)``, ``w_ii = 0``."""
    vecs = tfidf_vectors_pure(corpus, prompts)
    n = len(prompts)
    b = []
    for i in range(n):
        num = den = 0.0
        for j in range(n):
            if j == i:
                continue
            a, c = vecs[i], vecs[j]
            if len(a) > len(c):
                a, c = c, a
            s = sum(v * c.get(t, 0.0) for t, v in a.items())
            w = math.exp(s / temperature)
            num += w * rewards[j]
            den += w
        b.append(num / den)
    return b


def kernel_reference(corpus: Sequence[str], prompts: Sequence[str], rewards: Sequence[float], temperature: float) -> tuple[list[float], str]:
    """The reference baselines and what computed them (scikit-learn + numpy when importable)."""
    try:
        import numpy as np
        from sklearn.feature_extraction.text import TfidfVectorizer
    except ImportError:
        return kernel_reference_pure(corpus, prompts, rewards, temperature), "pure-Python float64 (scikit-learn/numpy not importable)"
    vec = TfidfVectorizer().fit(list(corpus))
    x = vec.transform(list(prompts))
    s = (x @ x.T).toarray().astype(np.float64)
    w = np.exp(s / temperature)
    np.fill_diagonal(w, 0.0)
    r = np.asarray(rewards, dtype=np.float64)
    b = (w @ r) / w.sum(1)
    return [float(v) for v in b], "scikit-learn TfidfVectorizer + numpy float64"
