"""`slipstream asgi module:app` (and `slipstream run --interface asgi`): serves an unchanged ASGI 3 application
(FastAPI, Starlette, Litestar, ...) on the engine, with the flags of `slipstream run` (workers, reload, TLS, ...)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from .asgi import AsgiServer, is_asgi3


def add_command(commands: Any, add_run_flags: Callable[[argparse.ArgumentParser], None]) -> None:
    """The `asgi` subcommand: `slipstream run`'s flags, plus the ASGI ones."""
    cmd = commands.add_parser(
        "asgi", help="serve an ASGI 3 app (FastAPI, Starlette, Litestar, ...) on the engine",
        description="Serve an unchanged ASGI 3 application (module:attribute) until SIGINT/SIGTERM (graceful "
                    "drain). The engine answers /health, /livez, /readyz and /metrics itself.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    add_run_flags(cmd)
    cmd.set_defaults(interface="asgi")


def add_asgi_flags(parser: argparse.ArgumentParser) -> None:
    """Flags for the ASGI interface (on `run` and `asgi`)."""
    parser.add_argument("--lifespan", choices=("auto", "on", "off"), default="auto",
                        help="ASGI apps: run the app's lifespan scope (auto: unless the app raises on it)")
    parser.add_argument("--loop", choices=("auto", "asyncio", "uvloop"), default="auto",
                        help="ASGI apps: the executor's event loop (auto: uvloop when installed, as uvicorn's)")
    parser.add_argument("--access-log", action=argparse.BooleanOptionalAction, default=True,
                        help="ASGI apps: the engine's access log line per request (a Slipstream app sets "
                             "App(access_log=...))")
    parser.add_argument("--ws-path", dest="ws_paths", action="append", metavar="PATH",
                        help="ASGI apps: a WebSocket path of the app (none given: the WebSocket routes found in a Starlette or "
                             "FastAPI app); repeat for more")


def wrap(app: Any, args: argparse.Namespace) -> AsgiServer:
    """The ASGI app loaded by `slipstream run`/`asgi` as a server with App.run()'s signature. The root path is
    the scope's here (run()'s root_path option is for Slipstream apps)."""
    if not is_asgi3(app):
        raise SystemExit(f"error: {args.app} is not an ASGI 3 application (app(scope, receive, send))")
    options = {"access_log": bool(getattr(args, "access_log", True))}
    return AsgiServer(app, root_path=getattr(args, "root_path", "") or "",
                      lifespan=getattr(args, "lifespan", "auto") or "auto",
                      loop=getattr(args, "loop", "auto") or "auto",
                      websocket_paths=getattr(args, "ws_paths", None), **options)


def run_options(options: dict[str, Any]) -> dict[str, Any]:
    """run()'s options for an AsgiServer: root_path goes to the scope (see wrap), not to the engine's requests."""
    return {k: v for k, v in options.items() if k != "root_path"}
