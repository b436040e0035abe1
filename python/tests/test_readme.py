"""The README's Python example prints what the README says (the issue's "done when" line)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"


def test_the_readme_python_example():
    text = README.read_text(encoding="utf-8")
    match = re.search(r'^python -c "(.+)"\n# (.+)$', text, flags=re.MULTILINE)
    assert match is not None, "README.md lost its python -c example"
    code, shown = match.groups()
    printed = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert printed == shown == "[ 0.5 -0.5 -0.5  0.5]"
