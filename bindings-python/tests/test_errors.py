"""STCDecodeError: its place in the exception hierarchy, its attributes, and
hostile input that must end in it (never a crash, RecursionError or hang)."""

from __future__ import annotations

import json
import pickle
from collections.abc import Callable
from typing import Any

import pytest

import stc


def _error(fn: Callable[[Any], Any], text: str | bytes) -> stc.STCDecodeError:
    with pytest.raises(stc.STCDecodeError) as info:
        fn(text)
    return info.value


def test_hierarchy() -> None:
    assert issubclass(stc.STCDecodeError, json.JSONDecodeError)
    assert issubclass(stc.STCDecodeError, ValueError)
    with pytest.raises(ValueError):
        stc.loads("[")
    with pytest.raises(json.JSONDecodeError):
        stc.decode("[")


def test_attributes_count_mismatch() -> None:
    # Too few values is count_mismatch at the count (design D.3).
    err = _error(stc.loads, "{a[3]: 1,2}")
    assert err.kind == "count_mismatch"
    assert (err.offset, err.pos, err.lineno, err.colno) == (3, 3, 1, 4)
    assert err.doc == "{a[3]: 1,2}"
    assert "3" in err.msg and "line" not in err.msg
    assert str(err) == f"{err.msg}: line 1 column 4 (char 3)"


def test_pos_counts_characters_offset_counts_bytes() -> None:
    text = '{"é€😀": 1,\n  b: [2]: 1}'
    err = _error(stc.loads, text)
    assert err.kind == "count_mismatch"  # at the count, after three multi-byte characters
    assert err.offset == text.encode().index(b"2]") == 23
    assert err.pos == text.index("2]") == 17
    assert (err.lineno, err.colno) == (2, 7)
    assert err.doc[err.pos] == "2"
    # The same numbers from decode, and for bytes input.
    for fn in (stc.decode, lambda t: stc.loads(t.encode())):
        e2 = _error(fn, text)
        assert (e2.kind, e2.offset, e2.pos, e2.lineno, e2.colno) == (err.kind, 23, 17, 2, 7)
        assert e2.doc == text


def test_lineno_colno_match_json_conventions() -> None:
    text = '{\n  "a": 1,\n  "b" 2\n}'
    mine = _error(stc.loads, text)
    with pytest.raises(json.JSONDecodeError) as info:
        json.loads(text)
    theirs = info.value
    assert (mine.pos, mine.lineno, mine.colno) == (theirs.pos, theirs.lineno, theirs.colno)


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("", "unexpected_end"),
        ("[1, 2", "unexpected_end"),
        ("[1 2]", "unexpected_char"),
        ("01", "invalid_number"),
        ('"\\x"', "invalid_escape"),
        ('"a\nb"', "control_character"),
        ("1 2", "trailing_characters"),
        ("([-1]: 1)", "invalid_count"),
        ("([5]: 1)", "count_mismatch"),
        ("([2]: 1,2,3)", "unexpected_char"),
        ("[2]: 1,2", "unexpected_char"),
        ("{a[3]: 1,2}", "count_mismatch"),
        ("([1]{a}: 1 / 2)", "unexpected_char"),
    ],
)
def test_kinds(text: str, kind: str) -> None:
    assert _error(stc.loads, text).kind == kind
    assert _error(stc.decode, text).kind == kind


def test_invalid_utf8() -> None:
    err = _error(stc.loads, b'["ok", "\xff"]')
    assert (err.kind, err.offset, err.pos) == ("invalid_utf8", 8, 8)
    assert isinstance(err.doc, str)
    # A str holding a lone surrogate outside a string literal is not UTF-8 text.
    err = _error(stc.loads, "[1, \ud800]")
    assert (err.kind, err.offset, err.pos) == ("invalid_utf8", 4, 4)
    err = _error(stc.encode, b"[\xc3]")
    assert err.kind == "invalid_utf8"


def test_encode_errors_carry_the_json_text() -> None:
    err = _error(stc.encode, '{"a": [1, 2,]}')
    assert (err.kind, err.offset, err.doc) == ("unexpected_char", 12, '{"a": [1, 2,]}')
    err = _error(lambda t: stc.encode_gated(t), "[1,")
    assert err.kind == "unexpected_end"


def test_pickle_round_trip() -> None:
    err = _error(stc.loads, "([2]: 1")
    again = pickle.loads(pickle.dumps(err))
    assert type(again) is stc.STCDecodeError
    assert (again.msg, again.doc, again.pos, again.kind, again.offset, again.lineno, again.colno) == (
        err.msg,
        err.doc,
        err.pos,
        err.kind,
        err.offset,
        err.lineno,
        err.colno,
    )
    assert str(again) == str(err)


def test_constructed_by_hand_like_json_decode_error() -> None:
    err = stc.STCDecodeError("boom", "ab\ncd", 4)
    assert (err.lineno, err.colno, err.offset, err.kind) == (2, 2, 4, "")


def test_hook_exception_propagates_unchanged() -> None:
    class Boom(Exception):
        pass

    def hook(_: Any) -> Any:
        raise Boom("from the hook")

    with pytest.raises(Boom, match="from the hook"):
        stc.loads("([2]{a}: 1 / 2)", object_hook=hook)
    with pytest.raises(Boom):
        stc.loads("{a: [1.5]}", parse_float=hook)
    with pytest.raises(Boom):
        stc.loads("[1]", parse_int=hook)
    with pytest.raises(Boom):
        stc.loads("{a: 1}", object_pairs_hook=hook)


# ---- hostile input ---------------------------------------------------------------

HOSTILE = [
    ("[" * 100_000, "depth_limit"),
    ("{a:" * 100_000, "depth_limit"),
    ("(" + "[1]:" * 100_000, "depth_limit"),
    ("(" + "[1]{a}:" * 50_000, "depth_limit"),
    ("[" * 100_000 + "]" * 100_000, "depth_limit"),
    ("([99999999999999999999999999999999]: 1", "count_too_large"),
    ("([18446744073709551616]{a,b}: 1,2", "count_too_large"),
    ("([1000000000]{" + ",".join(f"k{i}" for i in range(1000)) + "}: 1", "count_mismatch"),
    ("{a[100000]: " + "1," * 99_998 + "1}", "count_mismatch"),
    ('"' + "\\u0041" * 100_000, "unexpected_end"),
]


@pytest.mark.parametrize(("text", "kind"), HOSTILE, ids=[f"hostile-{i}" for i in range(len(HOSTILE))])
def test_hostile_input(text: str, kind: str) -> None:
    for fn in (stc.loads, stc.decode, lambda t: stc.loads(t.encode())):
        assert _error(fn, text).kind == kind


def test_every_truncation_is_an_error() -> None:
    text = '{users[2]{id,name}: 1,"a\\u00e9" / 2,"b", meta: {n[3]: 1.5,-0,1e3, s: "x"}}'
    assert stc.loads(text) == {
        "users": [{"id": 1, "name": "aé"}, {"id": 2, "name": "b"}],
        "meta": {"n": [1.5, 0, 1000.0], "s": "x"},
    }
    for cut in range(len(text)):
        prefix = text[:cut]
        with pytest.raises(stc.STCDecodeError) as info:
            stc.loads(prefix)
        assert info.value.offset <= len(prefix.encode())


def test_deep_json_is_an_error_not_a_recursion_error() -> None:
    with pytest.raises(stc.STCDecodeError):
        stc.encode("[" * 100_000 + "]" * 100_000)
    with pytest.raises(stc.STCDecodeError):
        stc.loads('{"a":' * 100_000 + "1" + "}" * 100_000)
