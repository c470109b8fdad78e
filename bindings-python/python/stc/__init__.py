"""STC: a token-efficient, lossless text encoding of JSON for LLM tool responses.

The API follows the :mod:`json` module::

    >>> import stc
    >>> stc.loads('[2]{id,name}: 1,"users" / 2,"orders"')
    [{'id': 1, 'name': 'users'}, {'id': 2, 'name': 'orders'}]
    >>> stc.dumps({"tags": ["api", "mcp"], "n": 3})
    '{tags[2]:"api","mcp",n:3}'

Text to text, losslessly (number lexemes, key order and duplicate keys kept)::

    >>> stc.encode('{"a": 1.0, "a": [1, 2]}', profile="readable")
    '{a: 1.0, a[2]: 1,2}'
    >>> stc.decode('{a: 1.0, a[2]: 1,2}')
    '{"a":1.0,"a":[1,2]}'

Budget-sized output for large responses: what is cut is stashed, and markers
in the output say how to get it back (``stc retrieve KEY`` in a shell, or
:func:`retrieve`)::

    with stc.SqliteStash() as stash:     # the CLI's stash file
        out = stc.truncate(big_json, stash=stash, budget=1000)
        send(out.text)
        original = stc.retrieve(out.keys[0], stash=stash)

Every JSON text is also STC text, so ``loads`` and ``decode`` read plain JSON
too. All format logic lives in the Rust crate ``stc-core``; this package only
converts types and errors.
"""

from __future__ import annotations

from typing import Any, Callable, Protocol

from ._stc import (
    MAX_DEPTH_LIMIT,
    MEDIA_TYPE,
    MEMORY_STASH_DEFAULT_CAPACITY,
    STASH_DEFAULT_CAPACITY,
    STASH_DEFAULT_TTL,
    STC_VERSION,
    MemoryStash,
    SqliteStash,
    __version__,
    count_tokens,
    decode,
    dumps,
    encode,
    encode_gated,
    loads,
    retrieve,
    truncate,
)
from ._types import (
    GateResult,
    Kept,
    Omission,
    Profile,
    StashError,
    StashErrorKind,
    STCDecodeError,
    Tokenizer,
    Truncation,
)

#: Alias of :func:`decode`, the name used by ADR-066's reference snippet.
decode_stc = decode


class _SupportsRead(Protocol):
    def read(self) -> str | bytes: ...


class _SupportsWrite(Protocol):
    def write(self, s: str, /) -> object: ...


def load(
    fp: _SupportsRead,
    *,
    object_hook: Callable[[dict[str, Any]], Any] | None = None,
    parse_float: Callable[[str], Any] | None = None,
    parse_int: Callable[[str], Any] | None = None,
    object_pairs_hook: Callable[[list[tuple[str, Any]]], Any] | None = None,
    max_depth: int | None = None,
) -> Any:
    """Like :func:`loads`, reading the text from a file object."""
    return loads(
        fp.read(),
        object_hook=object_hook,
        parse_float=parse_float,
        parse_int=parse_int,
        object_pairs_hook=object_pairs_hook,
        max_depth=max_depth,
    )


def dump(
    obj: Any,
    fp: _SupportsWrite,
    *,
    profile: Profile = "compact",
    default: Callable[[Any], Any] | None = None,
    sort_keys: bool = False,
    skipkeys: bool = False,
    max_depth: int | None = None,
) -> None:
    """Like :func:`dumps`, writing the text to a file object."""
    fp.write(
        dumps(
            obj,
            profile=profile,
            default=default,
            sort_keys=sort_keys,
            skipkeys=skipkeys,
            max_depth=max_depth,
        )
    )


__all__ = [
    "MAX_DEPTH_LIMIT",
    "MEDIA_TYPE",
    "MEMORY_STASH_DEFAULT_CAPACITY",
    "STASH_DEFAULT_CAPACITY",
    "STASH_DEFAULT_TTL",
    "STC_VERSION",
    "GateResult",
    "Kept",
    "MemoryStash",
    "Omission",
    "Profile",
    "STCDecodeError",
    "SqliteStash",
    "StashError",
    "StashErrorKind",
    "Tokenizer",
    "Truncation",
    "__version__",
    "count_tokens",
    "decode",
    "decode_stc",
    "dump",
    "dumps",
    "encode",
    "encode_gated",
    "load",
    "loads",
    "retrieve",
    "truncate",
]

# Show the public names in reprs and tracebacks (pickling resolves them too).
STCDecodeError.__module__ = __name__
GateResult.__module__ = __name__
StashError.__module__ = __name__
Omission.__module__ = __name__
Truncation.__module__ = __name__
