"""The committed type stub `slipstream/_native.pyi` matches the compiled extension: names, parameters, properties."""

from __future__ import annotations

import ast
import pathlib
import re

import pytest
from slipstream import _native

STUB = pathlib.Path(_native.__file__).with_name("_native.pyi")
if not STUB.exists():  # editable installs import the extension from the build folder
    STUB = pathlib.Path(__file__).resolve().parents[1] / "slipstream" / "_native.pyi"

_PARAMS = re.compile(r"^def \w+\((.*)\)(?: -> .*)?$")


def _stub_tree() -> dict[str, dict[str, ast.AST]]:
    """{top-level name: {member name: node}}; functions map to {} and classes to their members."""
    tree = ast.parse(STUB.read_text())
    out: dict[str, dict[str, ast.AST]] = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            out[node.name] = {m.name: m for m in node.body if isinstance(m, ast.FunctionDef)}
        elif isinstance(node, ast.FunctionDef):
            out[node.name] = {"": node}
    return out


def _runtime_params(func: object) -> list[str] | None:
    """Parameter names from nanobind's signature (positional-only `arg`s numbered), without self."""
    sig = getattr(func, "__nb_signature__", None)
    if not sig:
        return None
    match = _PARAMS.match(sig[0][0])
    assert match, sig
    names = []
    depth = 0
    current = ""
    for ch in match.group(1) + ",":
        if ch in "[(":
            depth += 1
        elif ch in "])":
            depth -= 1
        if ch == "," and depth == 0:
            name = current.split(":")[0].split("=")[0].strip()
            if name and name not in ("/", "self"):
                names.append(name)
            current = ""
        else:
            current += ch
    return names


def _stub_params(node: ast.FunctionDef) -> list[str]:
    args = node.args
    return [a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs] if a.arg != "self"]


def _is_property(node: ast.FunctionDef) -> bool:
    return any(isinstance(d, ast.Name) and d.id == "property" for d in node.decorator_list)


def _public(names: list[str]) -> list[str]:
    return [n for n in names if not n.startswith("_")]


def test_every_runtime_name_is_in_the_stub_and_back() -> None:
    stub = _stub_tree()
    runtime = _public(dir(_native))
    assert sorted(runtime) == sorted(_public(list(stub)))


@pytest.mark.parametrize("name", [n for n in _public(dir(_native)) if isinstance(getattr(_native, n), type)])
def test_class_members_and_parameters_match(name: str) -> None:
    cls = getattr(_native, name)
    members = _stub_tree()[name]
    runtime = {k: v for k, v in vars(cls).items() if not k.startswith("_") or k == "__init__"}
    documented = {k for k in members if not k.startswith("_") or k == "__init__"}
    runtime_callables = {k for k, v in runtime.items() if k != "__init__" or _runtime_params(v) is not None}
    assert runtime_callables == documented, f"{name}: runtime {sorted(runtime_callables)} stub {sorted(documented)}"
    for member, value in runtime.items():
        if member not in members:
            continue
        node = members[member]
        if isinstance(value, property):
            assert _is_property(node), f"{name}.{member} is a property at runtime"
            continue
        params = _runtime_params(value)
        if params is None:
            continue
        stub_params = _stub_params(node)
        if all(p.startswith("arg") for p in params):  # unnamed positional-only arguments: compare the count
            assert len(stub_params) == len(params), f"{name}.{member}: {stub_params} vs {params}"
        else:
            assert stub_params == params, f"{name}.{member}: stub {stub_params} vs runtime {params}"


@pytest.mark.parametrize("name", [n for n in _public(dir(_native)) if not isinstance(getattr(_native, n), type)])
def test_function_parameters_match(name: str) -> None:
    node = _stub_tree()[name][""]
    params = _runtime_params(getattr(_native, name))
    if params is not None and not all(p.startswith("arg") for p in params):
        assert _stub_params(node) == params
