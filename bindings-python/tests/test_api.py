"""The json-module-like API: loads, dumps, encode, decode, load, dump."""

from __future__ import annotations

import decimal
import enum
import io
import json
import math
import random
import struct
import threading
from collections import OrderedDict
from typing import Any

import pytest

import stc

TABLE = '([2]{id,name,method}: 1,"users","GET" / 2,"orders","POST")'
TABLE_JSON = '[{"id":1,"name":"users","method":"GET"},{"id":2,"name":"orders","method":"POST"}]'


# ---- loads -------------------------------------------------------------------


def test_loads_stc_extensions() -> None:
    assert stc.loads(TABLE) == json.loads(TABLE_JSON)
    assert stc.loads('{tags[3]: "api","gateway","mcp", scores[3]: 95,87,91}') == {
        "tags": ["api", "gateway", "mcp"],
        "scores": [95, 87, 91],
    }
    assert stc.loads("{a: {b: [1]: true}}") == {"a": {"b": [True]}}


def test_loads_plain_json_like_json_loads() -> None:
    doc = '{"a": [1, 2.5, -0.0, 1e3, "x\\u00e9\\n", null, true, false, {}], "b": {"c": []}}'
    assert stc.loads(doc) == json.loads(doc)


@pytest.mark.parametrize("value", [0, -1, 2**63 - 1, -(2**63), 2**63, 10**40, -(10**300) + 7])
def test_loads_integers_exact(value: int) -> None:
    result = stc.loads(str(value))
    assert type(result) is int and result == value


def test_loads_number_types() -> None:
    assert stc.loads("[1, 1.0, 1e2, 1E-2, -0]") == [1, 1.0, 100.0, 0.01, 0]
    assert [type(v) for v in stc.loads("[1, 1.0, 1e2]")] == [int, float, float]
    assert stc.loads("1e400") == float("inf")  # as json.loads


def test_loads_parse_float_and_parse_int_get_lexemes() -> None:
    assert stc.loads("[1.10, 2e0]", parse_float=decimal.Decimal) == [decimal.Decimal("1.10"), decimal.Decimal("2e0")]
    seen: list[str] = []

    def keep(lexeme: str) -> str:
        seen.append(lexeme)
        return lexeme

    assert stc.loads("[7, -0, 12345678901234567890123]", parse_int=keep) == [
        "7",
        "-0",
        "12345678901234567890123",
    ]
    assert seen == ["7", "-0", "12345678901234567890123"]


def test_loads_duplicate_keys() -> None:
    text = "{a: 1, a: 2, b: 3}"
    assert stc.loads(text) == {"a": 2, "b": 3}  # last wins, as json.loads
    assert stc.loads(text, object_pairs_hook=list) == [("a", 1), ("a", 2), ("b", 3)]
    assert stc.loads(text, object_pairs_hook=OrderedDict) == OrderedDict([("a", 2), ("b", 3)])
    # Columnar rows go through the hook too.
    assert stc.loads("([2]{k,k}: 1,2 / 3,4)", object_pairs_hook=list) == [[("k", 1), ("k", 2)], [("k", 3), ("k", 4)]]


def test_loads_object_hook() -> None:
    assert stc.loads(TABLE, object_hook=lambda d: d["id"]) == [1, 2]
    # object_pairs_hook has priority, as in json.loads.
    assert stc.loads("{a: 1}", object_hook=lambda d: "hook", object_pairs_hook=lambda p: "pairs") == "pairs"


def test_loads_strings() -> None:
    assert stc.loads('"caf\\u00e9 \\ud83d\\ude00 \\/"') == "café 😀 /"
    assert stc.loads('"\\ud800"') == "\ud800"  # lone surrogate kept, as json.loads
    assert stc.loads('{"\\udc00": 1}') == {"\udc00": 1}
    assert stc.loads('"é€😀"') == "é€😀"


def test_loads_accepts_bytes_and_bytearray() -> None:
    assert stc.loads(TABLE.encode()) == stc.loads(TABLE)
    assert stc.loads(bytearray(b"{a[2]: 1,2}")) == {"a": [1, 2]}


class HookError(Exception):
    pass


@pytest.mark.parametrize(
    "hook",
    ["object_hook", "object_pairs_hook", "parse_float", "parse_int"],
)
def test_a_hooks_exception_comes_back_as_itself(hook: str) -> None:
    # The builder is a stc-core Sink whose error type is the Python exception:
    # the parser hands it back unchanged, with its traceback, at the first call.
    error = HookError(hook)
    calls = 0

    def raising(_: Any) -> Any:
        nonlocal calls
        calls += 1
        raise error

    with pytest.raises(HookError) as info:
        hooks: dict[str, Any] = {hook: raising}
        stc.loads("([2]{a,b}: 1.5,2 / 3.5,4)", **hooks)
    assert info.value is error
    assert calls == 1
    assert info.value.__traceback__ is not None


