"""The edges of `dumps`'s fast paths (src/dumps.rs).

Objects of exactly `str`, `int`, `float`, `dict`, `list` or `bool` are
recognised by their type pointer before the subclass checks; integers that
fit an i64 and every finite float are spelled on the stack (floats from
ryu's shortest digits, laid out as `float.__repr__` does). Every output must
be what `stc.encode(json.dumps(obj))` gives: the same lexemes as `json.dumps`.
"""

from __future__ import annotations

import enum
import json
import math
import random
import struct
import sys
import threading
from collections import OrderedDict
from typing import Any

import pytest

import stc


def check(value: Any, sort_keys: bool = False) -> None:
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False, sort_keys=sort_keys)
    assert stc.dumps(value, sort_keys=sort_keys) == stc.encode(text)
    assert stc.decode(stc.dumps(value, sort_keys=sort_keys)) == text


# Around each switch of float.__repr__ between positional and exponential
# notation (decimal exponents -5/-4 and 15/16), one digit and many, both signs.
FLOATS = [
    0.0,
    -0.0,
    1e-5,
    -1e-5,
    1.5e-5,
    9.999999999999999e-05,
    1.2345678901234567e-05,
    1e-4,
    0.00012345,
    -0.00099,
    1e-6,
    1.5e-7,
    1e15,
    9999999999999998.0,
    1234567890123456.8,
    1e16,
    1.5e16,
    -1e16,
    12345678901234567890.0,
    1e22,
    1e23,
    1e100,
    1e-100,
    5e-324,
    -5e-324,
    2.2250738585072014e-308,
    1.7976931348623157e308,
    0.1 + 0.2,
    100.0,
    123.456,
]


@pytest.mark.parametrize("x", FLOATS, ids=[repr(x) for x in FLOATS])
def test_float_layouts(x: float) -> None:
    check(x)
    check([x, -x, {"k": x}])
    check({x: 1})  # as a key too


def test_floats_in_every_decade() -> None:
    rng = random.Random(13)
    values = [m * 10.0**k for k in range(-330, 309) for m in (1.0, 2.5, 9.87654321, rng.random())]
    values = [v for v in values if math.isfinite(v)]
    values += [struct.unpack("<d", rng.getrandbits(64).to_bytes(8, "little"))[0] for _ in range(20_000)]
    check([v for v in values if math.isfinite(v)])


INTEGERS = [0, 1, -1, 2**53, 2**63 - 1, -(2**63), 2**63, -(2**63) - 1, 2**64, 10**19, -(10**40)]


@pytest.mark.parametrize("n", INTEGERS, ids=[str(i) for i in range(len(INTEGERS))])
def test_integer_boundaries(n: int) -> None:
    check(n)
    check([n, -n, {"n": n}])
    check({n: n})


class Color(enum.IntEnum):
    RED = 1


class Flag(enum.IntFlag):
    A = 1
    B = 2


class Big(int):
    def __repr__(self) -> str:
        return "not a number"


class Floaty(float):
    def __repr__(self) -> str:
        return "not a number"


class Name(str):
    def __str__(self) -> str:
        return "not this"


class Mapping(dict[str, Any]):
    pass


class Items(list[Any]):
    pass


def test_subclasses_take_the_general_path() -> None:
    value = {
        "bool": [True, False],
        "enum": Color.RED,
        "flag": Flag.A | Flag.B,
        "int": Big(2**70),
        "small": Big(7),
        "float": Floaty(1e-5),
        "str": Name("x"),
        "dict": Mapping(a=1),
        "list": Items([1, 2]),
        "tuple": (1, 2),
        "ordered": OrderedDict(z=1, a=2),
    }
    check(value)
    check(value, sort_keys=True)
    # Subclasses as keys, as json.dumps converts them.
    check({Color.RED: 1, Name("k"): 2, Floaty(2.5): 3, True: 4, Big(9): 5})


def test_bools_are_not_ints() -> None:
    assert stc.dumps([True, False, 1, 0]) == stc.encode("[true,false,1,0]")


STRINGS = ["", "ascii", "caf\u00e9", "\u4e2d\u6587", "\U0001f600", 'q"\\\n\t\x00', "\ud800", "a\udfffb", "x" * 300]


@pytest.mark.parametrize("s", STRINGS, ids=[str(i) for i in range(len(STRINGS))])
def test_strings_and_keys(s: str) -> None:
    values = [s, {s: [s, Name(s)]}, {Name(s): s}]
    for value in values:
        if any("\ud800" <= c <= "\udfff" for c in s):
            # Lone surrogates: JSON text carries them only as escapes.
            assert stc.decode(stc.dumps(value)) == json.dumps(value, separators=(",", ":"))
            assert stc.loads(stc.dumps(value)) == value
        else:
            check(value)


def test_ascii_strings_read_in_place() -> None:
    """The shipped build reads a compact ASCII `str` in place: ASCII strings
    made every way CPython makes them (literal, slice of a wider string,
    join, decoded bytes, a str whose UTF-8 form is cached, escapes and
    control characters, every length up to 70) as values and keys; a `str`
    subclass and wider strings take the other path."""
    wide = "\u00e9\u4e2d" + "abc" * 5
    made = [
        wide[2:],
        "".join(["a", "b", "c"]),
        b"bytes".decode("ascii"),
        str(12345),
        '\x7f\x01\x1f"\\/',
        "key with spaces",
        *("k" * n for n in range(71)),
    ]
    for s in made:
        check([s, {s: s}, Name(s), {Name(s): [s]}])
    check({s: i for i, s in enumerate(made)})


