"""`slipstream mcp module:server`: serves an MCP server (slipstream.mcp.MCP, or an App with one mounted) over stdio,
as MCP clients launch local servers, or alone over Streamable HTTP. Logs go to stderr; stdout carries only
protocol messages."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any


def add_command(commands: Any) -> None:
    cmd = commands.add_parser(
        "mcp", help="serve an MCP server (module:mcp, or module:app with one mounted) over stdio",
        description="Serve an MCP server over stdio (newline-delimited JSON-RPC on stdin/stdout) or Streamable "
                    "HTTP. module:attribute names a slipstream.mcp.MCP, or an App with exactly one mounted.")
    cmd.add_argument("app", help="module:attribute")
    cmd.add_argument("--transport", choices=("stdio", "streamable-http"), default="stdio")
    cmd.add_argument("--host", default="127.0.0.1", help="streamable-http only")
    cmd.add_argument("--port", type=int, default=8000, help="streamable-http only")
    cmd.add_argument("--path", default="/mcp", help="streamable-http only")
    cmd.add_argument("--app-dir", default=".", help="folder put first on sys.path")
    cmd.add_argument("--log-level", default="warning", choices=("debug", "info", "warning", "error", "critical"))


def find_server(target: Any) -> Any:
    """The MCP server itself, or the one mounted on an App."""
    if hasattr(target, "run_stdio"):
        return target
    mounted = [args[0] for kind, args in getattr(target, "native_routes", []) if kind == "mount"
               and hasattr(args[0], "run_stdio")]
    if len(mounted) != 1:
        raise SystemExit(f"error: expected an MCP server or an App with one mounted, found {len(mounted)} mounted")
    return mounted[0]


def run(args: argparse.Namespace, load_app: Callable[[str, str], Any], configure_logs: Callable[..., None]) -> int:
    configure_logs(args.log_level, "text")
    server = find_server(load_app(args.app, args.app_dir))
    if args.transport == "stdio":
        return int(server.run_stdio() or 0)
    return int(server.run("streamable-http", host=args.host, port=args.port, path=args.path) or 0)
