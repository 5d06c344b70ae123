"""Cost of pure ASGI middleware: server CPU per request and requests/s for GET / (a hello route) served by Slipstream
without middleware (the engine's fast path), with an ASGI middleware class that adds a header (every request runs
in Python: the chain, the scope, the ASGI messages), with the same header from `@app.middleware("http")`, and by
FastAPI on uvicorn with the ASGI middleware.

    .venv/bin/python bench/asgi_middleware.py [--seconds 5] [--rounds 3] [--connections 16]

Method as bench/route_class.py (server on CPU 0, wrk on CPU 1, one server thread or worker, rounds rotate the
order, median with min-max spread; server CPU time / requests is the figure that holds when the client is the
ceiling)."""

from __future__ import annotations

import os

from route_class import PORT, _argv, compare, measure

CONTENDERS = {
    "slipstream no middleware": ("slipstream", "none"),
    "slipstream ASGI middleware": ("slipstream", "asgi"),
    "slipstream @app.middleware('http')": ("slipstream", "http"),
    "fastapi ASGI middleware (uvicorn)": ("fastapi", "asgi"),
}


def run_one(name: str, seconds: int, connections: int) -> tuple[float, float]:
    """(requests/s, server CPU microseconds per request) for one contender."""
    framework, middleware = CONTENDERS[name]
    env = {**os.environ, "BENCH_FRAMEWORK": framework, "BENCH_MIDDLEWARE": middleware}
    argv = [a.replace("route_class_app:app", "asgi_middleware_app:app") for a in _argv(framework)]
    return measure(name, argv, env, f"http://127.0.0.1:{PORT}/", seconds, connections)


if __name__ == "__main__":
    compare(__doc__.splitlines()[0], list(CONTENDERS), run_one)
