"""The do-no-harm gate (`encode_gated`) and `count_tokens`."""

from __future__ import annotations

import json

import pytest

import stc

TABLE_ROWS = [{"id": i, "name": f"user{i}", "active": i % 3 == 0} for i in range(20)]
TABLE = json.dumps(TABLE_ROWS)


def test_stc_loses_so_json_comes_back() -> None:
    result = stc.encode_gated("[1, 2, 3]")
    assert isinstance(result, stc.GateResult)
    assert result == ("[1,2,3]", "json", result.json_tokens, result.stc_tokens)
    assert result.text == "[1,2,3]" and result.chosen == "json"
    assert result.stc_tokens >= result.json_tokens * 0.95


@pytest.mark.parametrize("tokenizer", ["estimate", "o200k_base", "cl100k_base"])
def test_table_stc_wins(tokenizer: str) -> None:
    result = stc.encode_gated(TABLE, tokenizer=tokenizer)  # type: ignore[arg-type]
    assert result.chosen == "stc"
    assert result.text.startswith("[20]{id,name,active}:")
    assert result.text == stc.encode(TABLE)
    assert result.stc_tokens <= result.json_tokens * 0.95
    assert stc.loads(result.text) == TABLE_ROWS
    if tokenizer != "estimate":
        assert result.json_tokens == stc.count_tokens(json.dumps(TABLE_ROWS, separators=(",", ":")), tokenizer)  # type: ignore[arg-type]
        assert result.stc_tokens == stc.count_tokens(result.text, tokenizer)  # type: ignore[arg-type]


def test_min_saving_and_profile() -> None:
    assert stc.encode_gated(TABLE, min_saving=1.0).chosen == "json"
    assert stc.encode_gated(TABLE, min_saving=0.0).chosen == "stc"
    readable = stc.encode_gated(TABLE, profile="readable", min_saving=0.0)
    assert readable.text == stc.encode(TABLE, profile="readable")


def test_gate_json_fallback_is_minified_and_decodes() -> None:
    text = '{"a" : [1.0, 1e3, -0], "b": {"c": null}}'
    result = stc.encode_gated(text, min_saving=1.0)
    assert result.text == '{"a":[1.0,1e3,-0],"b":{"c":null}}'
    assert stc.decode(result.text) == result.text


def test_count_tokens() -> None:
    assert stc.count_tokens("hello world") == 2
    assert stc.count_tokens("hello world", "cl100k_base") == 2
    assert stc.count_tokens("") == 0
    assert stc.count_tokens(b"hello world", "o200k_base") == 2
    assert stc.count_tokens(TABLE, "estimate") > 0
    with pytest.raises(ValueError, match="tokenizer"):
        stc.count_tokens("x", "p50k_base")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="tokenizer"):
        stc.encode_gated("[1]", tokenizer="gpt2")  # type: ignore[arg-type]
