"""Uses every public function of `stc` with precise types.

Checked by `mypy --strict` in test.sh and run by the test suite, so the stubs
and the module cannot drift apart.
"""

from __future__ import annotations

import decimal
import io
import json
from typing import Any

import stc


def pairs(items: list[tuple[str, Any]]) -> list[tuple[str, Any]]:
    return items


def main() -> None:
    # Three lines: decode STC to Python objects.
    rows = stc.loads('([2]{id,name}: 1,"users" / 2,"orders")')
    assert rows == [{"id": 1, "name": "users"}, {"id": 2, "name": "orders"}]

    exact: Any = stc.loads("{a: 1.10, a: 2}", parse_float=decimal.Decimal, object_pairs_hook=pairs)
    assert exact == [("a", decimal.Decimal("1.10")), ("a", 2)]
    counted: Any = stc.loads(b"([3]: 1,2,3)", parse_int=lambda s: int(s) * 10, max_depth=8)
    assert counted == [10, 20, 30]
    hooked: Any = stc.loads(bytearray(b"{a: 1}"), object_hook=lambda d: sorted(d))
    assert hooked == ["a"]

    text: str = stc.dumps({"tags": ["a", "b"]}, profile="readable", sort_keys=True)
    assert text == '{tags: ["a", "b"]}'
    assert stc.dumps({1: {2, 3}}, default=sorted, skipkeys=False, max_depth=16) == '{"1":[2,3]}'

    encoded: str = stc.encode('{"a": [1, 2]}', profile="compact", max_depth=64)
    decoded: str = stc.decode(encoded, max_depth=64)
    assert (encoded, decoded) == ("{a:[1,2]}", '{"a":[1,2]}')
    assert stc.decode_stc(encoded) == decoded

    gate: stc.GateResult = stc.encode_gated("[1, 2, 3]", profile="compact", min_saving=0.05, tokenizer="estimate")
    chosen: str = gate.chosen
    tokens: int = gate.json_tokens + gate.stc_tokens
    assert (gate.text, chosen, tokens > 0) == ("[1,2,3]", "json", True)
    assert stc.count_tokens("hello world", "estimate") == 2
    # Exact counts: any callable str -> int or str -> tokens (tiktoken's encode).
    counter: stc.TokenCounter = str.split
    assert stc.count_tokens("hello world", counter) == 2
    counted = stc.encode_gated("[1, 2, 3]", tokenizer=lambda text: len(text.encode()), version=2)
    assert (counted.json_tokens, counted.stc_tokens) == (7, 7)
    assert stc.decode(encoded, version=2) == stc.decode(encoded, version=1) == decoded

    out = io.StringIO()
    stc.dump({"k": None}, out, profile="compact")
    back: dict[str, Any] = stc.load(io.StringIO(out.getvalue()))
    assert back == {"k": None}

    try:
        stc.loads("{a[3]: 1,2}")
    except stc.STCDecodeError as err:
        where: tuple[str, int, int, int, int, str, int] = (
            err.msg,
            err.pos,
            err.lineno,
            err.colno,
            err.offset,
            err.kind,
            len(err.doc),
        )
        assert where[5] == "count_mismatch"
        assert isinstance(err, json.JSONDecodeError)
    else:
        raise AssertionError("expected STCDecodeError")

    memory = stc.MemoryStash(capacity=10)
    big = json.dumps({"rows": [{"id": i, "ok": i % 7 != 0} for i in range(200)]})
    cut: stc.Truncation = stc.truncate(big, stash=memory, budget=100, retrieve_tool="stc_retrieve")
    why: stc.Kept | None = cut.kept
    parts: tuple[stc.Omission, ...] = cut.omissions
    assert cut.truncated and why is None and parts and len(memory) == 1
    original: str = stc.retrieve(cut.keys[0], stash=memory)
    assert original == memory.retrieve(cut.keys[0])
    try:
        stc.retrieve("not a key", stash=memory)
    except stc.StashError as e:
        kind: stc.StashErrorKind = e.kind
        assert kind == "invalid_key" and not e.retryable and e.key is None
    with stc.MemoryStash(ttl=60.0) as other:
        assert stc.truncate(big, stash=None).kept == "no_store" and len(other) == 0

    version: str = stc.__version__
    assert version and stc.MEDIA_TYPE == "application/stc+json" and stc.STC_VERSION == 1
    assert stc.MAX_DEPTH_LIMIT >= 128


if __name__ == "__main__":
    main()
    print("ok")
