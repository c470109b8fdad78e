"""Type stubs of the native module ``stc._stc`` (re-exported by ``stc``)."""

from typing import Any, Callable, Final

from ._types import GateResult, Profile, Tokenizer

__version__: Final[str]
#: The STC version read and written (the ``X-STC-Version`` header).
STC_VERSION: Final[int]
#: ``application/stc+json``.
MEDIA_TYPE: Final[str]
#: The largest ``max_depth`` honoured; larger values are clamped to it.
MAX_DEPTH_LIMIT: Final[int]

_Text = str | bytes | bytearray

def loads(
    s: _Text,
    *,
    object_hook: Callable[[dict[str, Any]], Any] | None = None,
    parse_float: Callable[[str], Any] | None = None,
    parse_int: Callable[[str], Any] | None = None,
    object_pairs_hook: Callable[[list[tuple[str, Any]]], Any] | None = None,
    max_depth: int | None = None,
) -> Any:
    """Parse STC (or plain JSON) text to Python objects, like :func:`json.loads`.

    Integers of any size stay exact ints; other numbers are floats unless
    ``parse_float`` is given (e.g. ``decimal.Decimal``). ``object_pairs_hook``
    receives every member in order, duplicates included; without it, the last
    duplicate wins as in :mod:`json`. ``max_depth`` bounds nesting (default
    128, at most ``MAX_DEPTH_LIMIT``). Raises :class:`STCDecodeError`.
    """

def dumps(
    obj: Any,
    *,
    profile: Profile = "compact",
    default: Callable[[Any], Any] | None = None,
    sort_keys: bool = False,
    skipkeys: bool = False,
    max_depth: int | None = None,
) -> str:
    """Serialize ``obj`` to STC text, like :func:`json.dumps`.

    Accepts dict, list, tuple, str, int, float, bool and None (and their
    subclasses); ``default`` converts anything else. Raises ``TypeError`` for
    unsupported objects or keys, ``ValueError`` for NaN/infinity and for
    nesting deeper than ``max_depth`` (circular references included).
    """

def encode(json_text: _Text, *, profile: Profile = "compact", max_depth: int | None = None) -> str:
    """Encode JSON text as STC text. Raises :class:`STCDecodeError` for invalid JSON."""

def decode(stc_text: _Text, *, max_depth: int | None = None) -> str:
    """Decode STC (or JSON) text to minified JSON text, losslessly.

    Number lexemes, key order and duplicate keys are kept; strings come out
    canonically escaped. Raises :class:`STCDecodeError`.
    """

def encode_gated(
    json_text: _Text,
    *,
    profile: Profile = "compact",
    min_saving: float = 0.05,
    tokenizer: Tokenizer = "estimate",
    max_depth: int | None = None,
) -> GateResult:
    """The do-no-harm gate: STC only if it saves at least ``min_saving`` of
    the tokens of minified JSON, else minified JSON (valid STC too)."""

def count_tokens(text: _Text, tokenizer: Tokenizer = "o200k_base") -> int:
    """Number of tokens of ``text`` (exact OpenAI BPE, or the fast estimate)."""