def test_a_default_hook_may_mutate_the_dict_being_written() -> None:
    """With a hook, dicts are walked from a snapshot of their items: a hook
    that changes the dict neither crashes the walk nor changes what it writes."""
    data: dict[str, Any] = {"a": object(), "b": 2}

    def hook(obj: object) -> Any:
        data.clear()
        data["z"] = 26
        return "converted"

    assert stc.dumps(data, default=hook) == stc.encode('{"a":"converted","b":2}')
    assert data == {"z": 26}


def test_a_default_hook_may_shrink_the_list_being_written() -> None:
    items: list[Any] = [object(), 1, 2, 3]

    def hook(obj: object) -> Any:
        del items[1:]
        return None

    assert stc.dumps(items, default=hook) == stc.encode("[null]")


def test_borrowed_strings_outlive_their_containers() -> None:
    """The document borrows the text of ASCII `str`s until the output is
    written: strings and keys already pushed stay readable when a hook drops
    every other reference to them (and allocates new strings that could take
    their memory), and strings a hook returns, referenced by nothing else,
    are written as they were."""
    made = ["".join(["value-", str(i), "-x" * (i % 9)]) for i in range(300)]
    keys = ["".join(["key-", str(i), "-y" * (i % 7)]) for i in range(300)]
    expected = [*made, {k: v for k, v in zip(keys, made, strict=True)}, "fresh-0", "fresh-1"]
    text = json.dumps(expected, separators=(",", ":"))
    data: list[Any] = [*made, {k: v for k, v in zip(keys, made, strict=True)}, object(), object()]
    del made, keys
    turn = iter(range(2))
    junk: list[str] = []

    def hook(obj: object) -> Any:
        i = next(turn)
        if i == 0:
            # The list and dict already pushed lose their strings.
            data[:-2] = [None] * (len(data) - 2)
            junk.extend("".join(["overwrite", str(n)]) * 3 for n in range(3000))
        return "".join(["fresh-", str(i)])

    assert stc.dumps(data, default=hook) == stc.encode(text)
    assert stc.decode(stc.encode(text)) == text


def test_non_finite_floats_still_refused() -> None:
    for bad in (math.inf, -math.inf, math.nan):
        with pytest.raises(ValueError, match="not JSON compliant"):
            stc.dumps({"x": [bad]})


# Long outputs (4 KiB and more) that are not ASCII are widened by the
# binding to their narrowest layout: the text and the layout must be what
# Python makes of the same text.
WIDE = [
    "caf\u00e9 ",
    "\u00ff\u0080",
    "\u4e2d\u6587 mixed \u00e9",
    "\uffff",
    "\U0001f600 smile \u00e9 \u4e2d",
    "\U0010ffff",
]


@pytest.mark.parametrize("piece", WIDE, ids=[str(i) for i in range(len(WIDE))])
@pytest.mark.parametrize("ascii_run", [0, 1, 7, 8, 9, 5000])
def test_long_outputs_in_every_layout(piece: str, ascii_run: int) -> None:
    value = {"k": ["a" * ascii_run + piece * 300, piece, "x" * 4096 + piece]}
    out = stc.dumps(value)
    rebuilt = "".join(list(out))  # a str Python builds, in its own narrowest layout
    assert out == rebuilt and sys.getsizeof(out) == sys.getsizeof(rebuilt)
    assert out == stc.encode(json.dumps(value, ensure_ascii=False))
    assert stc.loads(out) == value


def test_long_output_with_a_wide_character_last() -> None:
    for tail in ("\u00e9", "\u4e2d", "\U0001f600"):
        value = ["y" * 5000 + tail]
        out = stc.dumps(value)
        assert out == stc.encode(json.dumps(value, ensure_ascii=False))
        assert sys.getsizeof(out) == sys.getsizeof("".join(list(out)))


# Outputs below and above the core's 64 KiB writing chunk and the 8 KiB from
# which the GIL is released, ASCII and not: the text and its layout are
# Python's own, and nothing of one call is left in the next.
@pytest.mark.parametrize("size", [1_000, 20_000, 70_000, 1_000_000])
def test_outputs_of_every_size_and_layout(size: int) -> None:
    for tail in ("", "\u00e9", "\u4e2d", "\U0001f600"):
        # Items of about nine bytes each, distinct (no shorter form), so the
        # text is about `size` bytes, and one long string.
        value: list[Any] = [f"s{i:07d}" for i in range(size // 9)] + ["y" * 3000, "z" * 10 + tail]
        out = stc.dumps(value)
        assert out == stc.encode(json.dumps(value, ensure_ascii=False))
        assert out.isascii() == (tail == "")
        assert sys.getsizeof(out) == sys.getsizeof("".join(list(out)))
        # A small output right after a large one: nothing of the large one
        # left. (Not `tail` alone: a one-character str is CPython's shared
        # singleton, and reading its UTF-8 caches that in it for good, which
        # changes its getsizeof for the layout checks of later tests.)
        small = ["a", "b" + tail]
        assert stc.dumps(small) == stc.encode(json.dumps(small, ensure_ascii=False))


def test_outputs_of_threads_writing_at_once() -> None:
    # Large enough that the GIL is released while the core writes: the
    # threads' calls overlap, and each result is its own document's.
    docs = [[{"id": i, "who": f"thread {t} \u00e9" * (t % 2), "n": t} for i in range(3000)] for t in range(6)]
    expected = [stc.encode(json.dumps(d, ensure_ascii=False)) for d in docs]
    results: dict[int, list[bool]] = {t: [] for t in range(len(docs))}

    def work(t: int) -> None:
        for _ in range(20):
            results[t].append(stc.dumps(docs[t]) == expected[t])

    threads = [threading.Thread(target=work, args=(t,)) for t in range(len(docs))]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert all(len(r) == 20 and all(r) for r in results.values())
