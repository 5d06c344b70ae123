"""The scripts the inference tests share, imported by path: make_test_model (seeded GGUF models) and
reference_llama (the NumPy forward pass)."""
import importlib.util
import sys

from tests.conftest import ROOT


def _load(name):
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts/infer" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


mtm = _load("make_test_model")
ref = _load("reference_llama")
