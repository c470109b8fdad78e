"""The README's examples run as written (its `>>>` lines and its three-line
decode example)."""

from __future__ import annotations

import doctest
import re
from pathlib import Path

import stc

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_doctests() -> None:
    # Code fences end the expected output of the example above them.
    text = re.sub(r"(?m)^```\w*$", "", README.read_text(encoding="utf-8"))
    parser = doctest.DocTestParser()
    test = parser.get_doctest(text, {"stc": stc}, "README.md", str(README), 0)
    assert test.examples, "no >>> examples found in README.md"
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    assert runner.failures == 0


def test_readme_three_line_example() -> None:
    text = README.read_text(encoding="utf-8")
    block = re.search(r"## Decode STC in three lines\s+```python\n(.*?)```", text, re.S)
    assert block is not None
    code = block.group(1)
    assert len(code.strip().splitlines()) == 3
    namespace: dict[str, object] = {}
    exec(compile(code, "README.md", "exec"), namespace)
    assert namespace["rows"] == [{"id": 1, "name": "users"}, {"id": 2, "name": "orders"}]


def test_readme_error_example() -> None:
    try:
        stc.loads("{a[3]: 1,2}")
    except ValueError as e:
        assert isinstance(e, stc.STCDecodeError)
        text = README.read_text(encoding="utf-8")
        assert f"print(e)        # {e}" in text
        assert (e.kind, e.pos, e.lineno, e.colno, e.offset) == ("count_mismatch", 3, 1, 4, 3)


def test_package_docstring_examples() -> None:
    result = doctest.testmod(stc, verbose=False)
    assert result.attempted > 0
    assert result.failed == 0
