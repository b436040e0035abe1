"""Fake slime/utils/processing_utils.py at 624b824a: ``load_tokenizer(name_or_path, **kwargs)`` (:18); the tests set
``TOKENIZERS[name_or_path]`` to a tokenizer built in code."""
TOKENIZERS = {}


def load_tokenizer(name_or_path, **kwargs):
    return TOKENIZERS[name_or_path]
