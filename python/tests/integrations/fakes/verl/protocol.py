"""Fake verl.protocol.DataProto: ``batch`` (tensors by name) and ``non_tensor_batch`` (numpy arrays by name)."""


class DataProto:
    def __init__(self, batch, non_tensor_batch=None, meta_info=None):
        self.batch = batch
        self.non_tensor_batch = non_tensor_batch or {}
        self.meta_info = meta_info or {}
