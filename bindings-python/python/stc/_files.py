"""``load`` and ``dump``: :func:`stc.loads` and :func:`stc.dumps` on file objects.

They live here so that the typing names they need stay out of the ``stc``
namespace.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from ._stc import dumps, loads
from ._types import Profile, Version


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
    version: Version = 1,
) -> Any:
    """Like :func:`stc.loads`, reading the text from a file object."""
    return loads(
        fp.read(),
        object_hook=object_hook,
        parse_float=parse_float,
        parse_int=parse_int,
        object_pairs_hook=object_pairs_hook,
        max_depth=max_depth,
        version=version,
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
    version: Version = 1,
) -> None:
    """Like :func:`stc.dumps`, writing the text to a file object."""
    fp.write(
        dumps(
            obj,
            profile=profile,
            default=default,
            sort_keys=sort_keys,
            skipkeys=skipkeys,
            max_depth=max_depth,
            version=version,
        )
    )
