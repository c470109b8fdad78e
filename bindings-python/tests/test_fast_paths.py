"""The edges of `loads`'s fast paths (src/pyobj.rs, src/loads.rs).

Strings are built in place in CPython's narrowest layout (ASCII, Latin-1,
UCS-2, UCS-4), keys come from a cache kept between calls, integers up to
i64 and floats with short mantissas are converted without Python's parsers,
and array items share one stack. Every result must equal what `json.loads`
gives for the same JSON text, down to the type, the sign of zero and the
string layout (a string in a wider layout than needed compares unequal to
the same text built by Python).
"""

from __future__ import annotations

import json
import math
import sys
import threading
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import stc

# One string per layout and per boundary of each layout.
STRINGS = [
    "",
    "a",
    "plain ascii, with spaces",
    "\x7f",
    "\x80",
    "caf\u00e9",
    "\u00ff",
    "\u00ff\x00",
    "\u0100",
    "a\u00e9\u0100",
    "\u4e2d\u6587",
    "\uffff",
    "\U00010000",
    "\U0001f600 smile",
    "\U0010ffff",
    "mixed \u00e9 \u4e2d \U0001f600",
    "x" * 200,
    "\u00e9" * 70,
]


def same(a: Any, b: Any) -> bool:
    """Equal, with the same types all the way down and the same sign of zero."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return (a == b and math.copysign(1.0, a) == math.copysign(1.0, b)) or (a != a and b != b)
    if isinstance(a, str):
        # The same text in the same layout: equal, same hash, same size.
        return a == b and hash(a) == hash(b) and sys.getsizeof(a) == sys.getsizeof(b)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict):
        keys_same = list(a) == list(b) and all(same(k, k2) for k, k2 in zip(a, b, strict=True))
        return keys_same and all(same(a[k], b[k]) for k in a)
    return bool(a == b)


def check_both(value: Any) -> None:
    """`loads` of the JSON text and of its STC encoding both give `value` as json.loads does."""
    text = json.dumps(value, ensure_ascii=False)
    expected = json.loads(text)
    assert same(stc.loads(text), expected), text
    assert same(stc.loads(stc.encode(text)), expected), text


@pytest.mark.parametrize("s", STRINGS, ids=range(len(STRINGS)))
def test_string_values_and_keys_in_every_layout(s: str) -> None:
    check_both(s)
    check_both([s, s, {"k": s}])
    check_both({s: 1, "other": s})
    check_both([{s: i, "n": s} for i in range(3)])  # a table whose column is named s
    # Escaped in the input: decoded, then built the same way.
    escaped = json.dumps(s, ensure_ascii=True)
    assert same(stc.loads(escaped), s)
    assert same(stc.loads("{" + escaped + ": " + escaped + "}"), {s: s})


def test_layout_matches_pythons_own_strings() -> None:
    # Latin-1 text never lands in a two-byte layout, BMP text never in four.
    for s in STRINGS:
        got = stc.loads(json.dumps(s, ensure_ascii=False))
        assert sys.getsizeof(got) == sys.getsizeof(s), repr(s)
        assert {got: 1}[s] == 1


def test_one_wide_character_at_every_position() -> None:
    """The ASCII check reads eight bytes at a time, then the tail: one
    character of each wider layout at every position of strings of 0 to 24
    characters, and plain ASCII of every length, in Python's own layout."""
    for wide in ("\u00e9", "\u00ff", "\u0100", "\u4e2d", "\uffff", "\U00010000", "\U0001f600"):
        for n in range(25):
            check_both(["a" * n])
            for i in range(n):
                s = "a" * i + wide + "a" * (n - i - 1)
                check_both([s, {s: s}])


