"""scripts/check_python_layers.py (run by `make lint`): the package passes, and the check fails on an import cycle
(a function-level import included), on an import of a higher layer and on a module in no layer."""

from __future__ import annotations

import importlib.util
import pathlib
import sys
import types

import pytest

SCRIPT = pathlib.Path(__file__).resolve().parents[2] / "scripts" / "check_python_layers.py"


@pytest.fixture(scope="module")
def checker() -> types.ModuleType:
    spec = importlib.util.spec_from_file_location("check_python_layers", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _package(tmp_path: pathlib.Path, files: dict[str, str]) -> pathlib.Path:
    root = tmp_path / "pkg"
    for name, text in {"__init__.py": "", **files}.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def test_the_slipstream_package_is_layered_and_acyclic(checker: types.ModuleType) -> None:
    assert checker.check(checker.PACKAGE, checker.LAYERS) == []


def test_a_cycle_through_a_function_level_import_fails(checker: types.ModuleType, tmp_path: pathlib.Path) -> None:
    root = _package(tmp_path, {"a.py": "from . import b\n", "b.py": "def f():\n    from .a import g\n"})
    assert checker.check(root, [("one", ["", "a", "b"])]) == ["import cycle: pkg.a <-> pkg.b"]


def test_an_import_of_a_higher_layer_fails(checker: types.ModuleType, tmp_path: pathlib.Path) -> None:
    root = _package(tmp_path, {"low.py": "import os\n\nfrom .sub.high import x\n", "sub/__init__.py": "",
                               "sub/high.py": "x = 1\n"})
    layers = [("bottom", ["", "low"]), ("top", ["sub", "sub.*"])]
    assert checker.check(root, layers) == [
        "pkg.low:3: imports pkg.sub (top), a layer above bottom",
        "pkg.low:3: imports pkg.sub.high (top), a layer above bottom",
    ]


def test_a_module_in_no_layer_fails(checker: types.ModuleType, tmp_path: pathlib.Path) -> None:
    root = _package(tmp_path, {"a.py": "", "stray.py": ""})
    assert checker.check(root, [("one", ["", "a"])]) == [
        "pkg.stray: in no layer (add it to LAYERS in scripts/check_python_layers.py)"]
