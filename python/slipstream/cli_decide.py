"""`slipstream decide export|replay`: the decision log of a capsule exported as JSON lines, and the off-policy
evaluation with the promotion gate over such a log (POST .../evaluate and .../promote's code), for CI: replay exits
0 when the gate holds, 1 when it does not, 2 on bad input."""

from __future__ import annotations

import argparse
import json
import sys
import urllib.error
import urllib.request
from typing import Any

_SERVER_FLAGS = ("url", "tenant", "job", "capsule")


def add_command(commands: Any) -> None:
    cmd = commands.add_parser(
        "decide",
        help="export a capsule's decision log, or replay one against a candidate",
        description="The learning decision service's tools.",
    )
    sub = cmd.add_subparsers(dest="decide_command", required=True)
    export = sub.add_parser(
        "export",
        help="write a capsule's decisions as JSON lines (every page)",
        description="Reads GET .../decisions?format=jsonl page after page (the Decide-Next "
        "field) and writes the lines to stdout or --output.",
    )
    _server_flags(export, required=True)
    export.add_argument("--output", "-o", default="-", help="file to write ('-': stdout)")
    replay = sub.add_parser(
        "replay",
        help="judge a candidate spec on a decision log; exit 1 when the promotion gate fails",
        description="Off-policy estimates (IPS, SNIPS, DM, DR with bootstrap intervals) of a candidate and the "
        "current spec on exported decisions, and the promotion gate: the candidate's DR lower bound "
        "above the current policy's DR estimate with at least --min-samples decisions. Prints the "
        "report as JSON; exits 0 when the gate holds, 1 when it does not, 2 on bad input.",
    )
    replay.add_argument("--spec", help="the current spec (JSON or YAML file); default: the server's (--url ...)")
    replay.add_argument("--candidate", help="an RFC 7396 merge patch onto the spec (JSON or YAML file)")
    replay.add_argument(
        "--log",
        action="append",
        default=[],
        help="exported lines (repeatable; '-': stdin); default: exported from the server (--url ...)",
    )
    _server_flags(replay, required=False)
    replay.add_argument("--min-samples", type=int, default=100)
    replay.add_argument("--resamples", type=int, default=200)
    replay.add_argument("--seed", type=int, default=1)
    replay.add_argument("--max-decisions", type=int, default=1_000_000)
    replay.add_argument("--no-gate", action="store_true", help="exit 0 whatever the gate says")


def _server_flags(cmd: argparse.ArgumentParser, required: bool) -> None:
    cmd.add_argument("--url", required=required, help="the server's base URL, e.g. http://127.0.0.1:8000")
    cmd.add_argument("--tenant", required=required)
    cmd.add_argument("--job", required=required)
    cmd.add_argument("--capsule", required=required)
    cmd.add_argument("--api-key", help="sent as X-API-Key")
    cmd.add_argument("--page", type=int, default=1000, help="decisions per page")


def _get(args: argparse.Namespace, path: str) -> tuple[bytes, str | None]:
    base = f"{args.url.rstrip('/')}/v1/tenants/{args.tenant}/jobs/{args.job}/capsules/{args.capsule}"
    request = urllib.request.Request(base + path)
    if args.api_key:
        request.add_header("X-API-Key", args.api_key)
    try:
        with urllib.request.urlopen(request, timeout=60) as resp:
            return resp.read(), resp.headers.get("Decide-Next")
    except urllib.error.HTTPError as exc:
        raise SystemExit(f"error: GET {path}: {exc.code} {exc.read().decode(errors='replace')}") from None
    except (urllib.error.URLError, OSError) as exc:
        raise SystemExit(f"error: GET {path}: {exc}") from None


def export_lines(args: argparse.Namespace) -> str:
    """Every page of the capsule's export, concatenated."""
    parts, after = [], ""
    while True:
        query = f"?format=jsonl&limit={args.page}" + (f"&after={urllib.request.quote(after)}" if after else "")
        body, after = _get(args, "/decisions" + query)
        parts.append(body.decode())
        if not after:
            return "".join(parts)


def _read(path: str) -> str:
    if path == "-":
        return sys.stdin.read()
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except OSError as exc:
        raise SystemExit(f"error: {exc}") from None


def run(args: argparse.Namespace) -> int:
    if args.decide_command == "export":
        text = export_lines(args)
        if args.output == "-":
            sys.stdout.write(text)
        else:
            with open(args.output, "w", encoding="utf-8") as f:
                f.write(text)
        return 0
    from .decide import replay

    has_server = all(getattr(args, flag) for flag in _SERVER_FLAGS)
    if (not args.spec or not args.log) and not has_server:
        print("error: give --spec and --log, or --url, --tenant, --job and --capsule", file=sys.stderr)
        return 2
    spec = _read(args.spec) if args.spec else _get(args, "/spec")[0].decode()
    log = "".join(_read(p) + "\n" for p in args.log) if args.log else export_lines(args)
    candidate = _read(args.candidate) if args.candidate else None
    try:
        result = replay(
            spec,
            log,
            candidate,
            min_samples=args.min_samples,
            resamples=args.resamples,
            seed=args.seed,
            max_decisions=args.max_decisions,
        )
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(result.report))
    for reason in result.reasons:
        print(f"gate: {reason}", file=sys.stderr)
    return 0 if result.passed or args.no_gate else 1