def test_widest_character_across_the_counting_blocks() -> None:
    """Characters are counted and the layout found 128 bytes at a time, then
    decoded with ASCII runs taken eight at a time: the widest character just
    before, at and after each block edge, and between ASCII runs of 7, 8 and
    9, in Python's own layout."""
    for wide in ("\u00e9", "\u4e2d", "\U0001f600"):
        for filler in ("a", "\u00e9", "\u4e2d"):
            for n in (120, 127, 128, 129, 255, 256, 257, 300):
                for at in (0, n // 2, n - 1):
                    s = filler * at + wide + filler * (n - at)
                    got = stc.loads(json.dumps([s], ensure_ascii=False))[0]
                    assert got == s and sys.getsizeof(got) == sys.getsizeof(s)
        for run in (7, 8, 9, 16, 17):
            s = ("a" * run + wide) * 5 + "a" * run
            assert same(stc.loads(json.dumps({s: s}, ensure_ascii=False)), {s: s})


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from("ab \x7f\x80\u00e9\u00ff\u0100\u4e2d\uffff\U00010000\U0010ffff"), max_size=400))
def test_mixed_layout_strings(s: str) -> None:
    got = stc.loads(json.dumps([s, {"k": s}], ensure_ascii=False))
    assert same(got, [s, {"k": s}]) and sys.getsizeof(got[0]) == sys.getsizeof(s)


@pytest.mark.parametrize(
    "text, expected",
    [
        ('"\\ud800"', "\ud800"),
        ('"a\\udc00b"', "a\udc00b"),
        ('"\\udc00\\ud800"', "\udc00\ud800"),
        ('"\\ud83d\\ude00"', "\U0001f600"),
        ('{"\\ud800": 1}', {"\ud800": 1}),
        ('["\\u00e9", "\\u0100", "\\u4e2d", "\\u0000"]', ["\u00e9", "\u0100", "\u4e2d", "\x00"]),
    ],
)
def test_escapes_and_lone_surrogates(text: str, expected: Any) -> None:
    assert same(stc.loads(text), json.loads(text))
    assert same(stc.loads(text), expected)


def test_keys_written_differently_are_the_same_key() -> None:
    # The cache is keyed by the text as written; both spellings decode to "ab".
    text = '{"ab": 1, "a\\u0062": 2}'
    assert stc.loads(text) == json.loads(text) == {"ab": 2}
    text = '[{"\\u00e9": 1}, {"\u00e9": 2}]'
    assert same(stc.loads(text), json.loads(text))


def test_key_cache_between_calls_and_beyond_its_size() -> None:
    # More distinct keys than the cache holds, long keys it does not hold,
    # and the same keys again in the next call: every dict is right.
    keys = [f"key{i}" for i in range(3000)] + ["k" * 65, "k" * 64, "\u00e9" * 40, ""]
    doc = {k: i for i, k in enumerate(keys)}
    for _ in range(3):
        check_both(doc)
        check_both([{k: k} for k in keys[:50]])
    first = stc.loads('{"id": 1}')
    second = stc.loads('{"id": 2}')
    assert list(first) == list(second) == ["id"]
    assert first["id"] == 1 and second["id"] == 2


def test_key_cache_compares_every_byte_of_every_length() -> None:
    # Keys of every length around the cache's word reads (4, 8, 16 bytes)
    # and its longest key (55 bytes, one slot a cache line), each beside keys
    # that differ from it in one byte only, at every position: the same
    # length and mostly the same words, so they meet in the cache's slots
    # and must still come back as themselves, in this call and the next.
    for n in [1, 3, 4, 5, 7, 8, 9, 15, 16, 17, 24, 31, 32, 33, 54, 55, 56, 57]:
        base = "".join(chr(ord("a") + i % 26) for i in range(n))
        keys = [base] + [base[:i] + "#" + base[i + 1 :] for i in range(n)]
        doc = [{k: i} for i, k in enumerate(keys)] + [{k: k for k in keys}]
        for _ in range(2):
            check_both(doc)


