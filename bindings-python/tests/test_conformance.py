"""The shared conformance corpus (`conformance/cases/<category>/*.json`), run through the
Python API as `conformance/README.md` prescribes: byte-identical text output,
or the same error kind code and byte offset.

Every case of every file becomes one test named after the case. A file that
cannot be read, a case with an unknown category and an empty corpus are test
failures, never silent skips. Cases given as `input_hex` (bytes that are not
UTF-8) run too: the text functions accept `bytes`.

Beyond the text functions, each decode/roundtrip/invalid case is also run
through `stc.loads` and compared with CPython's `json.loads` of the expected
JSON, number lexemes and duplicate keys included (through the hooks).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

import stc

CASES_DIR = Path(__file__).resolve().parents[2] / "conformance" / "cases"
CATEGORIES = {"encode", "decode", "roundtrip", "invalid", "json-invalid"}
PROFILES: tuple[stc.Profile, ...] = ("compact", "readable")


def _collect() -> list[Any]:
    params: list[Any] = []
    files = sorted(CASES_DIR.rglob("*.json"))
    if not files:
        params.append(pytest.param("missing", str(CASES_DIR), None, id="no-case-files"))
    for path in files:
        rel = path.relative_to(CASES_DIR).as_posix()
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            category = data["category"]
            cases = data["cases"]
            names = [case["name"] for case in cases]
        except Exception as exc:  # reported by the test below, naming the file
            params.append(pytest.param("broken", rel, repr(exc), id=f"unreadable-{rel}"))
            continue
        for name, case in zip(names, cases, strict=False):
            params.append(pytest.param(category, rel, case, id=name))
    return params


PARAMS = _collect()


def _input(case: dict[str, Any]) -> str | bytes:
    if "input_hex" in case:
        return bytes.fromhex(case["input_hex"])
    text: str = case["input"]
    return text


def _exact(pairs: list[tuple[str, Any]]) -> list[tuple[str, Any]]:
    return pairs


def _exact_loads(loads: Any, text: str | bytes, **kw: Any) -> Any:
    """Objects that keep everything JSON text can say: lexemes and duplicates."""
    return loads(text, object_pairs_hook=_exact, parse_float=str, parse_int=str, **kw)


def _assert_error(exc: stc.STCDecodeError, expected: dict[str, Any]) -> None:
    assert (exc.kind, exc.offset) == (expected["kind"], expected["offset"]), str(exc)


@pytest.mark.parametrize(("category", "file", "case"), PARAMS)
def test_case(category: str, file: str, case: Any) -> None:
    if category == "missing":
        pytest.fail(f"no conformance case files in {file}")
    if category == "broken":
        pytest.fail(f"cannot read conformance file {file}: {case}")
    if category not in CATEGORIES:
        pytest.fail(f"case {case.get('name')!r} in {file}: unknown category {category!r}")

    options: dict[str, Any] = case.get("options", {})
    max_depth: int | None = options.get("max_depth")
    version: stc.Version = options.get("version", 1)
    profile = options.get("profile", "compact")
    text = _input(case)

    if category == "encode":
        assert stc.encode(text, profile=profile, max_depth=max_depth, version=version) == case["expected"]
    elif category == "decode":
        assert stc.decode(text, max_depth=max_depth, version=version) == case["expected"]
    elif category == "roundtrip":
        for p in PROFILES:
            encoded = stc.encode(text, profile=p, max_depth=max_depth, version=version)
            assert stc.decode(encoded, max_depth=max_depth, version=version) == case["expected"], p
    elif category == "invalid":
        with pytest.raises(stc.STCDecodeError) as info:
            stc.decode(text, max_depth=max_depth, version=version)
        _assert_error(info.value, case["error"])
    else:  # json-invalid
        with pytest.raises(stc.STCDecodeError) as info:
            stc.encode(text, max_depth=max_depth, version=version)
        _assert_error(info.value, case["error"])


# The categories whose cases say what `loads` must produce (or raise).
LOADS_PARAMS = [p for p in PARAMS if p.values[0] in ("decode", "roundtrip", "invalid")]


@pytest.mark.parametrize(("category", "file", "case"), LOADS_PARAMS)
def test_case_through_loads(category: str, file: str, case: Any) -> None:
    """`stc.loads` agrees with `json.loads` of the expected JSON, exactly."""
    options: dict[str, Any] = case.get("options", {})
    max_depth: int | None = options.get("max_depth")
    version: stc.Version = options.get("version", 1)
    text = _input(case)
    if category == "invalid":
        with pytest.raises(stc.STCDecodeError) as info:
            stc.loads(text, max_depth=max_depth, version=version)
        _assert_error(info.value, case["error"])
        return
    if category == "roundtrip":
        text = stc.encode(text, max_depth=max_depth, version=version)
    # json.loads and == recurse in C under Python's recursion limit (1000 by
    # default); the corpus nests up to the core's cap of 1024.
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 5000))
    try:
        expected = _exact_loads(json.loads, case["expected"])
        assert _exact_loads(stc.loads, text, max_depth=max_depth, version=version) == expected
    finally:
        sys.setrecursionlimit(limit)


def test_case_names_are_unique() -> None:
    names = [p.id for p in PARAMS]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    assert not duplicates, duplicates
