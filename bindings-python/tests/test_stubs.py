"""The stubs (`stc/_stc.pyi`) describe the native functions as they are:
same parameters, in the same order and kind, with the same defaults."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path
from typing import Any

import pytest

import stc
from stc import _stc

STUB = Path(_stc.__file__).with_name("_stc.pyi")
if not STUB.exists():  # running against the source tree
    STUB = Path(__file__).resolve().parents[1] / "python" / "stc" / "_stc.pyi"


def _stub_functions() -> dict[str, ast.FunctionDef]:
    tree = ast.parse(STUB.read_text(encoding="utf-8"))
    return {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}


def _stub_params(fn: ast.FunctionDef) -> list[tuple[str, str, Any]]:
    args = fn.args
    positional = [(a.arg, "POSITIONAL_OR_KEYWORD") for a in args.args]
    defaults: list[Any] = [None] * (len(positional) - len(args.defaults)) + [ast.literal_eval(d) for d in args.defaults]
    params = [(name, kind, default) for (name, kind), default in zip(positional, defaults, strict=False)]
    for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=False):
        params.append((a.arg, "KEYWORD_ONLY", None if d is None else ast.literal_eval(d)))
    return params


def _runtime_params(fn: Any) -> list[tuple[str, str, Any]]:
    return [
        (p.name, p.kind.name, None if p.default is inspect.Parameter.empty else p.default)
        for p in inspect.signature(fn).parameters.values()
    ]


STUBS = _stub_functions()


def test_every_native_function_has_a_stub() -> None:
    native = {
        name
        for name, value in vars(_stc).items()
        if callable(value) and not isinstance(value, type) and not name.startswith("_")
    }
    assert native == {name for name in STUBS if not name.startswith("_")}
    assert all(callable(getattr(_stc, name)) for name in STUBS)  # private ones (`_version`) too


def test_every_native_class_has_a_stub_with_its_methods() -> None:
    tree = ast.parse(STUB.read_text(encoding="utf-8"))
    stub_classes = {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}
    native = {name: value for name, value in vars(_stc).items() if isinstance(value, type)}
    assert set(native) == set(stub_classes)
    for name, cls in native.items():
        stub_members = {n.name for n in stub_classes[name].body if isinstance(n, ast.FunctionDef)}
        runtime = {m for m in vars(cls) if not m.startswith("_")} | {"__init__"}
        assert runtime <= stub_members | {"__init__"}, (name, runtime - stub_members)


@pytest.mark.parametrize("name", sorted(STUBS))
def test_stub_matches_runtime_signature(name: str) -> None:
    assert _stub_params(STUBS[name]) == _runtime_params(getattr(_stc, name))
    if not name.startswith("_"):
        assert getattr(stc, name) is getattr(_stc, name)