INTEGERS = [
    0,
    1,
    -1,
    255,
    256,
    -5,
    -6,
    10**17,
    10**18 - 1,
    10**18,
    -(10**18) + 1,
    -(10**18),
    2**53,
    2**53 + 1,
    2**63 - 1,
    -(2**63),
    2**63,
    -(2**63) - 1,
    2**64,
    10**19,
    10**20,
    10**100,
    -(10**300),
]


@pytest.mark.parametrize("n", INTEGERS, ids=[str(i) for i in range(len(INTEGERS))])
def test_integer_boundaries(n: int) -> None:
    check_both(n)
    check_both([n, -n, {"n": n}])
    assert same(stc.loads(str(n)), n)


def test_negative_zero_integer_is_zero() -> None:
    assert same(stc.loads("-0"), 0)
    assert same(stc.loads("([2]: -0,0)"), [0, 0])


FLOAT_LEXEMES = [
    "0.0",
    "-0.0",
    "-0e5",
    "0e-999999",
    "1.0",
    "1e0",
    "1E+2",
    "1e-2",
    "0.1",
    "0.30000000000000004",
    "123456789012345678.9",
    "9007199254740992.0",  # 2^53: the last mantissa the direct conversion takes
    "9007199254740993.0",  # 2^53 + 1: rounds to even, left to the full conversion
    "9007199254740993e-5",
    "1e22",
    "1e23",  # the first power of ten that is not an exact f64
    "1e-22",
    "1e-23",
    "4.9e-324",
    "2.2250738585072014e-308",
    "1.7976931348623157e308",
    "1e308",
    "1e309",  # beyond f64: inf, as json.loads
    "-1e400",
    "1e-400",
    "0.000000000000000000000000001",
    "12345678.12345678",
    "1234567890123456789e-19",  # 19 digits
    "12345678901234567890e-20",  # 20 digits
    "1.5e+0000000000000000000000000000001",
    "3.14159265358979323846264338327950288",
]


@pytest.mark.parametrize("lexeme", FLOAT_LEXEMES)
def test_float_lexemes(lexeme: str) -> None:
    assert same(stc.loads(lexeme), json.loads(lexeme))
    positive = lexeme.lstrip("-")
    assert same(stc.loads(f"([2]: {positive},-{positive})"), json.loads(f"[{positive}, -{positive}]"))


@settings(max_examples=300, deadline=None)
@given(st.floats(allow_nan=False, allow_infinity=False))
def test_every_float_repr(x: float) -> None:
    assert same(stc.loads(repr(x)), x)


@settings(max_examples=300, deadline=None)
@given(
    st.booleans(),
    st.integers(min_value=0, max_value=10**25),
    st.text(alphabet="0123456789", min_size=0, max_size=25),
    st.one_of(st.none(), st.integers(min_value=-40, max_value=40)),
)
def test_decimal_lexemes(negative: bool, whole: int, fraction: str, exponent: int | None) -> None:
    lexeme = ("-" if negative else "") + str(whole)
    if fraction:
        lexeme += "." + fraction
    if exponent is not None:
        lexeme += f"e{exponent}"
    assert same(stc.loads(lexeme), json.loads(lexeme)), lexeme


def test_nested_arrays_share_one_item_stack() -> None:
    check_both([[1, [2, [3, []], 4], []], [[]], [{"a": [5, 6]}, 7]])
    assert stc.loads("([2]: [1]: [0]:,[2]: 1,2)") == json.loads("[[[]], [1, 2]]")
    pairs = stc.loads('[{"a": [1, {"b": 2}], "a": 3}, [4]]', object_pairs_hook=lambda p: p)
    assert pairs == [[("a", [1, [("b", 2)]]), ("a", 3)], [4]]


def test_loads_called_from_a_hook() -> None:
    # The inner call finds the key cache taken and uses its own.
    def hook(d: dict[str, Any]) -> Any:
        if "inner" in d:
            return stc.loads(d["inner"])
        return d

    text = json.dumps([{"inner": json.dumps({"x": [1, "\u00e9"], "id": 7})}, {"id": 8}])
    assert stc.loads(text, object_hook=hook) == [{"x": [1, "\u00e9"], "id": 7}, {"id": 8}]


