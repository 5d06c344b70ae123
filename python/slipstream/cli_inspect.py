"""`slipstream routes`, `slipstream openapi` and `slipstream check`: an app looked at without serving it."""

from __future__ import annotations

import argparse
import json
import sys
import traceback
from typing import Any

_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")


def add_commands(commands: Any) -> None:
    """Adds the three subcommands to the CLI's subparsers."""
    for name, helptext in (("routes", "print the app's routes: methods, path, parameters, body, response"),
                           ("openapi", "print (or write) the app's OpenAPI document"),
                           ("check", "import the app and compile every route without serving; exit 1 on error")):
        sub = commands.add_parser(name, help=helptext, description=helptext[0].upper() + helptext[1:] + ".")
        sub.add_argument("app", help="the application, as module:attribute")
        sub.add_argument("--app-dir", default=".", help="folder put first on sys.path (default: .)")
        if name == "openapi":
            sub.add_argument("--output", "-o", help="write to this file instead of standard output")
            sub.add_argument("--indent", type=int, default=2, help="JSON indentation (0: compact; default 2)")


def _ref_name(schema: dict[str, Any] | None) -> str:
    if not schema:
        return ""
    if "$ref" in schema:
        return schema["$ref"].rsplit("/", 1)[-1]
    if schema.get("type") == "array":
        return f"list[{_ref_name(schema.get('items')) or 'any'}]"
    return str(schema.get("type", schema.get("title", "")))


def route_rows(document: dict[str, Any]) -> list[tuple[str, str, str, str, str]]:
    """(methods, path, parameters, body, response) per path of an OpenAPI document."""
    rows = []
    for path, item in document.get("paths", {}).items():
        for method in _METHODS:
            op = item.get(method)
            if op is None:
                continue
            params = ", ".join(f"{p['name']} ({p['in']}{'' if p.get('required') else ', optional'})"
                               for p in op.get("parameters", []))
            body = ""
            for media, content in op.get("requestBody", {}).get("content", {}).items():
                body = f"{_ref_name(content.get('schema')) or 'body'} ({media})"
            response = ""
            for status, answer in sorted(op.get("responses", {}).items()):
                if status.startswith("2"):
                    contents = answer.get("content", {})
                    media = next(iter(contents), "")
                    response = f"{status} {_ref_name(contents.get(media, {}).get('schema'))} {media}".strip()
                    break
            rows.append((method.upper(), path, params, body, response))
    return rows


def _table(rows: list[tuple[str, ...]], header: tuple[str, ...]) -> str:
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(str(cell).ljust(w) for cell, w in zip(row, widths)).rstrip() for row in [header, *rows]]
    return "\n".join(lines) + "\n"


def run_command(args: argparse.Namespace, load_app: Any) -> int:
    """routes / openapi / check on the app `args.app` names."""
    try:
        app = load_app(args.app, args.app_dir)
    except Exception:  # noqa: BLE001 - any import error is the answer here
        sys.stderr.write(f"error: importing {args.app} failed:\n{traceback.format_exc()}")
        return 1
    if args.command == "check":
        return _check(app, args.app)
    document = app.openapi()
    if args.command == "openapi":
        text = json.dumps(document, indent=args.indent or None, ensure_ascii=False) + "\n"
        if args.output:
            with open(args.output, "w", encoding="utf-8") as f:
                f.write(text)
        else:
            sys.stdout.write(text)
        return 0
    rows = route_rows(document)
    for path, _endpoint, _deps in [(r.path, r.endpoint, r.dependencies) for r in getattr(app, "websocket_routes", [])]:
        rows.append(("WEBSOCKET", path, "", "", ""))
    sys.stdout.write(_table(rows, ("METHODS", "PATH", "PARAMETERS", "BODY", "RESPONSE")))
    return 0


def _check(app: Any, spec: str) -> int:
    try:
        app.build_native()
        document = app.openapi()
    except Exception:  # noqa: BLE001 - reported, not raised
        sys.stderr.write(f"error: {spec} does not build:\n{traceback.format_exc()}")
        return 1
    routes = sum(1 for item in document.get("paths", {}).values() for m in _METHODS if m in item)
    sys.stdout.write(f"ok: {spec}: {routes} operations compiled, OpenAPI document built\n")
    return 0
