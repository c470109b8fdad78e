"""Type stubs of the native module ``stc._stc`` (re-exported by ``stc``)."""

import os
from collections.abc import Callable
from types import TracebackType
from typing import Any, Final

from ._types import GateResult, Profile, TokenCounter, Tokenizer, Truncation, Version

__version__: Final[str]
#: The STC version read and written (the ``X-STC-Version`` header).
STC_VERSION: Final[int]
#: ``application/stc+json``.
MEDIA_TYPE: Final[str]
#: Formerly the largest ``max_depth`` honoured (1024). Any ``max_depth`` is
#: honoured now: nothing recurses on nesting depth.
MAX_DEPTH_LIMIT: Final[int]
#: How long a stash entry lives after its last write, in seconds (7 days).
STASH_DEFAULT_TTL: Final[float]
#: How many live entries a :class:`SqliteStash` keeps (FIFO beyond it).
STASH_DEFAULT_CAPACITY: Final[int]
#: How many live entries a :class:`MemoryStash` keeps (FIFO beyond it).
MEMORY_STASH_DEFAULT_CAPACITY: Final[int]
#: Every error ``kind`` of :class:`STCDecodeError` (stc-core's ``ErrorKind`` codes).
ERROR_CODES: Final[tuple[str, ...]]
#: The profile names :func:`encode` and :func:`dumps` accept (see ``Profile``).
PROFILES: Final[tuple[str, ...]]
#: The STC versions the ``version`` keyword accepts, as names (see ``Version``).
VERSIONS: Final[tuple[str, ...]]
#: The built-in tokenizer names :func:`encode_gated`, :func:`count_tokens` and
#: :func:`truncate` accept (see ``Tokenizer``; exact counts: a ``TokenCounter``).
TOKENIZERS: Final[tuple[str, ...]]

_Text = str | bytes | bytearray

def loads(
    s: _Text,
    *,
    object_hook: Callable[[dict[str, Any]], Any] | None = None,
    parse_float: Callable[[str], Any] | None = None,
    parse_int: Callable[[str], Any] | None = None,
    object_pairs_hook: Callable[[list[tuple[str, Any]]], Any] | None = None,
    max_depth: int | None = None,
    version: Version = 1,
) -> Any:
    """Parse STC (or plain JSON) text to Python objects, like :func:`json.loads`.

    Integers of any size stay exact ints; other numbers are floats unless
    ``parse_float`` is given (e.g. ``decimal.Decimal``). ``object_pairs_hook``
    receives every member in order, duplicates included; without it, the last
    duplicate wins as in :mod:`json`. ``max_depth`` bounds nesting (default
    128; any value is honoured: nothing recurses). ``version=2`` reads STC version 2 as
    well (version 1 refuses its constructs with ``newer_version``). Raises
    :class:`STCDecodeError`.
    """

def dumps(
    obj: Any,
    *,
    profile: Profile = "compact",
    default: Callable[[Any], Any] | None = None,
    sort_keys: bool = False,
    skipkeys: bool = False,
    max_depth: int | None = None,
    version: Version = 1,
) -> str:
    """Serialize ``obj`` to STC text, like :func:`json.dumps`.

    Accepts dict, list, tuple, str, int, float, bool and None (and their
    subclasses); ``default`` converts anything else. Raises ``TypeError`` for
    unsupported objects or keys, ``ValueError`` for NaN/infinity and for
    nesting deeper than ``max_depth`` (circular references included).
    """

def encode(
    json_text: _Text, *, profile: Profile = "compact", max_depth: int | None = None, version: Version = 1
) -> str:
    """Encode JSON text as STC text. Raises :class:`STCDecodeError` for invalid JSON."""

def decode(stc_text: _Text, *, max_depth: int | None = None, version: Version = 1) -> str:
    """Decode STC (or JSON) text to minified JSON text, losslessly.

    Number lexemes, key order and duplicate keys are kept; strings come out
    canonically escaped. Raises :class:`STCDecodeError`.
    """

def encode_gated(
    json_text: _Text,
    *,
    profile: Profile = "compact",
    min_saving: float = 0.05,
    tokenizer: Tokenizer | TokenCounter = "estimate",
    max_depth: int | None = None,
    version: Version = 1,
) -> GateResult:
    """The do-no-harm gate: STC only if it saves at least ``min_saving`` of
    the tokens of minified JSON, else minified JSON (valid STC too).
    ``min_saving`` outside 0 to 1 is a ``ValueError`` (stc-core's message).

    ``tokenizer`` is ``"estimate"`` (fast, built in) or a :data:`TokenCounter`
    for exact counts, e.g. ``tiktoken.get_encoding("o200k_base").encode``;
    what the counter raises comes back as it is."""