def test_threads_share_the_key_cache() -> None:
    docs = [json.dumps([{f"k{t}_{i}": i, "id": t} for i in range(200)]) for t in range(4)]
    expected = [json.loads(d) for d in docs]
    errors: list[str] = []

    def work(t: int) -> None:
        for _ in range(30):
            if stc.loads(docs[t]) != expected[t]:
                errors.append(f"thread {t}")

    threads = [threading.Thread(target=work, args=(t,)) for t in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert errors == []


# Every place the reader reports a number (a lone value, the run of numbers
# at an array's bracket, a table's cells, an object's member) goes through
# the core's number event; each must give the same objects, and the hooks
# the lexeme as written.
NUMBER_EDGES = [
    "0",
    "-0",
    "-0.0",
    "1e16",
    "1E400",
    "-1E400",
    "1e-400",
    "9223372036854775807",  # 2^63 - 1, 19 digits
    "-9223372036854775808",  # -2^63
    "9223372036854775808",  # 2^63: beyond i64
    "-9223372036854775809",
    "9999999999999999999",  # 19 digits beyond i64
    "10000000000000000000",  # 20 digits
    "-99999999999999999999",
    "123456789012345678901234567890",
    "4.9e-324",
    "0.1",
    "12345678901234567890.5",
]


@pytest.mark.parametrize("where", ["alone", "run", "table", "member", "list"])
def test_number_edges_in_every_reader_position(where: str) -> None:
    seen: list[tuple[str, str]] = []

    def as_int(s: str) -> tuple[str, str]:
        seen.append(("i", s))
        return ("i", s)

    def as_float(s: str) -> tuple[str, str]:
        seen.append(("f", s))
        return ("f", s)

    for lexeme in NUMBER_EDGES:
        if where == "alone":
            text = json_text = lexeme
        elif where == "run":
            text = json_text = f"[{lexeme},{lexeme},1,{lexeme}]"
        elif where == "table":
            text = f"([2]{{a,b}}:{lexeme},1/2,{lexeme})"
            json_text = f'[{{"a": {lexeme}, "b": 1}}, {{"a": 2, "b": {lexeme}}}]'
        elif where == "member":
            text = f"{{n: {lexeme}, m: [{lexeme}]}}"
            json_text = f'{{"n": {lexeme}, "m": [{lexeme}]}}'
        else:
            text = f"([3]: {lexeme},{lexeme},{lexeme})"
            json_text = f"[{lexeme}, {lexeme}, {lexeme}]"
        assert same(stc.loads(text), json.loads(json_text)), (where, lexeme)
        # The hooks see each lexeme as written, integers and floats apart.
        seen.clear()
        hooked = stc.loads(text, parse_int=as_int, parse_float=as_float)
        from_json = json.loads(json_text, parse_int=as_int, parse_float=as_float)
        assert hooked == from_json, (where, lexeme)
        half = len(seen) // 2
        assert seen[:half] == seen[half:] and (("." in lexeme or "e" in lexeme.lower()) != (("i", lexeme) in seen))


def test_number_hooks_get_subclassable_results_and_raise() -> None:
    class MyInt(int):
        pass

    out = stc.loads("([3]: 1,-0,99999999999999999999)", parse_int=MyInt)
    assert out == [1, 0, 99999999999999999999] and all(type(v) is MyInt for v in out)
    assert stc.loads("([2]: 1.5,-0.0)", parse_float=str) == ["1.5", "-0.0"]

    def boom(s: str) -> None:
        raise ValueError(f"no {s}")

    with pytest.raises(ValueError, match="no 1e16"):
        stc.loads("([2]: 1,1e16)", parse_float=boom)