def test_loads_rejects_other_types() -> None:
    with pytest.raises(TypeError, match="str, bytes or bytearray"):
        stc.loads(12)  # type: ignore[arg-type]


def test_loads_max_depth() -> None:
    deep = "[" * 200 + "]" * 200
    with pytest.raises(stc.STCDecodeError) as info:
        stc.loads(deep)
    assert info.value.kind == "depth_limit"
    assert stc.loads(deep, max_depth=200) is not None
    with pytest.raises(stc.STCDecodeError):
        stc.loads("[[1]]", max_depth=1)


def test_loads_repeated_keys_are_shared_objects() -> None:
    rows = stc.loads("([3]{name}: 1 / 2 / 3)")
    assert rows[0].keys() == rows[2].keys() == {"name"}


def test_load_from_file() -> None:
    assert stc.load(io.StringIO(TABLE)) == json.loads(TABLE_JSON)
    assert stc.load(io.BytesIO(TABLE.encode())) == json.loads(TABLE_JSON)


# ---- dumps -------------------------------------------------------------------


def test_dumps_profiles() -> None:
    rows = json.loads(TABLE_JSON)
    assert stc.dumps(rows) == '([2]{id,name,method}:1,"users","GET"/2,"orders","POST")'
    # The readable profile breaks lines after a table header (spec 5.6).
    assert stc.dumps(rows, profile="readable") == '([2]{id,name,method}:\n  1,"users","GET" /\n  2,"orders","POST")'
    assert stc.loads(stc.dumps(rows, profile="readable")) == rows == stc.loads(TABLE)
    assert stc.dumps({"tags": ["a", "b"], "n": None}) == '{tags:["a","b"],n:null}'


def test_dumps_matches_encode_of_json_dumps() -> None:
    value = {"a": [1, 2.5, 1e300, -0.0, 10**30, True, None, 'é\n"\\'], "b c": {"d": []}}
    assert stc.dumps(value) == stc.encode(json.dumps(value))
    assert stc.dumps(value, profile="readable") == stc.encode(json.dumps(value), profile="readable")


def test_dumps_numbers_like_json_dumps() -> None:
    for x in [0.1, 1e16, 1e-5, 123456789.123, 5e-324, 1.7976931348623157e308, -0.0, 2**70, -5]:
        assert stc.decode(stc.dumps(x)) == json.dumps(x)


def test_dumps_floats_match_repr() -> None:
    """dumps spells floats as float.__repr__ does (json.dumps' lexemes)."""
    rng = random.Random(66)
    values: list[float] = []
    while len(values) < 100_000:
        x = struct.unpack("<d", rng.getrandbits(64).to_bytes(8, "little"))[0]
        if math.isfinite(x):
            values.append(x)
    values += [rng.uniform(-1e6, 1e6) for _ in range(20_000)]
    scaled = [m * 10.0**k for k in range(-330, 309) for m in (1.0, 1.5, 9.999999999999999, 0.3)]
    values += [x for x in scaled if math.isfinite(x)]
    values += [1e16, 1e15, 9999999999999998.0, 1e-4, 1e-5, 0.00009999, 5e-324, 1.7976931348623157e308, 0.1 + 0.2]
    assert stc.decode(stc.dumps(values)) == json.dumps(values, separators=(",", ":"))


class Color(enum.IntEnum):
    RED = 1


class Name(str):
    pass


class Floaty(float):
    def __repr__(self) -> str:
        return "not a number"


def test_dumps_subclasses() -> None:
    value = {"c": Color.RED, "n": Name("x"), "f": Floaty(1.5), "t": (1, 2), "o": OrderedDict(z=1)}
    assert stc.decode(stc.dumps(value)) == json.dumps(value, separators=(",", ":"))


def test_dumps_keys_like_json() -> None:
    value = {7: "a", 2.5: "b", True: "c", None: "d"}
    assert stc.decode(stc.dumps(value)) == json.dumps(value, separators=(",", ":"))
    with pytest.raises(TypeError, match="keys must be"):
        stc.dumps({(1, 2): 3})
    assert stc.dumps({(1, 2): 3, "k": 4}, skipkeys=True) == "{k:4}"
    assert stc.dumps({"b": 1, "a": 2}, sort_keys=True) == "{a:2,b:1}"


def test_dumps_default_hook() -> None:
    assert stc.dumps({"d": decimal.Decimal("1.5")}, default=str) == '{d:"1.5"}'
    with pytest.raises(TypeError, match="not JSON serializable"):
        stc.dumps({"s": {1, 2}})
    # A hook that never converts ends in an error, not in a crash.
    with pytest.raises(ValueError, match="default hook"):
        stc.dumps(object(), default=lambda o: object())
    with pytest.raises(ZeroDivisionError):
        stc.dumps(object(), default=lambda o: 1 / 0)


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -float("inf")])
def test_dumps_rejects_non_finite_floats(bad: float) -> None:
    with pytest.raises(ValueError, match="not JSON compliant"):
        stc.dumps([bad])
    with pytest.raises(ValueError, match="not JSON compliant"):
        stc.dumps({bad: 1})


