"""The option contract (conformance/options/options.json): the Python API
refuses the table's bad values with stc-core's message as a ValueError, the
same message the CLI, the MCP tools, ``stc serve``, Node and wasm report, and
accepts its good values."""

from __future__ import annotations

import json
import pathlib
from typing import Any, Callable

import pytest

import stc

TABLE = json.loads(
    (pathlib.Path(__file__).resolve().parents[2] / "conformance" / "options" / "options.json").read_text("utf-8")
)
JSON = '[{"id": 1, "name": "a"}, {"id": 2, "name": "b"}]'

# The Python calls that take each option.
CALLS: dict[str, list[Callable[[Any], object]]] = {
    "profile": [
        lambda v: stc.encode(JSON, profile=v),
        lambda v: stc.dumps([1], profile=v),
        lambda v: stc.encode_gated(JSON, profile=v),
    ],
    "tokenizer": [lambda v: stc.encode_gated(JSON, tokenizer=v), lambda v: stc.count_tokens(JSON, v)],
    "version": [lambda v: stc.encode(JSON, version=v), lambda v: stc.decode("[1]", version=v)],
    "min_saving": [lambda v: stc.encode_gated(JSON, min_saving=v)],
}


def rows(kind: str) -> list[tuple[str, Any, str | None]]:
    out: list[tuple[str, Any, str | None]] = []
    for option, spec in TABLE["options"].items():
        if "python" not in spec["surfaces"]:
            continue
        for row in spec[kind]:
            message = row.get("message")
            if message is not None:
                message = message.replace("{tokenizers}", ", ".join(stc.TOKENIZERS))
            out.append((option, row["value"], message))
    return out


def test_the_table_covers_every_python_option() -> None:
    assert {option for option, _, _ in rows("bad")} == set(CALLS)


@pytest.mark.parametrize(("option", "value", "message"), rows("bad"))
def test_bad_values_are_the_cores_value_error(option: str, value: Any, message: str) -> None:
    for call in CALLS[option]:
        with pytest.raises(ValueError) as info:
            call(value)
        assert str(info.value) == message


@pytest.mark.parametrize(("option", "value", "message"), rows("good"))
def test_good_values_are_accepted(option: str, value: Any, message: None) -> None:
    for call in CALLS[option]:
        call(value)
