"""The typed example (checked by `mypy --strict` in test.sh) also runs."""

from __future__ import annotations

import runpy
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "typing_example.py"


def test_typing_example_runs() -> None:
    namespace = runpy.run_path(str(EXAMPLE))
    namespace["main"]()
