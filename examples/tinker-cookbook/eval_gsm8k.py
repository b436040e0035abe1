#!/usr/bin/env python3
r"""Greedy GSM8K test evaluation of one sampler checkpoint, graded per docs/method.md section 7.

Prompt: the cookbook's ``MathEnv.standard_fewshot_prefix()`` then the user turn
question + " Write your answer in \boxed{} format.", rendered by the spec's renderer
(qwen3_5_disable_thinking); decoding temperature 0, max_tokens 512 and, by default, no stop sequence
(``stop: []``, the record's evaluator, so generation ends at end-of-sequence or max_tokens; ``--stop renderer``
stops at the renderer's end of turn instead). ``rl-adv study --backend tinker`` uses the default.
The response text is the renderer's parsed message; grading is ``numeric_exact`` from
``rl_adv_examples.grading`` (the last ``\boxed{}`` equals the reference as an exact rational).

Writes JSONL, one line per test item in order: ``{"item_id": "gsm8k_test_<index>", "correct": true,
"answer": "<boxed content or null>", "response": "<text>"}`` for ``rl-adv decide``.

Example::

    python eval_gsm8k.py --spec ../../specs/gs1-vs-grpo.json \
        --checkpoint tinker://.../sampler_weights/final --out /tmp/rx-gs1/eval_gs1.jsonl

``--checkpoint base`` evaluates the base model; a folder means the last sampler checkpoint that
``run_arm.py --log-path FOLDER`` saved. Exit codes: 0 done; 1 sampling failed; 2 bad input or
a missing prerequisite.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from typing import Any, Sequence

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from rl_adv_examples.common import (  # noqa: E402
    DriverError,
    final_sampler_path,
    load_spec,
    main_wrapper,
    require_modules,
    require_tinker_api_key,
    write_jsonl,
)
from rl_adv_examples.grading import GradingError, Gsm8kItem, grade_gsm8k_response, load_gsm8k, resolve_gsm8k_dir  # noqa: E402

PROG = "eval_gsm8k.py"

#: ``MathEnv.question_suffix()`` at the pinned cookbook; the script uses the cookbook's own when importable.
QUESTION_SUFFIX = " Write your answer in \\boxed{} format."


def eval_row(item: Gsm8kItem, response: str) -> dict[str, Any]:
    """The output line of one item: graded with ``numeric_exact`` against the item's reference answer."""
    grade = grade_gsm8k_response(response, item.reference_answer)
    return {"item_id": f"gsm8k_test_{item.index}", "correct": bool(grade.correct), "answer": grade.extracted, "response": response}


def select_items(items: Sequence[Gsm8kItem], limit: int | None) -> list[Gsm8kItem]:
    """The first ``limit`` test items (all when None): the pilot's 100-item eval is items 0..99."""
    if limit is None:
        return list(items)
    if limit < 1:
        raise DriverError(f"--limit must be a positive integer, got {limit}")
    return list(items[:limit])


def resolve_checkpoint(value: str) -> str:
    """``base``, a ``tinker://`` path, or a run folder of ``run_arm.py`` (its last sampler checkpoint)."""
    if value == "base" or "://" in value:
        return value
    if os.path.isdir(value):
        path = final_sampler_path(value)
        if path is None:
            raise DriverError(f"--checkpoint {value}: no sampler_path in {os.path.join(value, 'checkpoints.jsonl')}")
        return path
    raise DriverError(f"--checkpoint must be 'base', a tinker:// sampler path or a run folder, got {value!r}")


def user_turn(question: str, suffix: str = QUESTION_SUFFIX) -> dict[str, str]:
    return {"role": "user", "content": question + suffix}


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0])
    p.add_argument("--checkpoint", required=True, help="tinker:// sampler path, a run_arm.py --log-path folder (its final checkpoint), or 'base'")
    p.add_argument("--out", required=True, help="the JSONL file to write")
    p.add_argument("--spec", required=True, help="the study spec JSON (model; renderer)")
    p.add_argument("--limit", type=int, default=None, help="evaluate the first N test items only (pilot: 100)")
    p.add_argument("--data-dir", default=None, help="GSM8K folder with test.jsonl (default: $GSM8K_DIR, else the rl-adv cache filled by rl-adv data gsm8k)")
    p.add_argument("--max-tokens", type=int, default=512)
    p.add_argument("--renderer", default=None, help="renderer name (default: the spec's, qwen3_5_disable_thinking)")
    p.add_argument("--stop", choices=("none", "renderer"), default="none", help="none (default, the record's evaluator: stop: [], generation ends at EOS or max_tokens) or the renderer's end-of-turn stop sequences")
    p.add_argument("--concurrency", type=int, default=64, help="requests in flight")
    p.add_argument("--base-url", default=os.environ.get("TINKER_BASE_URL"))
    return p


async def generate(args: argparse.Namespace, spec: Any, items: Sequence[Gsm8kItem]) -> list[str]:
    tinker, renderers, math_env, tokenizer_utils = require_modules(
        "tinker", "tinker_cookbook.renderers", "tinker_cookbook.recipes.math_rl.math_env", "tinker_cookbook.tokenizer_utils"
    )
    renderer = renderers.get_renderer(args.renderer or spec.renderer, tokenizer=tokenizer_utils.get_tokenizer(spec.base_model))
    service = tinker.ServiceClient(base_url=args.base_url)
    # The async constructor: the sync one logs a @sync_only warning with a stack trace inside an event loop.
    if args.checkpoint == "base":
        client = await service.create_sampling_client_async(base_model=spec.base_model)
    else:
        client = await service.create_sampling_client_async(model_path=args.checkpoint)
    prefix = math_env.MathEnv.standard_fewshot_prefix()
    suffix = math_env.MathEnv.question_suffix()
    stop = renderer.get_stop_sequences() if args.stop == "renderer" else []
    params = tinker.SamplingParams(max_tokens=args.max_tokens, temperature=0.0, stop=stop)
    gate = asyncio.Semaphore(args.concurrency)

    async def one(item: Gsm8kItem) -> str:
        prompt = renderer.build_generation_prompt(prefix + [user_turn(item.question, suffix)])
        async with gate:
            result = await client.sample_async(prompt=prompt, num_samples=1, sampling_params=params)
        message, _termination = renderer.parse_response(result.sequences[0].tokens)
        return renderers.get_text_content(message)

    return list(await asyncio.gather(*(one(item) for item in items)))


def run(argv: list[str] | None) -> int:
    args = build_parser().parse_args(argv)
    spec = load_spec(args.spec)
    args.checkpoint = resolve_checkpoint(args.checkpoint)
    try:
        items = select_items(load_gsm8k(resolve_gsm8k_dir(args.data_dir), "test"), args.limit)
    except GradingError as error:
        raise DriverError(str(error)) from None
    require_tinker_api_key()
    started = time.monotonic()
    responses = asyncio.run(generate(args, spec, items))
    rows = [eval_row(item, response) for item, response in zip(items, responses)]
    write_jsonl(args.out, rows)
    accuracy = sum(1 for r in rows if r["correct"]) / len(rows)
    print(f"{PROG}: accuracy {accuracy:.4f} on {len(rows)} items in {time.monotonic() - started:.0f} s -> {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main_wrapper(PROG, run))
