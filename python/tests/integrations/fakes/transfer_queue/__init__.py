"""Fake TransferQueue (the ``transfer_queue`` package verl's v1 trainer imports as ``tq``): a key-value store of
rows by ``partition_id``, the two calls v1/trainer_base.py makes (``tq.kv_batch_get(keys=..., partition_id=...,
select_fields=[...])`` and ``tq.kv_batch_put(keys=..., partition_id=..., fields=...)`` in ``_compute_advantage``,
trainer_base.py:1638 at verl 1dda039b) and ``KVBatchMeta`` (the ``batch`` every v1 stage passes: ``keys``, ``partition_id``, ``tags``; padding_utils.py:123 tags a padding row
``is_padding``).

Tensor fields are stored per row and come back stacked (one padded tensor per field: the fake keeps every row the
same length, so ``to_padded_tensor`` is the stack); non-tensor fields (``uid``, ``raw_prompt``) come back as a
``NonTensorStack``-like object with ``tolist()``. A field no row holds raises ``KeyError``."""
import torch

_store = {}


class KVBatchMeta:
    def __init__(self, keys, partition_id, extra_info=None, tags=None):
        self.keys = list(keys)
        self.partition_id = partition_id
        self.extra_info = extra_info or {}
        self.tags = list(tags) if tags is not None else [{} for _ in self.keys]  # per-row tags (is_padding, seq_len, ...)

    def __len__(self):
        return len(self.keys)


class NonTensorStack:
    def __init__(self, values):
        self._values = list(values)

    def tolist(self):
        return list(self._values)


class Fields(dict):
    """What ``kv_batch_get`` returns (a TensorDict in verl): fields by name."""

    def to_padded_tensor(self):
        return dict(self)

    def select(self, *names):
        return Fields({n: self[n] for n in names})


def clear():
    _store.clear()


def kv_batch_put(keys, partition_id, fields):
    rows = _store.setdefault(partition_id, {})
    for name, value in dict(fields).items():
        values = value.tolist() if isinstance(value, NonTensorStack) else value
        for i, key in enumerate(keys):
            rows.setdefault(key, {})[name] = values[i]
    return KVBatchMeta(keys, partition_id)


def kv_batch_get(keys, partition_id, select_fields):
    rows = [_store[partition_id][key] for key in keys]
    out = Fields()
    for name in select_fields:
        if not all(name in row for row in rows):
            raise KeyError(f"field {name!r} is not in partition {partition_id!r}")
        values = [row[name] for row in rows]
        out[name] = torch.stack(values) if isinstance(values[0], torch.Tensor) else NonTensorStack(values)
    return out
