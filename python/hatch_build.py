"""Wheel build hook: the wheel carries the server that ``npm run build`` bundled into ``rl_advantages/_js``.

``npm run build`` (tsup.config.ts, entry ``src/serve-bundle.ts``) writes ``rl_advantages/_js/rl-adv.js`` (the
command line with every JavaScript dependency inlined, no chart library) and ``kernel-worker.js`` beside it. This
hook checks they are there and copies the study spec the ``decide`` and ``plan`` commands default to
(``../specs/gs1-vs-grpo.json``) to ``_js/specs/``, where the bundle looks for it, and puts ``../LICENSE`` in the wheel.
"""

from __future__ import annotations

import os
import shutil
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

BUNDLE_FILES = ("rl-adv.js", "kernel-worker.js")
SPECS = ("gs1-vs-grpo.json",)


class BundleHook(BuildHookInterface):
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel":
            return
        js = os.path.join(self.root, "rl_advantages", "_js")
        missing = [name for name in BUNDLE_FILES if not os.path.isfile(os.path.join(js, name))]
        if missing:
            raise RuntimeError(
                f"rl_advantages/_js lacks {', '.join(missing)}: the wheel carries the bundled rl-adv server, built by "
                "the npm package. In the repository root run `npm ci && npm run build`, then `pip install ./python`."
            )
        repo = os.path.dirname(os.path.abspath(self.root))
        os.makedirs(os.path.join(js, "specs"), exist_ok=True)
        for name in SPECS:
            source = os.path.join(repo, "specs", name)
            if not os.path.isfile(source):
                raise RuntimeError(f"{source} is missing: build the wheel from a clone of rl-advantages (python/ beside specs/)")
            shutil.copyfile(source, os.path.join(js, "specs", name))
        # The repository's licence (MIT) travels in the package folder.
        build_data.setdefault("force_include", {})[os.path.join(repo, "LICENSE")] = "rl_advantages/LICENSE"
