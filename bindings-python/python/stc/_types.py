"""The exception and result classes of :mod:`stc` (pure Python).

They live here, not in the native module, so that ``STCDecodeError`` can
subclass :class:`json.JSONDecodeError` and ``GateResult`` can be a
:class:`typing.NamedTuple`; the native module imports them when it needs them.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sized
from typing import Literal, NamedTuple

#: The encoder's output profiles: ``compact`` (no optional whitespace, the
#: default) and ``readable`` (ADR-066 spacing).
Profile = Literal["compact", "readable"]

#: The STC versions: 1 (the default everywhere) and 2 (1 plus column groups,
#: ``~`` absent cells and keyed tables; a version 2 reader reads every
#: version 1 text). The strings ``"1"`` and ``"2"`` are accepted too.
Version = Literal[1, 2]

#: The built-in token counter: ``estimate``, a fast arithmetic estimate of
#: o200k_base. Exact counts come from a :data:`TokenCounter`.
Tokenizer = Literal["estimate"]

#: A caller's token counter, accepted wherever a ``tokenizer`` is: called with
#: a ``str``, it returns the number of tokens (``int``) or the tokens
#: themselves (anything with a length, e.g. the list of token ids of
#: ``tiktoken.get_encoding("o200k_base").encode``). An exception it raises
#: comes back from the call as it is.
TokenCounter = Callable[[str], int | Sized]


class STCDecodeError(json.JSONDecodeError):
    """Invalid STC or JSON text.

    A subclass of :class:`json.JSONDecodeError` (hence of :class:`ValueError`),
    so ``except ValueError`` and ``except json.JSONDecodeError`` both catch it.

    Attributes:
        msg: what was expected and what was found, without position.
        doc: the text being parsed (``bytes`` input is shown decoded as UTF-8).
        pos: index in ``doc`` where parsing failed, in characters.
        lineno: 1-based line of ``pos``.
        colno: 1-based column of ``pos``, in characters.
        kind: the stable error code shared by every STC implementation, e.g.
            ``"count_mismatch"``, ``"unexpected_end"``, ``"depth_limit"``.
        offset: byte offset of the error in the UTF-8 text (what the
            conformance corpus records).
    """

    msg: str
    doc: str
    pos: int
    lineno: int
    colno: int
    kind: str
    offset: int

    def __init__(
        self,
        msg: str,
        doc: str | bytes | bytearray,
        pos: int,
        kind: str = "",
        offset: int | None = None,
        lineno: int | None = None,
        colno: int | None = None,
    ) -> None:
        if isinstance(doc, (bytes, bytearray)):
            # Everything before an error offset is valid UTF-8, so ``pos``
            # (counted in characters) indexes this text correctly.
            doc = bytes(doc).decode("utf-8", "replace")
        if lineno is None or colno is None:
            lineno = doc.count("\n", 0, pos) + 1
            colno = pos - doc.rfind("\n", 0, pos)
        ValueError.__init__(self, f"{msg}: line {lineno} column {colno} (char {pos})")
        self.msg = msg
        self.doc = doc
        self.pos = pos
        self.lineno = lineno
        self.colno = colno
        self.kind = kind
        self.offset = len(doc[:pos].encode("utf-8", "surrogatepass")) if offset is None else offset

    def __reduce__(self) -> tuple[type, tuple[str, str, int, str, int, int, int]]:
        return (
            self.__class__,
            (self.msg, self.doc, self.pos, self.kind, self.offset, self.lineno, self.colno),
        )


class GateResult(NamedTuple):
    """What :func:`stc.encode_gated` returns: the text to send and why."""

    #: The text to send: STC, or minified JSON when STC did not save enough.
    text: str
    #: Which of the two ``text`` is: ``"stc"`` or ``"json"``.
    chosen: Literal["stc", "json"]
    #: Tokens of the minified JSON.
    json_tokens: int
    #: Tokens of the STC encoding.
    stc_tokens: int


#: Why :func:`stc.truncate` sent the original: nothing was long enough to
#: cut, no store was given (nothing is truncated silently), it already holds
#: markers, or cutting would not have saved tokens.
Kept = Literal["nothing_to_cut", "no_store", "has_markers", "no_saving"]

#: The stable kinds of :class:`StashError`.
StashErrorKind = Literal[
    "invalid_key",
    "not_found",
    "expired",
    "closed",
    "unavailable",
    "corrupt",
    "too_large",
    "exhausted",
    "config",
    "store",
]


class StashError(Exception):
    """A stash operation failed: a malformed, unknown or expired key, a
    closed store, a store that cannot be reached, or a path the policy refuses.

    Attributes:
        kind: the stable error kind, e.g. ``"invalid_key"``, ``"not_found"``,
            ``"expired"``, ``"unavailable"``, ``"config"``.
        retryable: True only if the same call may succeed later (the store was
            busy or unreachable). An unknown or expired key never comes back:
            re-run the tool call that produced the marker instead.
        key: the key concerned, when it was well-formed.
    """

    kind: StashErrorKind
    retryable: bool
    key: str | None

    def __init__(self, msg: str, kind: StashErrorKind, retryable: bool = False, key: str | None = None) -> None:
        super().__init__(msg)
        self.kind = kind
        self.retryable = retryable
        self.key = key

    def __reduce__(self) -> tuple[type, tuple[str, str, bool, str | None]]:
        return (self.__class__, (str(self), self.kind, self.retryable, self.key))


class Omission(NamedTuple):
    """One part that :func:`stc.truncate` left out."""

    #: What was counted: ``"records"``, ``"items"`` or ``"chars"``.
    unit: Literal["records", "items", "chars"]
    #: The stash key of the omitted part (None when the cut is lossy).
    key: str | None
    #: How many units were left out.
    omitted: int
    #: How many units the original had.
    of: int


class Truncation(NamedTuple):
    """What :func:`stc.truncate` returns: the text to send and what it leaves out."""

    #: Compact STC to send (the original, losslessly, when ``truncated`` is False).
    text: str
    #: The same content as minified JSON.
    json: str
    #: True if parts were left out (markers in the text say how to get them back).
    truncated: bool
    #: Why nothing was cut (None when ``truncated``).
    kept: Kept | None
    #: Tokens of ``text`` (by the tokenizer given to :func:`stc.truncate`).
    tokens: int
    #: Tokens of the original as compact STC.
    original_tokens: int
    #: The stash keys the markers in ``text`` reference (empty when lossy).
    keys: tuple[str, ...]
    #: The omissions, in document order.
    omissions: tuple[Omission, ...]
