"""What a spec needs from the machine before the TRL study may start, checked all at once so a run stops before
any work with one message naming everything missing: the Python packages; for a model that is not the small world's
(``base_model`` a local folder or a hub name, or ``--model``) its files (``config.json`` and the weights) in the folder
or in the Hugging Face cache, or the network to fetch them (none under ``HF_HUB_OFFLINE=1``); and a GPU for a
``dtype`` of bfloat16 or float16 (with bfloat16 support for the former).
"""

from __future__ import annotations

import importlib.util
import os
import socket

from .settings import Settings

#: Packages the drivers import (their import names).
PACKAGES = ("torch", "transformers", "trl", "peft", "datasets", "numpy")

#: A model's weights, as ``save_pretrained`` writes them (one file, or an index of shards).
WEIGHTS = ("model.safetensors", "model.safetensors.index.json", "pytorch_model.bin", "pytorch_model.bin.index.json")


def _offline() -> bool:
    return os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in ("1", "true", "yes", "on")


def _network(host: str = "huggingface.co", port: int = 443, timeout: float = 3.0) -> bool:
    if _offline():
        return False
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False


def _cached(repo: str) -> bool:
    """The hub model's config and weights are in the Hugging Face cache (its current ``refs/main`` snapshot)."""
    try:
        from huggingface_hub import try_to_load_from_cache
    except ImportError:
        return False
    if not isinstance(try_to_load_from_cache(repo, "config.json"), str):
        return False
    return any(isinstance(try_to_load_from_cache(repo, name), str) for name in WEIGHTS)


def _cache_dir() -> str:
    try:
        from huggingface_hub import constants

        return str(constants.HF_HUB_CACHE)
    except ImportError:  # pragma: no cover - huggingface_hub comes with transformers
        return "the Hugging Face cache"


def _folder_missing(folder: str, what: str) -> list[str]:
    if not os.path.isfile(os.path.join(folder, "config.json")):
        return [f"model weights at {what} {folder} (no config.json there)"]
    if not any(os.path.isfile(os.path.join(folder, name)) for name in WEIGHTS):
        return [f"the weights of the model at {what} {folder} (none of {', '.join(WEIGHTS)} there)"]
    return []


def _hub_missing(name: str) -> list[str]:
    if _cached(name):
        return []
    if _offline():
        return [
            f"the weights of {name} in the Hugging Face cache ({_cache_dir()}; HF_HUB_OFFLINE=1 forbids downloading them): "
            f"download them first (huggingface-cli download {name}), point HF_HOME or HF_HUB_CACHE at a cache that holds "
            "them, or unset HF_HUB_OFFLINE"
        ]
    if _network():
        return []
    return [f"the weights of {name} (not in the Hugging Face cache) and the network to download them (huggingface.co:443 unreachable)"]


def _gpu_missing(settings: Settings) -> list[str]:
    if settings.dtype == "float32":
        return []
    import torch

    if not torch.cuda.is_available():
        default = "" if "dtype" in settings.raw else " (the default for a Hugging Face model)"
        return [f'a GPU for "dtype": "{settings.dtype}"{default} (torch.cuda.is_available() is False): set "dtype": "float32" to run on the CPU']
    if settings.dtype == "bfloat16" and not torch.cuda.is_bf16_supported():
        return [f'a GPU with bfloat16 for "dtype": "bfloat16" ({torch.cuda.get_device_name()} has none): set "dtype": "float16" or "float32"']
    return []


def missing_requirements(settings: Settings, model: str | None) -> list[str]:
    """Everything the run would lack, as phrases; empty when it can run."""
    missing = [f"the Python package {name} (pip install -r python/requirements-trl.txt)" for name in PACKAGES if importlib.util.find_spec(name) is None]
    if missing:
        return missing
    missing += _gpu_missing(settings)
    if model:
        missing += _folder_missing(model, "--model")
    elif not settings.world and not settings.base_model:
        missing.append('a model: the spec has no "base_model" (a hub name or a save_pretrained folder) and no model_config')
    elif not settings.world:
        from .policy import base_model_source, is_local

        source = base_model_source(settings)
        missing += _folder_missing(source, "base_model") if is_local(source) else _hub_missing(source)
    return missing
