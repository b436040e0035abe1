"""The TRL study drivers' parts that need no training: the character tokenizer, the spec's settings, the
preflight's comparisons and errors block, the requirements probe, the prompt and reward."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("transformers")
pytest.importorskip("tokenizers")

from rl_advantages.study.preflight import compare, errors_block, spec_tolerances  # noqa: E402
from rl_advantages.study.requirements import missing_requirements  # noqa: E402
from rl_advantages.study.settings import DriverError, load_settings, render, reward, write_json, write_jsonl  # noqa: E402
from rl_advantages.study.tiny_lm import CHARACTERS, char_tokenizer  # noqa: E402

REPO = Path(__file__).resolve().parents[3]
ARITH = REPO / "specs" / "arith-gs1-vs-grpo.json"
GSM8K = REPO / "specs" / "gs1-vs-grpo.json"


def test_char_tokenizer_round_trips_every_prompt_character() -> None:
    tok = char_tokenizer()
    text = "times 2x2: 4 7 * 3 8 =\\boxed{-1786}"
    ids = tok(text, add_special_tokens=False)["input_ids"]
    assert len(ids) == len(text)
    assert tok.decode(ids) == text
    assert len(tok) == 3 + len(CHARACTERS)
    assert (tok.pad_token_id, tok.eos_token_id) == (0, 1)
    assert tok(["ab", "abcd"], padding=True)["attention_mask"][0] == [0, 0, 1, 1]


def test_settings_of_both_specs() -> None:
    world = load_settings(str(ARITH))
    assert world.world and world.renderer == "plain" and world.max_tokens == 14
    assert [(a.name, a.group_size, a.groups_per_batch) for a in world.arms] == [("grpo_g8", 8, 4), ("gs1_tfidf_g1", 1, 32)]
    assert world.arms[0].lr == world.arms[1].lr and world.arms[0].seed == world.arms[1].seed
    hub = load_settings(str(GSM8K))
    assert not hub.world and hub.base_model == "Qwen/Qwen3.5-2B"
    assert render(hub, "Q?") == [{"role": "user", "content": "Q? Write your final answer as \\boxed{N}."}]
    assert render(world, "plus 1x1: 3 + 4 =") == "plus 1x1: 3 + 4 ="
    with pytest.raises(DriverError, match="--arm 'x' is not an arm"):
        world.arm("x")
    assert world.save_every == 10 and hub.save_every == 10


def test_the_kernel_arm_of_a_three_arm_spec_is_the_kernel_one_whatever_the_order(tmp_path: Path) -> None:
    spec = json.loads((REPO / "specs" / "arith-ablation.json").read_text(encoding="utf-8"))
    assert load_settings(str(REPO / "specs" / "arith-ablation.json")).kernel_arm().name == "gs1_tfidf_g1"
    spec["arms"] = [spec["arms"][0], spec["arms"][2], spec["arms"][1]]
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(spec), encoding="utf-8")
    settings = load_settings(str(path))
    assert [a.name for a in settings.arms] == ["grpo_g8", "batchmean_g1", "gs1_tfidf_g1"]
    assert settings.kernel_arm().name == "gs1_tfidf_g1" and settings.grpo_arm().name == "grpo_g8"


def test_save_every_comes_from_the_spec_and_is_checked(tmp_path: Path) -> None:
    spec = json.loads(ARITH.read_text())
    for value, ok in ((3, True), (0, False), (2.5, False), (True, False), ("4", False)):
        spec["trl"]["save_every"] = value
        path = tmp_path / "spec.json"
        path.write_text(json.dumps(spec))
        if ok:
            assert load_settings(str(path)).save_every == value
        else:
            with pytest.raises(DriverError, match=r'field "trl.save_every": must be an integer >= 1'):
                load_settings(str(path))


def test_reward_is_the_cookbook_formula_by_our_grader() -> None:
    assert reward("\\boxed{7}", "7", True) == 1.0
    assert reward("\\boxed{7}", "7", False) == 0.9
    assert reward("\\boxed{8}", "7", True) == 0.0
    assert reward("7", "7", True) == -0.1


def test_compare_and_errors_block() -> None:
    ok = compare([1.0, 2.0], [1.0, 2.0 + 1e-7], 1e-6, 1e-5, 0.9999)
    assert ok["passed"] and ok["max_abs_error"] == pytest.approx(1e-7) and ok["cosine_similarity"] == pytest.approx(1.0)
    bad = compare([1.0, 0.0], [0.0, 1.0], 1e-6, 1e-5, 0.9999)
    assert not bad["passed"] and bad["cosine_similarity"] == 0.0
    assert compare([0.0], [0.0], 0, 0, 1.0)["cosine_similarity"] == 1.0
    block = errors_block({"a": ok, "self": {"passed": True, "max_self_weight": 0.0}})
    assert list(block) == ["a"] and set(block["a"]) == {"max_abs_error", "reference_max_abs", "relative_l2_error", "cosine_similarity"}
    tol = spec_tolerances(json.loads(GSM8K.read_text()))
    assert tol["baseline_gradient"]["min_cosine"] == 0.9999
    with pytest.raises(DriverError, match="correctness_preflight"):
        spec_tolerances({})


def test_probe_needs_nothing_for_the_world_and_names_a_missing_model_folder(tmp_path: Path) -> None:
    pytest.importorskip("trl")
    pytest.importorskip("peft")
    assert missing_requirements(load_settings(str(ARITH)), None) == []
    missing = missing_requirements(load_settings(str(GSM8K)), str(tmp_path))
    gpu = [] if torch_cuda() else ['a GPU for "dtype": "bfloat16" (the default for a Hugging Face model) (torch.cuda.is_available() is False): set "dtype": "float32" to run on the CPU']
    assert missing == gpu + [f"model weights at --model {tmp_path} (no config.json there)"]


def torch_cuda() -> bool:
    import torch

    return bool(torch.cuda.is_available())


def test_lora_rank_zero_is_full_fine_tuning_and_is_checked(tmp_path: Path) -> None:
    from rl_advantages.study.arms import lora_config

    spec = json.loads(ARITH.read_text())
    for value, ok in ((0, True), (8, True), (-1, False), (1.5, False), (False, False), ("8", False)):
        spec["lora_rank"] = value
        path = tmp_path / "spec.json"
        path.write_text(json.dumps(spec))
        if ok:
            settings = load_settings(str(path))
            assert settings.lora_rank == value
            assert (lora_config(settings) is None) == (value == 0)
        else:
            with pytest.raises(DriverError, match=r'field "lora_rank": must be an integer >= 0'):
                load_settings(str(path))


def test_driver_writes_are_whole_and_leave_no_temporary_even_when_the_disk_fails(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import errno
    import os

    target = tmp_path / "result.json"
    write_json(str(target), {"a": 1})
    write_jsonl(str(tmp_path / "rows.jsonl"), [{"b": 2}, {"c": 3}])
    assert json.loads(target.read_text()) == {"a": 1}
    assert (tmp_path / "rows.jsonl").read_text() == '{"b": 2}\n{"c": 3}\n'
    assert sorted(p.name for p in tmp_path.iterdir()) == ["result.json", "rows.jsonl"]

    def full(_fd: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(OSError):
        write_json(str(target), {"a": 2})
    assert json.loads(target.read_text()) == {"a": 1}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["result.json", "rows.jsonl"]


@pytest.mark.parametrize("value", ["0", "-1e-4", "nan", "inf"])
def test_train_refuses_a_learning_rate_that_is_not_finite_and_positive(tmp_path: Path, value: str, capsys: pytest.CaptureFixture[str]) -> None:
    from rl_advantages.study.__main__ import main

    args = ["train", "--spec", str(ARITH), "--run-dir", str(tmp_path), "--data-dir", str(tmp_path), "--arm", "grpo_g8", "--steps", "1"]
    args += ["--tasks", str(tmp_path / "tasks.jsonl"), "--out-dir", str(tmp_path / "out"), f"--lr={value}"]
    assert main(args) == 2
    assert f"--lr must be a finite number > 0, got {float(value)}" in capsys.readouterr().err
    assert not (tmp_path / "trl").exists()
