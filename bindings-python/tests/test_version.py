"""The `version` keyword (design A): 1 (default) or 2 on every function that
reads or writes STC; the core's `Version` parser decides what is valid."""

from __future__ import annotations

import io
import typing
from collections.abc import Callable
from typing import Any

import pytest

import stc
from stc import _stc

TABLE_JSON = '[{"id":1,"name":"a"},{"id":2,"name":"b"}]'
TABLE_STC = '([2]{id,name}:1,"a"/2,"b")'
# A column group (design B.1): STC version 2 only.
V2_TEXT = '([2]{id,user{id,name},text}: 1,5,"bob","hi" / 2,6,"al","yo")'
V2_JSON = '[{"id":1,"user":{"id":5,"name":"bob"},"text":"hi"},{"id":2,"user":{"id":6,"name":"al"},"text":"yo"}]'


def _core_reads_v2() -> bool:
    try:
        return stc.decode(V2_TEXT, version=2) == V2_JSON
    except stc.STCDecodeError:
        return False


V2_READY = pytest.mark.skipif(not _core_reads_v2(), reason="stc-core does not read STC version 2 constructs yet")


def _dump(v: Any) -> str:
    out = io.StringIO()
    stc.dump([{"id": 1, "name": "a"}, {"id": 2, "name": "b"}], out, version=v)
    return out.getvalue()


CALLS: dict[str, Callable[[Any], Any]] = {
    "loads": lambda v: stc.loads(TABLE_STC, version=v),
    "load": lambda v: stc.load(io.StringIO(TABLE_STC), version=v),
    "decode": lambda v: stc.decode(TABLE_STC, version=v),
    "dumps": lambda v: stc.dumps([{"id": 1, "name": "a"}, {"id": 2, "name": "b"}], version=v),
    "dump": _dump,
    "encode": lambda v: stc.encode(TABLE_JSON, version=v),
    "encode_gated": lambda v: stc.encode_gated(TABLE_JSON, version=v).text,
    "truncate": lambda v: stc.truncate(TABLE_JSON, stash=None, version=v).text,
}
# The functions that write STC (the others read it).
WRITERS = {"dumps", "dump", "encode", "encode_gated", "truncate"}


def test_versions_come_from_the_core() -> None:
    assert stc.VERSIONS == ("1", "2")
    assert typing.get_args(stc.Version) == tuple(int(n) for n in stc.VERSIONS)
    assert [_stc._version(n) for n in (1, 2, "1", "2")] == [1, 2, 1, 2]


@pytest.mark.parametrize("name", sorted(CALLS))
@pytest.mark.parametrize("version", [1, 2, 2.0])
def test_every_function_takes_the_version(name: str, version: Any) -> None:
    got = CALLS[name](version)
    if name in WRITERS:
        # Version 2 may write forms version 1 has not (bare strings): read
        # back with the version it was written in, it is the same document.
        assert stc.decode(got, version=version) == TABLE_JSON
        if int(version) == 1:
            assert got == TABLE_STC
    else:
        # Version 1 text is version 2 text too: the same answer either way.
        assert got == CALLS[name](1)


@pytest.mark.parametrize("name", sorted(CALLS))
@pytest.mark.parametrize("bad", [0, 3, -1, 10**30, 2.5, -0.0])
def test_unknown_versions_are_the_cores_error(name: str, bad: Any) -> None:
    with pytest.raises(ValueError, match=r'unknown version ".*" \(expected one of: 1, 2\)'):
        CALLS[name](bad)


@pytest.mark.parametrize("name", sorted(CALLS))
@pytest.mark.parametrize("bad", [True, "2", "1", "v2", "", [2], b"2"])
def test_versions_of_the_wrong_type(name: str, bad: Any) -> None:
    with pytest.raises(TypeError, match="version must be a number"):
        CALLS[name](bad)


def test_defaults_are_version_1() -> None:
    assert stc.decode(TABLE_STC) == stc.decode(TABLE_STC, version=1) == TABLE_JSON
    assert stc.encode(TABLE_JSON) == stc.encode(TABLE_JSON, version=1) == TABLE_STC


@V2_READY
def test_a_v2_construct_needs_version_2() -> None:
    with pytest.raises(stc.STCDecodeError) as info:
        stc.decode(V2_TEXT)
    assert info.value.kind == "newer_version"
    with pytest.raises(stc.STCDecodeError) as info:
        stc.loads(V2_TEXT, version=1)
    assert info.value.kind == "newer_version"
    assert stc.loads(V2_TEXT, version=2) == [
        {"id": 1, "user": {"id": 5, "name": "bob"}, "text": "hi"},
        {"id": 2, "user": {"id": 6, "name": "al"}, "text": "yo"},
    ]