def count_tokens(text: _Text, tokenizer: Tokenizer | TokenCounter = "estimate") -> int:
    """Number of tokens of ``text``: the fast estimate, or what a
    :data:`TokenCounter` says (``len`` of its result if it is not an ``int``)."""

class SqliteStash:
    """The SQLite stash file shared by every ``stc`` process of the user.

    ``path=None`` is the CLI's file: ``$STC_STASH_DB``, else
    ``DATA_DIR/stash.db`` where ``DATA_DIR`` is ``$STC_DATA_DIR`` or
    ``~/.local/share/stc`` under the real home directory. A path must be
    absolute, without ``..``, inside the real home or ``DATA_DIR``, and not a
    symlink (the CLI's policy). Entries live ``ttl`` seconds after their last
    write (default 7 days); beyond ``capacity`` live entries the oldest writes
    are evicted. Raises :class:`StashError` (``config`` for a refused path,
    ``unavailable`` when the file cannot be opened).
    """

    def __init__(
        self, path: str | os.PathLike[str] | None = None, *, ttl: float | None = None, capacity: int | None = None
    ) -> None: ...
    @property
    def path(self) -> str:
        """The database file, after the path policy (canonical directory)."""
    def retrieve(self, key: str) -> str:
        """The original stashed under ``key``; see :func:`retrieve`."""
    def close(self) -> None:
        """Closes the database; later calls raise ``StashError`` (kind ``closed``)."""
    def __len__(self) -> int: ...
    def __enter__(self) -> SqliteStash: ...
    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> bool: ...

class MemoryStash:
    """A stash in this process's memory (tests, one process; default capacity
    1000 entries, TTL 7 days). Other processes cannot read it."""

    def __init__(self, *, ttl: float | None = None, capacity: int | None = None) -> None: ...
    def retrieve(self, key: str) -> str:
        """The original stashed under ``key``; see :func:`retrieve`."""
    def close(self) -> None:
        """Drops the entries; later calls raise ``StashError`` (kind ``closed``)."""
    def __len__(self) -> int: ...
    def __enter__(self) -> MemoryStash: ...
    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> bool: ...

def truncate(
    json_text: _Text,
    *,
    stash: SqliteStash | MemoryStash | None,
    budget: int | None = None,
    truncate_arrays_at: int | None = None,
    lossy: bool = False,
    retrieve_tool: str | None = None,
    tokenizer: Tokenizer = "estimate",
    max_depth: int | None = None,
    version: Version = 1,
) -> Truncation:
    """Budget-sized compact STC of a JSON response: long arrays and strings
    are cut, what is cut is stashed in ``stash``, and a marker in the output
    says how much is missing and how to get it back.

    ``truncate_arrays_at`` keeps at most N records per record array (default
    32); ``budget`` halves the budgets until the output has at most that many
    tokens. With ``stash=None`` nothing is cut (``kept == "no_store"``) unless
    ``lossy=True``, whose markers say ``recoverable: false``.
    ``version`` is the STC version ``text`` is written (and measured) in.
    ``retrieve_tool`` makes markers name a tool call instead of
    ``stc retrieve KEY``. Raises :class:`STCDecodeError` for invalid JSON and
    :class:`StashError` when the store fails (nothing written stays).
    """

def retrieve(key: str, *, stash: SqliteStash | MemoryStash) -> str:
    """The exact original stashed under ``key`` (24 lowercase hex characters).

    Raises :class:`StashError`: ``invalid_key`` (checked before the store is
    read), ``not_found`` or ``expired`` (``retryable`` False: re-run the tool
    call), ``unavailable`` (``retryable`` True). A retrieved original is never
    truncated again by this store.
    """

def _version(version: Version | str) -> Version:
    """The version number ``version`` names (1 or 2), checked by stc-core;
    ``ValueError`` for an unknown one (used by :mod:`stc.http`)."""

def _dumps_split(obj: Any, loops: int) -> tuple[float, float, float]:
    """A benchmark helper (``bench/split.py``): the best time in seconds, over
    ``loops`` runs, of each stage of ``dumps(obj)`` with the default options:
    the walk of the objects into the core's builder, ``finish``, and the
    core's planning and writing of STC."""
