"""Fake verl.protocol.DataProto: ``batch`` (tensors by name) and ``non_tensor_batch`` (numpy arrays by name)."""


class DataProto:
    def __init__(self, batch, non_tensor_batch=None, meta_info=None):
        self.batch = batch
        self.non_tensor_batch = non_tensor_batch or {}
        self.meta_info = meta_info or {}

    def __len__(self):
        return len(next(iter(self.batch.values())))

    def select_idxs(self, idxs):
        return DataProto({k: v[idxs] for k, v in self.batch.items()}, {k: v[idxs] for k, v in self.non_tensor_batch.items()}, dict(self.meta_info))
