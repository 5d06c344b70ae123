"""Runs a Python contender's app on another checkout's package: `baseline_boot.py CHECKOUT EXTENSION APP ARGS...`.

The .venv's editable install puts a finder first on sys.meta_path that maps `slipstream` to this checkout; it is
removed, CHECKOUT/python goes first on sys.path and `slipstream._native` is loaded from EXTENSION (that checkout's
build), so the app imports the earlier commit's package with its own extension.
"""

import importlib.util
import os
import runpy
import sys


def main() -> None:
    checkout, extension, app, *args = sys.argv[1:]
    sys.meta_path[:] = [f for f in sys.meta_path if type(f).__name__ != "ScikitBuildRedirectingFinder"]
    for name in [m for m in sys.modules if m == "slipstream" or m.startswith("slipstream.")]:
        del sys.modules[name]
    sys.path.insert(0, os.path.join(checkout, "python"))
    sys.path.insert(0, os.path.dirname(os.path.abspath(app)))
    spec = importlib.util.spec_from_file_location("slipstream._native", extension)
    module = importlib.util.module_from_spec(spec)
    sys.modules["slipstream._native"] = module
    spec.loader.exec_module(module)
    sys.argv = [app, *args]
    runpy.run_path(app, run_name="__main__")


if __name__ == "__main__":
    main()
