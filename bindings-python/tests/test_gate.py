"""The do-no-harm gate (`encode_gated`) and `count_tokens`: the built-in
estimate, and the caller's counting callable (exact counts are opt-in: the
package carries no BPE tables)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

import stc
import stc._stc

TABLE_ROWS = [{"id": i, "name": f"user{i}", "active": i % 3 == 0} for i in range(20)]
TABLE = json.dumps(TABLE_ROWS)
MINIFIED = json.dumps(TABLE_ROWS, separators=(",", ":"))


def words(text: str) -> list[str]:
    """A crude tokenizer returning its tokens (as tiktoken's encode returns ids)."""
    return re.findall(r"\w+|[^\w\s]", text)


def utf8_bytes(text: str) -> int:
    return len(text.encode("utf-8"))


def test_stc_loses_so_json_comes_back() -> None:
    result = stc.encode_gated("[1, 2, 3]")
    assert isinstance(result, stc.GateResult)
    assert result == ("[1,2,3]", "json", result.json_tokens, result.stc_tokens)
    assert result.text == "[1,2,3]" and result.chosen == "json"
    assert result.stc_tokens >= result.json_tokens * 0.95


def test_table_stc_wins_with_the_estimate() -> None:
    result = stc.encode_gated(TABLE)
    assert result == stc.encode_gated(TABLE, tokenizer="estimate")
    assert result.chosen == "stc"
    assert result.text.startswith("([20]{id,name,active}:")
    assert result.text == stc.encode(TABLE)
    assert result.stc_tokens <= result.json_tokens * 0.95
    assert result.json_tokens == stc.count_tokens(MINIFIED)
    assert result.stc_tokens == stc.count_tokens(result.text)
    assert stc.loads(result.text) == TABLE_ROWS


@pytest.mark.parametrize("counter", [utf8_bytes, words], ids=["int", "list"])
def test_the_callers_counter_decides(counter: Any) -> None:
    seen: list[str] = []

    def counting(text: str) -> Any:
        seen.append(text)
        return counter(text)

    result = stc.encode_gated(TABLE, tokenizer=counting)
    stc_text = stc.encode(TABLE)
    assert seen == [MINIFIED, stc_text]  # minified JSON first, then STC

    def expected(text: str) -> int:
        n = counter(text)
        return n if isinstance(n, int) else len(n)

    assert (result.json_tokens, result.stc_tokens) == (expected(MINIFIED), expected(stc_text))
    assert result.chosen == "stc" and result.text == stc_text
    assert stc.count_tokens(TABLE, counting) == expected(TABLE)


def test_min_saving_applies_to_the_counters_numbers() -> None:
    # STC one token cheaper than JSON: a saving of 1/100, below the default 5 %.
    def counter(text: str) -> int:
        return 100 if text == MINIFIED else 99

    assert stc.encode_gated(TABLE, tokenizer=counter).chosen == "json"
    result = stc.encode_gated(TABLE, tokenizer=counter, min_saving=0.01)
    assert (result.chosen, result.json_tokens, result.stc_tokens) == ("stc", 100, 99)


class Boom(Exception):
    pass


@pytest.mark.parametrize("fail_on_call", [1, 2])
def test_the_counters_exception_comes_back_as_itself(fail_on_call: int) -> None:
    boom = Boom("tokenizer offline")
    calls = 0

    def counter(text: str) -> int:
        nonlocal calls
        calls += 1
        if calls == fail_on_call:
            raise boom
        return len(text)

    with pytest.raises(Boom) as info:
        stc.encode_gated(TABLE, tokenizer=counter)
    assert info.value is boom
    with pytest.raises(Boom) as info:
        stc.count_tokens("x", lambda text: (_ for _ in ()).throw(boom))
    assert info.value is boom


def test_invalid_json_is_never_counted() -> None:
    seen: list[str] = []

    def counter(text: str) -> int:
        seen.append(text)
        return 0

    with pytest.raises(stc.STCDecodeError) as info:
        stc.encode_gated("[1,", tokenizer=counter)
    assert info.value.kind == "unexpected_end"
    assert seen == []


@pytest.mark.parametrize(
    ("result", "error"),
    [(-1, ValueError), (True, TypeError), (None, TypeError), (1.5, TypeError), ("abc", TypeError)],
)
def test_a_bad_count_is_an_error(result: Any, error: type[Exception]) -> None:
    with pytest.raises(error, match=r"token counter|count"):
        stc.encode_gated(TABLE, tokenizer=lambda t: result)
    with pytest.raises(error, match=r"token counter|count"):
        stc.count_tokens("x", lambda t: result)


def test_min_saving_and_profile() -> None:
    assert stc.encode_gated(TABLE, min_saving=1.0).chosen == "json"
    assert stc.encode_gated(TABLE, min_saving=0.0).chosen == "stc"
    readable = stc.encode_gated(TABLE, profile="readable", min_saving=0.0)
    assert readable.text == stc.encode(TABLE, profile="readable")
    counted = stc.encode_gated(TABLE, profile="readable", min_saving=0.0, tokenizer=utf8_bytes)
    assert counted.text == readable.text


def test_gate_json_fallback_is_minified_and_decodes() -> None:
    text = '{"a" : [1.0, 1e3, -0], "b": {"c": null}}'
    result = stc.encode_gated(text, min_saving=1.0)
    assert result.text == '{"a":[1.0,1e3,-0],"b":{"c":null}}'
    assert stc.decode(result.text) == result.text


def test_count_tokens() -> None:
    assert stc.count_tokens("hello world") == 2
    assert stc.count_tokens(b"hello world", "estimate") == 2
    assert stc.count_tokens("") == 0
    assert stc.count_tokens(TABLE, "estimate") > 0
    assert stc.count_tokens("héllo wörld", utf8_bytes) == 13
    assert stc.count_tokens(b"a, b", words) == 3


def test_unknown_tokenizers_are_errors() -> None:
    # The exact BPE tables are not built in: their names are unknown here.
    assert stc.TOKENIZERS == ("estimate",)
    for name in ("o200k_base", "cl100k_base", "p50k_base"):
        with pytest.raises(ValueError, match=r"unknown tokenizer .*expected one of: estimate"):
            stc.count_tokens("x", name)  # type: ignore[arg-type]
        with pytest.raises(ValueError, match="tokenizer"):
            stc.encode_gated("[1]", tokenizer=name)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="tokenizer must be"):
        stc.encode_gated("[1]", tokenizer=5)  # type: ignore[arg-type]


def test_the_extension_carries_no_bpe_tables() -> None:
    # With the o200k/cl100k tables built in the module was 53 MB (a 26 MB
    # wheel); without them it is about 3 MB (a 1.6 MB wheel, issue 12: <= 2 MB).
    size = Path(stc._stc.__file__).stat().st_size
    assert size < 6_000_000, size