def test_dumps_cycles_and_depth() -> None:
    loop: list[Any] = []
    loop.append(loop)
    with pytest.raises(ValueError, match="circular"):
        stc.dumps(loop)
    d: dict[str, Any] = {}
    d["d"] = d
    with pytest.raises(ValueError):
        stc.dumps(d)
    nested: Any = 1
    for _ in range(100_000):
        nested = [nested]
    with pytest.raises(ValueError):
        stc.dumps(nested)
    assert stc.loads(stc.dumps(_nest(500), max_depth=500), max_depth=500) == _nest(500)


def _nest(n: int) -> Any:
    value: Any = "x"
    for _ in range(n):
        value = [value]
    return value


def test_dumps_lone_surrogates() -> None:
    assert stc.dumps("a\ud800b") == '"a\\ud800b"'
    assert stc.dumps({"\udfff": 1}) == '{"\\udfff":1}'
    assert stc.loads(stc.dumps(["\ud800", {"\udc00k": "\ud83d"}])) == ["\ud800", {"\udc00k": "\ud83d"}]


def test_dump_to_file() -> None:
    out = io.StringIO()
    stc.dump({"a": [1, 2]}, out, profile="readable")
    assert out.getvalue() == "{a: [1, 2]}"


def test_bad_profile() -> None:
    with pytest.raises(ValueError, match="profile"):
        stc.dumps(1, profile="fancy")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="profile"):
        stc.encode("1", profile="fancy")  # type: ignore[arg-type]


# ---- encode / decode ---------------------------------------------------------


def test_encode_decode_text() -> None:
    json_text = '{"a": 1.0, "a": [1e3, -0, 1234567890123456789012345678901234567890], "s": "\\u00e9\\ud800"}'
    encoded = stc.encode(json_text, profile="readable")
    assert encoded == '{a: 1.0, a: [1e3, -0, 1234567890123456789012345678901234567890], s: "é\\ud800"}'
    assert stc.decode(encoded) == '{"a":1.0,"a":[1e3,-0,1234567890123456789012345678901234567890],"s":"é\\ud800"}'
    assert stc.encode(json_text.encode()) == stc.encode(json_text)
    assert stc.decode(encoded.encode()) == stc.decode(encoded)


def test_decode_stc_alias() -> None:
    assert stc.decode_stc is stc.decode
    assert stc.decode_stc(TABLE) == TABLE_JSON


def test_encode_rejects_stc_and_invalid_json() -> None:
    with pytest.raises(stc.STCDecodeError) as info:
        stc.encode("{a: 1}")
    assert info.value.kind == "unexpected_char"
    assert info.value.doc == "{a: 1}"
    with pytest.raises(stc.STCDecodeError):
        stc.encode("[NaN]")


def test_large_inputs_across_threads() -> None:
    """Large inputs release the GIL; results stay correct under concurrency."""
    rows = [{"id": i, "name": f"user{i}", "ok": i % 2 == 0} for i in range(5000)]
    json_text = json.dumps(rows)
    expected_stc = stc.encode(json_text)
    results: list[tuple[str, str, str]] = []

    def work() -> None:
        for _ in range(5):
            s = stc.encode(json_text)
            results.append((s, stc.decode(s), stc.dumps(rows)))

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 20
    minified = json.dumps(rows, separators=(",", ":"))
    assert all(r == (expected_stc, minified, expected_stc) for r in results)


def test_module_constants() -> None:
    assert stc.MEDIA_TYPE == "application/stc+json"
    assert stc.STC_VERSION == 1
    assert stc.MAX_DEPTH_LIMIT == 1024
    assert isinstance(stc.__version__, str) and stc.__version__


def test_dumps_reads_dicts_in_place_only_when_nothing_can_change_them() -> None:
    # Without `default` an exact dict is read in place (no Python code runs);
    # with a `default` hook that mutates the dict, the walk keeps its snapshot.
    class Marker:
        pass

    d: dict[str, Any] = {"a": Marker(), "b": 1}

    def default(_: Any) -> str:
        d.clear()
        d["z"] = 9
        return "x"

    assert stc.dumps(d, default=default) == '{a:"x",b:1}'
    assert stc.dumps(d) == "{z:9}"

    class Sub(dict):  # type: ignore[type-arg]
        pass

    rows = [{"id": i, "tags": {"k": i}} for i in range(3)]
    assert stc.dumps([Sub(r) for r in rows]) == stc.dumps(rows) == stc.encode(json.dumps(rows))
