"""`slipstream run module:app --host H --port P --threads N` (each flag also SLIPSTREAM_HOST/PORT/THREADS)."""

from __future__ import annotations

import argparse
import importlib
import logging
import os
import sys
from typing import Any


def load_app(spec: str) -> Any:
    """Imports "package.module:attribute" (the current directory is importable, as with uvicorn)."""
    module_name, sep, attribute = spec.partition(":")
    if not sep or not module_name or not attribute:
        raise SystemExit(f"error: expected module:app, got {spec!r}")
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    module = importlib.import_module(module_name)
    try:
        app = module
        for part in attribute.split("."):
            app = getattr(app, part)
    except AttributeError:
        raise SystemExit(f"error: {module_name} has no attribute {attribute!r}") from None
    return app


def _env(name: str, default: str | None = None) -> str | None:
    value = os.environ.get("SLIPSTREAM_" + name)
    return value if value not in (None, "") else default


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="slipstream", description="Serve a Slipstream app.")
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run", help="serve module:app until SIGINT/SIGTERM")
    run.add_argument("app", help="the application, as module:attribute")
    run.add_argument("--host", default=_env("HOST", "127.0.0.1"), help="address to bind (SLIPSTREAM_HOST)")
    run.add_argument("--port", type=int, default=int(_env("PORT", "8000") or 8000),
                     help="port to bind, 0 for any free one (SLIPSTREAM_PORT)")
    run.add_argument("--threads", type=int, default=int(_env("THREADS", "0") or 0),
                     help="I/O threads, 0 = one per core (SLIPSTREAM_THREADS)")
    args = parser.parse_args(argv)
    if not logging.getLogger().handlers:
        logging.basicConfig(level=logging.INFO, format="%(name)s: %(message)s")
    app = load_app(args.app)
    return int(app.run(host=args.host, port=args.port, threads=args.threads) or 0)


if __name__ == "__main__":
    sys.exit(main())
