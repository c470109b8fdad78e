"""STC: a token-efficient, lossless text encoding of JSON for LLM tool responses.

The API follows the :mod:`json` module::

    >>> import stc
    >>> stc.loads('([2]{id,name}: 1,"users" / 2,"orders")')
    [{'id': 1, 'name': 'users'}, {'id': 2, 'name': 'orders'}]
    >>> stc.dumps({"tags": ["api", "mcp"], "n": 3})
    '{tags:["api","mcp"],n:3}'

Text to text, losslessly (number lexemes, key order and duplicate keys kept)::

    >>> stc.encode('{"a": 1.0, "a": [1, 2]}', profile="readable")
    '{a: 1.0, a: [1, 2]}'
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

from ._files import dump, load
from ._stc import (
    ERROR_CODES,
    MAX_DEPTH_LIMIT,
    MEDIA_TYPE,
    MEMORY_STASH_DEFAULT_CAPACITY,
    PROFILES,
    STASH_DEFAULT_CAPACITY,
    STASH_DEFAULT_TTL,
    STC_VERSION,
    TOKENIZERS,
    VERSIONS,
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
    TokenCounter,
    Tokenizer,
    Truncation,
    Version,
)

#: Alias of :func:`decode`, the name used by ADR-066's reference snippet.
decode_stc = decode

__all__ = [
    "ERROR_CODES",
    "MAX_DEPTH_LIMIT",
    "MEDIA_TYPE",
    "MEMORY_STASH_DEFAULT_CAPACITY",
    "PROFILES",
    "STASH_DEFAULT_CAPACITY",
    "STASH_DEFAULT_TTL",
    "STC_VERSION",
    "TOKENIZERS",
    "VERSIONS",
    "GateResult",
    "Kept",
    "MemoryStash",
    "Omission",
    "Profile",
    "STCDecodeError",
    "SqliteStash",
    "StashError",
    "StashErrorKind",
    "TokenCounter",
    "Tokenizer",
    "Truncation",
    "Version",
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
load.__module__ = __name__
dump.__module__ = __name__


def __dir__() -> list[str]:
    """``dir(stc)``: the public API only (``__all__``), not the private
    submodules ``_stc``, ``_types`` and ``_files``."""
    return sorted(__all__)
