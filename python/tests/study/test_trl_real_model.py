"""The TRL backend on a real Hugging Face model (issue 40 item 6): ``rl-adv study --backend trl`` with a spec whose
``base_model`` is a hub name, loaded from the Hugging Face cache with ``HF_HUB_OFFLINE=1`` exactly as a downloaded
model would be, with LoRA from the spec's ``lora`` (peft), the model's own tokenizer and chat template, on a CPU in
float32 (real_model_support.py builds the model: a 2-layer Qwen2 and a character tokenizer with a chat template,
``save_pretrained``). The same model as a local folder (``base_model`` a path) through the drivers, and the probe
naming what a real model's run lacks: a GPU for bfloat16, the weights under ``HF_HUB_OFFLINE``.

Reduced study: the arith world's tasks (specs/arith-gs1-vs-grpo.json without its model_config and pre-training), one
seed, 2 steps per arm, 20 eval items. The starting policy is barely taught (real_model_support.teach: it answers in
the graded format, often wrongly, so rewards vary), and the activation gate keeps only the checks such a policy can
pass (the executed configuration and the self-weight): this test is about the model, not about learning. Needs ``npm run build`` (dist/cli.js).
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from real_model_support import HUB_NAME, hub_cache, save_model, teach  # noqa: E402

REPO = Path(__file__).resolve().parents[3]
CLI = REPO / "dist" / "cli.js"
SPEC = REPO / "specs" / "arith-gs1-vs-grpo.json"
LORA = {"rank": 4, "alpha": 8, "dropout": 0.0, "target_modules": ["q_proj", "v_proj"]}
GATE_KEPT = ("self_weight_max", "executed_rollouts_per_step", "executed_group_size_gs1", "executed_group_size_grpo")

_MISSING = [m for m in ("torch", "trl", "transformers", "peft", "datasets", "tokenizers") if importlib.util.find_spec(m) is None]
if _MISSING and not (os.environ.get("CI") or os.environ.get("RL_ADV_REQUIRE_TORCH")):
    pytest.skip(f"needs {', '.join(_MISSING)} (pip install -r python/requirements-test.txt)", allow_module_level=True)


def real_spec(base_model: str, **changes) -> dict:
    spec = json.loads(SPEC.read_text(encoding="utf-8"))
    for key in ("model_config", "pretrain", "renderer", "lora_rank"):
        spec.pop(key)
    spec.update(base_model=base_model, lora=LORA, dtype="float32", title="the arith world's tasks on a small Hugging Face model")
    spec["decision_rule"]["seeds"] = [0]
    for key in ("curve_items", "curve_every"):  # no learning curve: fewer evals
        spec["eval"].pop(key, None)
    spec["activation_gate"]["checks"] = [c for c in spec["activation_gate"]["checks"] if c["metric"] in GATE_KEPT]
    spec.update(changes)
    return spec


def hf_env(cache: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HF_")}
    return {**env, "HF_HUB_CACHE": str(cache), "HF_HUB_OFFLINE": "1"}


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("hf")
    folder = save_model(root / "tiny-qwen2-chat")
    teach(folder)
    hub_cache(folder, root / "hub")
    return {"folder": folder, "cache": root / "hub", "root": root}


@pytest.fixture(scope="module")
def run(model: dict[str, Path]) -> Path:
    assert CLI.exists(), f"{CLI} is missing: run npm run build first"
    out = model["root"] / "run"
    spec = model["root"] / "hub.spec.json"
    spec.write_text(json.dumps(real_spec(HUB_NAME), indent=2), encoding="utf-8")
    args = ["node", str(CLI), "study", "--backend", "trl", "--spec", str(spec), "--out", str(out), "--python", sys.executable]
    args += ["--steps", "2", "--eval-limit", "20", "--calibration-batches", "200"]
    # about 22 min of wall time on the shared 2-core machine at load average 25 (the timeout is for a hang, not a bound)
    r = subprocess.run(args, capture_output=True, text=True, timeout=3600, env=hf_env(model["cache"]))
    assert r.returncode == 0, f"exit {r.returncode}\n{r.stdout[-2000:]}\n{r.stderr[-4000:]}"
    return out


def test_a_hub_model_from_the_cache_runs_the_study_with_lora(run: Path) -> None:
    assert json.loads((run / "preflight.json").read_text())["passed"] is True
    summary = json.loads((run / "summary.json").read_text())
    assert summary["gate"]["passed"] is True and summary["exit_code"] == 0
    for phase in ("pilot", "arms"):
        for arm in ("grpo_g8", "gs1_tfidf_g1"):
            config = json.loads((run / phase / arm / "adapter" / "adapter_config.json").read_text())
            assert config["r"] == 4 and config["lora_alpha"] == 8 and sorted(config["target_modules"]) == ["q_proj", "v_proj"]
            assert config["base_model_name_or_path"] == HUB_NAME
    for arm in ("grpo_g8", "gs1_tfidf_g1"):
        rows = [json.loads(line) for line in (run / "arms" / arm / "advantages.jsonl").read_text().splitlines()]
        assert [r["step"] for r in rows] == [0, 1] and all(r["rollouts"] == 32 for r in rows)
    rewards = {x for r in json.loads("[" + ",".join((run / "arms" / "grpo_g8" / "advantages.jsonl").read_text().splitlines()) + "]") for x in r["rewards"]}
    assert len(rewards) > 1  # the taught policy's rewards vary
    for name in ("init", "grpo_g8", "gs1_tfidf_g1"):
        assert len((run / "eval" / f"{name}.jsonl").read_text().splitlines()) == 20
    assert (run / "decision.json").exists()


def probe(spec: dict, where: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    path = where / "probe.spec.json"
    path.write_text(json.dumps(spec), encoding="utf-8")
    args = [sys.executable, "-m", "rl_advantages.study", "probe", "--spec", str(path), "--run-dir", str(where), "--data-dir", str(where)]
    return subprocess.run(args, capture_output=True, text=True, timeout=300, env=env)


def test_the_probe_names_what_a_real_model_lacks(model: dict[str, Path], tmp_path: Path) -> None:
    empty = tmp_path / "empty-cache"
    empty.mkdir()
    r = probe(real_spec(HUB_NAME), tmp_path, hf_env(empty))  # offline, not in this cache
    missing = json.loads(r.stdout.strip().splitlines()[-1])["missing"]
    assert r.returncode == 2 and len(missing) == 1, r.stdout + r.stderr
    assert f"the weights of {HUB_NAME} in the Hugging Face cache ({empty}; HF_HUB_OFFLINE=1 forbids downloading them)" in missing[0]
    r = probe(real_spec(HUB_NAME, dtype="bfloat16"), tmp_path, hf_env(model["cache"]))  # cached; bfloat16 on a CPU
    missing = json.loads(r.stdout.strip().splitlines()[-1])["missing"]
    import torch

    if torch.cuda.is_available():  # pragma: no cover - this machine has none
        pytest.skip("a GPU is present: the bfloat16 refusal cannot be shown")
    assert r.returncode == 2 and missing == ['a GPU for "dtype": "bfloat16" (torch.cuda.is_available() is False): set "dtype": "float32" to run on the CPU']
    spec = real_spec(HUB_NAME)
    del spec["dtype"]  # a Hugging Face model defaults to bfloat16
    missing = json.loads(probe(spec, tmp_path, hf_env(model["cache"])).stdout.strip().splitlines()[-1])["missing"]
    assert missing and "(the default for a Hugging Face model)" in missing[0]
    assert probe(real_spec(HUB_NAME), tmp_path, hf_env(model["cache"])).returncode == 0  # all there
    r = probe(real_spec(str(tmp_path / "no-such-model")), tmp_path, hf_env(model["cache"]))
    assert r.returncode == 2 and "no config.json there" in r.stdout


def test_a_local_folder_is_loaded_by_path_with_its_chat_template(model: dict[str, Path]) -> None:
    # base_model "./tiny-qwen2-chat" beside the spec: the drivers' greedy eval of the starting policy reads the folder
    spec = model["root"] / "folder.spec.json"
    spec.write_text(json.dumps(real_spec("./tiny-qwen2-chat")), encoding="utf-8")
    items = model["root"] / "items.jsonl"
    items.write_text("".join(json.dumps({"task_id": f"t{i}", "question": f"plus 1x1: {i} + 1 =", "reference": str(i + 1)}) + "\n" for i in range(4)))
    out = model["root"] / "eval_init.jsonl"
    args = [sys.executable, "-m", "rl_advantages.study", "eval", "--spec", str(spec), "--run-dir", str(model["root"]), "--data-dir", str(model["root"])]
    r = subprocess.run(args + ["--checkpoint", "init", "--items", str(items), "--out", str(out)], capture_output=True, text=True, timeout=300, env=hf_env(model["root"] / "nothing"))
    assert r.returncode == 0, r.stderr[-3000:]
    assert [json.loads(line)["item_id"] for line in out.read_text().splitlines()] == ["t0", "t1", "t2", "t3"]

    from rl_advantages.study.policy import _prompt_texts, load_tokenizer, policy_source, with_renderer
    from rl_advantages.study.settings import load_settings

    settings = load_settings(str(spec))
    source = policy_source(settings, str(model["root"]), None)
    assert source == str(model["folder"]) and settings.renderer == "auto" and settings.lora.target_modules == ["q_proj", "v_proj"]
    resolved = with_renderer(settings, source)
    text = _prompt_texts(resolved, load_tokenizer(source), ["plus 1x1: 2 + 3 ="])[0]
    assert text.startswith("<|im_start|>user\nplus 1x1: 2 + 3 = Write your final answer as \\boxed{N}.<|im_end|>") and text.endswith("<|im_start|>assistant\n")
