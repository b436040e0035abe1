"""Fake verl (verl-project/verl 1dda039b): the external-module hook of verl/__init__.py:49-52."""
import importlib
import os

from .protocol import DataProto  # noqa: F401  (verl/__init__.py exports DataProto before the hook runs)

modules = os.getenv("VERL_USE_EXTERNAL_MODULES", "")
if modules:
    for _name in modules.split(","):  # verl/utils/import_utils.py:81-88 import_external_libs
        importlib.import_module(_name)
