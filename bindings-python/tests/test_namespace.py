"""The public namespace of `stc` (issue 13): `dir(stc)` and `__all__` list
the package's API and nothing else, every listed name exists, and the names
the native module exports are declared in its stubs."""

from __future__ import annotations

import ast
import types
import typing
from pathlib import Path

import stc
from stc import _stc

STUB = Path(_stc.__file__).with_name("_stc.pyi")
if not STUB.exists():  # running against the source tree
    STUB = Path(__file__).resolve().parents[1] / "python" / "stc" / "_stc.pyi"

# Submodules a caller imports explicitly (`import stc.http`); they become
# attributes of the package, as every imported submodule does.
PUBLIC_SUBMODULES = {"http"}


def test_dir_is_all() -> None:
    assert dir(stc) == sorted(stc.__all__)
    assert len(set(stc.__all__)) == len(stc.__all__)


def test_every_name_in_all_exists() -> None:
    missing = [name for name in stc.__all__ if not hasattr(stc, name)]
    assert not missing


def test_no_helper_leaks_into_the_namespace() -> None:
    # What the module really holds, not what __dir__ says: no typing helpers,
    # no `annotations` from a __future__ import, no stray modules.
    public = {name for name in vars(stc) if not name.startswith("_")}
    leaked = public - set(stc.__all__) - PUBLIC_SUBMODULES
    assert not leaked, sorted(leaked)
    for name in ("Any", "Callable", "Protocol", "annotations", "json", "typing"):
        assert name not in vars(stc), name


def test_star_import_gives_exactly_all() -> None:
    scope: dict[str, object] = {}
    exec("from stc import *", scope)
    assert set(scope) - {"__builtins__"} == set(stc.__all__)


def test_public_functions_and_classes_say_they_are_stc() -> None:
    for name in stc.__all__:
        value = getattr(stc, name)
        if isinstance(value, (type, types.FunctionType)):
            assert value.__module__ == "stc", name


def _stub_names() -> set[str]:
    names: set[str] = set()
    for node in ast.parse(STUB.read_text(encoding="utf-8")).body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return names


def test_every_native_name_has_a_stub() -> None:
    native = {name for name in vars(_stc) if not name.startswith("_")} | {"__version__"}
    stubbed = {name for name in _stub_names() if not name.startswith("_")} | {"__version__"}
    assert native == stubbed
    # The private helper stc.http uses is declared too.
    assert "_version" in _stub_names() and callable(_stc._version)


def test_every_native_public_name_is_re_exported() -> None:
    native = {name for name in vars(_stc) if not name.startswith("_")}
    assert native <= set(stc.__all__)


def test_literal_types_match_the_core_lists() -> None:
    assert typing.get_args(stc.Profile) == stc.PROFILES
    assert typing.get_args(stc.Tokenizer) == stc.TOKENIZERS
    assert "count_mismatch" in stc.ERROR_CODES and "depth_limit" in stc.ERROR_CODES
