"""Property tests (hypothesis): the laws that hold for every JSON value."""

from __future__ import annotations

import json
import math
import re
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

import stc

PROFILES = st.sampled_from(["compact", "readable"])

# Text without surrogates (JSON text written by json.dumps(ensure_ascii=False)
# must be UTF-8), and text that may hold lone surrogates (Python strings can).
TEXT = st.text(max_size=12)
# (st.characters never yields surrogates, so they are drawn as code points.)
# A high surrogate directly followed by a low one is left out: JSON text
# cannot tell that pair from the astral character it encodes (json.loads
# joins it too), so such a string is not expected to round-trip.
SURROGATE_TEXT = (
    st.lists(st.one_of(st.characters(), st.integers(0xD800, 0xDFFF).map(chr)), max_size=8)
    .map("".join)
    .filter(lambda s: not re.search("[\ud800-\udbff][\udc00-\udfff]", s))
)
KEYS = st.one_of(TEXT, st.sampled_from(["id", "name", "a_b", "x1", "_", "1a", "a-b", ""]))

SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.integers(min_value=-(10**60), max_value=10**60),
    st.floats(allow_nan=False, allow_infinity=False),
    TEXT,
)


def _values(scalars: st.SearchStrategy[Any], keys: st.SearchStrategy[str]) -> st.SearchStrategy[Any]:
    # Lists of same-shaped flat dicts exercise the columnar form; lists of
    # scalars the compact form.
    row = st.fixed_dictionaries({"id": st.integers(), "name": TEXT, "ok": st.booleans()})
    return st.recursive(
        scalars,
        lambda children: st.one_of(
            st.lists(children, max_size=6),
            st.dictionaries(keys, children, max_size=6),
            st.lists(row, min_size=2, max_size=5),
            st.lists(scalars, max_size=6),
        ),
        max_leaves=40,
    )


VALUES = _values(SCALARS, KEYS)
VALUES_WITH_SURROGATES = _values(st.one_of(SCALARS, SURROGATE_TEXT), st.one_of(KEYS, SURROGATE_TEXT))


def _same(a: Any, b: Any) -> bool:
    """Equality that also tells -0.0 from 0.0 (repr round-trips exactly)."""
    if isinstance(a, float) and isinstance(b, float):
        return math.copysign(1.0, a) == math.copysign(1.0, b) and a == b
    if type(a) is not type(b):
        return False
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=False))
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    return bool(a == b)


@settings(max_examples=300, deadline=None)
@given(VALUES_WITH_SURROGATES, PROFILES)
def test_loads_dumps_round_trip(value: Any, profile: str) -> None:
    assert _same(stc.loads(stc.dumps(value, profile=profile)), value)  # type: ignore[arg-type]


@settings(max_examples=300, deadline=None)
@given(VALUES, PROFILES)
def test_dumps_is_encode_of_json_dumps(value: Any, profile: str) -> None:
    """dumps writes exactly what encode makes of json.dumps' text."""
    assert stc.dumps(value, profile=profile) == stc.encode(json.dumps(value), profile=profile)  # type: ignore[arg-type]


@settings(max_examples=300, deadline=None)
@given(VALUES, PROFILES)
def test_decode_encode_gives_minified_json(value: Any, profile: str) -> None:
    """decode(encode(j)) is j minified, with json's own escaping (canonical)."""
    minified = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    spaced = json.dumps(value, indent=1, ensure_ascii=True)
    assert stc.decode(stc.encode(spaced, profile=profile)) == minified  # type: ignore[arg-type]


@settings(max_examples=300, deadline=None)
@given(VALUES)
def test_loads_agrees_with_json_loads_on_json(value: Any) -> None:
    text = json.dumps(value, indent=2)
    assert _same(stc.loads(text), json.loads(text))


@settings(max_examples=200, deadline=None)
@given(VALUES, PROFILES)
def test_gate_output_always_decodes_to_the_input(value: Any, profile: str) -> None:
    text = json.dumps(value)
    result = stc.encode_gated(text, profile=profile)  # type: ignore[arg-type]
    assert result.chosen in ("stc", "json")
    assert stc.decode(result.text) == stc.decode(text)
    if result.chosen == "stc":
        assert result.stc_tokens < result.json_tokens


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=40))
def test_arbitrary_text_never_crashes(text: str) -> None:
    try:
        stc.loads(text)
    except stc.STCDecodeError as err:
        assert 0 <= err.pos <= len(text)
        assert err.offset == len(text[: err.pos].encode("utf-8"))
