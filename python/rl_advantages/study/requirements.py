"""What a spec needs from the machine before the TRL study may start, checked all at once so a run stops before
any work with one message naming everything missing: the Python packages, and for a hub model (no
``model_config``, no ``--model``) a GPU, the weights (in the Hugging Face cache) or the network to fetch them.
"""

from __future__ import annotations

import importlib.util
import os
import socket

from .settings import Settings

#: Packages the drivers import (their import names).
PACKAGES = ("torch", "transformers", "trl", "peft", "datasets", "numpy")


def _network(host: str = "huggingface.co", port: int = 443, timeout: float = 3.0) -> bool:
    if os.environ.get("HF_HUB_OFFLINE") == "1":
        return False
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False


def _cached(repo: str) -> bool:
    try:
        from huggingface_hub import try_to_load_from_cache
    except ImportError:
        return False
    found = try_to_load_from_cache(repo, "config.json")
    return isinstance(found, str)


def missing_requirements(settings: Settings, model: str | None) -> list[str]:
    """Everything the run would lack, as phrases; empty when it can run."""
    missing = [f"the Python package {name} (pip install -r python/requirements-trl.txt)" for name in PACKAGES if importlib.util.find_spec(name) is None]
    if missing:
        return missing
    if model:
        if not os.path.isfile(os.path.join(model, "config.json")):
            missing.append(f"model weights at --model {model} (no config.json there)")
        return missing
    if settings.world:
        return missing
    import torch

    if not torch.cuda.is_available():
        missing.append(f"a GPU (torch.cuda.is_available() is False; {settings.base_model} is not trained on a CPU)")
    if not _cached(settings.base_model):
        if _network():
            pass
        else:
            missing.append(f"the weights of {settings.base_model} (not in the Hugging Face cache) and the network to download them (huggingface.co:443 unreachable)")
    return missing
