"""Fake slime/utils/data.py at 624b824a: ``read_file`` (:24-75, JSON lines here) and ``_build_messages``
(:142-212, without multimodal keys: a string prompt as is, or as a one-message user chat when ``as_conversation``),
which ``Dataset.__init__`` (:232-258) templates with ``tokenizer.apply_chat_template`` under ``--apply-chat-template``."""
import json


def read_file(path):
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                yield json.loads(line)


def _build_messages(data, prompt_key, as_conversation, multimodal_keys=None):
    prompt = data.get(prompt_key)
    if isinstance(prompt, str):
        if not as_conversation:
            return prompt
        prompt = [{"role": "user", "content": prompt}]
    return prompt
