"""The spec's model fields the TRL drivers read (issue 40 item 6): ``lora``, ``dtype``, ``renderer`` against the
tokenizer, ``base_model`` as a folder or a hub name; each bad value refused naming the field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rl_advantages.study.settings import DriverError, load_settings

REPO = Path(__file__).resolve().parents[3]


def _spec(tmp_path: Path, **changes) -> str:
    spec = json.loads((REPO / "specs" / "gs1-vs-grpo.json").read_text(encoding="utf-8"))
    for key, value in changes.items():
        if value is None:
            spec.pop(key, None)
        else:
            spec[key] = value
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(spec), encoding="utf-8")
    return str(path)


def test_lora_object_and_defaults(tmp_path: Path) -> None:
    s = load_settings(_spec(tmp_path, lora_rank=None, lora={"rank": 8}))
    assert (s.lora.rank, s.lora.alpha, s.lora.dropout, s.lora.target_modules) == (8, 16.0, 0.0, "all-linear")
    assert s.dtype == "bfloat16"  # a Hugging Face model's default
    s = load_settings(_spec(tmp_path))  # the shipped spec: lora_rank 32
    assert (s.lora.rank, s.lora.alpha, s.lora.target_modules) == (32, 64.0, "all-linear")
    assert load_settings(_spec(tmp_path, lora_rank=0)).lora is None
    world = load_settings(str(REPO / "specs" / "arith-gs1-vs-grpo.json"))
    assert world.lora is None and world.dtype == "float32" and world.renderer == "plain"


@pytest.mark.parametrize(
    "changes, field",
    [
        ({"lora": {"rank": 4, "alhpa": 8}}, "lora.alhpa"),
        ({"lora": {"rank": 0}}, "lora.rank"),
        ({"lora": {"rank": 4, "dropout": 1.0}}, "lora.dropout"),
        ({"lora": {"rank": 4, "target_modules": []}}, "lora.target_modules"),
        ({"lora": {"rank": 4, "alpha": -1}}, "lora.alpha"),
        ({"lora": {"rank": 4}, "lora_rank": 4}, "lora"),
        ({"dtype": "fp8"}, "dtype"),
    ],
)
def test_bad_model_fields_are_refused_naming_them(tmp_path: Path, changes: dict, field: str) -> None:
    if "lora" in changes and "lora_rank" not in changes:
        changes = {**changes, "lora_rank": None}
    with pytest.raises(DriverError, match=f'field "{field}"'):
        load_settings(_spec(tmp_path, **changes))


def test_bf16_without_a_gpu_is_refused_when_loading(tmp_path: Path) -> None:
    import torch

    from rl_advantages.study.policy import torch_dtype

    if torch.cuda.is_available():  # pragma: no cover
        pytest.skip("a GPU is present")
    with pytest.raises(DriverError, match='field "dtype": bfloat16 needs a GPU'):
        torch_dtype(load_settings(_spec(tmp_path)))
    assert torch_dtype(load_settings(_spec(tmp_path, dtype="float32"))) == torch.float32


def test_a_chat_renderer_needs_a_chat_template(tmp_path: Path) -> None:
    from rl_advantages.study.policy import with_renderer
    from rl_advantages.study.tiny_lm import char_tokenizer

    folder = tmp_path / "tok"
    char_tokenizer().save_pretrained(folder)  # the small world's tokenizer: no chat template
    settings = load_settings(_spec(tmp_path))  # renderer qwen3_5_disable_thinking
    with pytest.raises(DriverError, match='field "renderer": .* has none'):
        with_renderer(settings, str(folder))
    assert with_renderer(load_settings(_spec(tmp_path, renderer=None)), str(folder)).renderer == "plain"


def test_base_model_folder_or_hub_name(tmp_path: Path) -> None:
    from rl_advantages.study.policy import base_model_source

    (tmp_path / "org" / "local").mkdir(parents=True)
    assert base_model_source(load_settings(_spec(tmp_path))) == "Qwen/Qwen3.5-2B"  # no such folder: a hub name
    assert base_model_source(load_settings(_spec(tmp_path, base_model="org/local"))) == str(tmp_path / "org" / "local")
    assert base_model_source(load_settings(_spec(tmp_path, base_model="./m"))) == str(tmp_path / "m")
    assert base_model_source(load_settings(_spec(tmp_path, base_model="/abs/m"))) == "/abs/m"
