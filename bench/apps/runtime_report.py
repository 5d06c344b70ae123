"""What a Python contender actually runs, written once at start-up for the harness to record and check.

Each Python app calls `write()` when its server has set up (uvicorn's lifespan, Granian's `__rsgi_init__`, the
asyncio main of `websockets`; at import where the framework runs its own loop). The report goes to
`$BENCH_RUNTIME_DIR/runtime-<pid>.json` (one file per worker process); without BENCH_RUNTIME_DIR nothing is written.
The harness (`harness/runtime.py`) compares it with what the contender is declared to run: a peer that fell back
(uvicorn on the asyncio loop or h11, a debug or tracing interpreter) is not measured.
"""
from __future__ import annotations

import importlib.metadata
import json
import os
import platform
import sys

# uvicorn's HTTP implementations: the module it imported is the one config.load() resolved.
_UVICORN_HTTP = (("uvicorn.protocols.http.httptools_impl", "httptools"), ("uvicorn.protocols.http.h11_impl", "h11"))
# Distributions whose version changes what a peer costs per request, by the module that shows they are in use.
_DISTS = {"fastapi": "fastapi", "starlette": "starlette", "pydantic": "pydantic", "pydantic-core": "pydantic_core",
          "uvicorn": "uvicorn", "uvloop": "uvloop", "httptools": "httptools", "h11": "h11", "granian": "granian",
          "blacksheep": "blacksheep", "robyn": "robyn", "socketify": "socketify", "websockets": "websockets",
          "slipstream": "slipstream", "asyncpg": "asyncpg"}


def facts(loop=None) -> dict:
    """The interpreter, the event loop (when given), uvicorn's HTTP implementation and the versions of the
    distributions this process imported."""
    out = {
        "pid": os.getpid(),
        "python": platform.python_version(),
        "implementation": sys.implementation.name,
        "dev_mode": bool(sys.flags.dev_mode),
        "optimize": sys.flags.optimize,
        "tracing": sys.gettrace() is not None,
        "profiling": sys.getprofile() is not None,
        "pythonmalloc": os.environ.get("PYTHONMALLOC", ""),
        "asyncio_debug_env": os.environ.get("PYTHONASYNCIODEBUG", ""),
    }
    gil = getattr(sys, "_is_gil_enabled", None)
    out["gil"] = gil() if gil else True
    if loop is not None:
        out["loop"] = f"{type(loop).__module__}.{type(loop).__qualname__}"
        out["asyncio_debug"] = bool(loop.get_debug())
    http = [name for module, name in _UVICORN_HTTP if module in sys.modules]
    if http:
        out["http"] = "+".join(http)
    native = sys.modules.get("slipstream._native")
    if native is not None:
        out["slipstream_native"] = getattr(native, "__file__", "")
    versions = {}
    for dist, module in _DISTS.items():
        if module not in sys.modules:
            continue
        try:
            versions[dist] = importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            pass
    out["versions"] = versions
    return out


def write(loop=None) -> None:
    """Writes `facts(loop)` to $BENCH_RUNTIME_DIR/runtime-<pid>.json; nothing when the variable is unset."""
    folder = os.environ.get("BENCH_RUNTIME_DIR")
    if not folder:
        return
    path = os.path.join(folder, f"runtime-{os.getpid()}.json")
    with open(path + ".tmp", "w") as f:
        json.dump(facts(loop), f, sort_keys=True)
    os.replace(path + ".tmp", path)
