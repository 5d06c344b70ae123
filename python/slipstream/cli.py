"""`slipstream run module:app [--workers N] [--reload] ...`: every flag also a SLIPSTREAM_* variable (see --help)."""

from __future__ import annotations

import argparse
import dataclasses
import errno
import importlib
import ipaddress
import logging
import os
import socket
import sys
import traceback
from collections.abc import Callable
from typing import Any

from . import cli_asgi, cli_bench, cli_decide, cli_inspect, cli_mcp, cli_new, cli_serve_model, log_setup
from .reload import FileWatcher
from .supervisor import EXIT_STARTUP_FAILED, Supervisor

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


@dataclasses.dataclass(frozen=True)
class Flag:
    """One option of `slipstream run`: its flag, its environment variable(s), type, default and help."""

    name: str                      # "host" -> --host, SLIPSTREAM_HOST
    kind: Callable[[str], Any] | str  # str/int/a converter, or "bool", or "list"
    default: Any
    help: str
    fallback_env: str | None = None  # read when SLIPSTREAM_<NAME> is unset (WEB_CONCURRENCY, ...)

    @property
    def env(self) -> str:
        return "SLIPSTREAM_" + self.name.upper().replace("-", "_")

    @property
    def dest(self) -> str:
        return self.name.replace("-", "_")


def _port(text: str) -> int:
    value = int(text)
    if not 0 <= value <= 65535:
        raise ValueError("a port is 0..65535")
    return value


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise ValueError("must be at least 1")
    return value


def _non_negative(text: str) -> int:
    value = int(text)
    if value < 0:
        raise ValueError("must not be negative")
    return value


def _duration_ms(text: str) -> int:
    """A duration as the C++ servers write it (500ms, 30s, 2m, 1h) or seconds alone (30, 0.5), in milliseconds."""
    units = {"ms": 1, "s": 1000, "m": 60_000, "h": 3_600_000}
    number, unit = text.strip(), "s"
    for suffix in ("ms", "s", "m", "h"):
        if number.endswith(suffix):
            number, unit = number[: -len(suffix)], suffix
            break
    value = float(number) * units[unit]
    if not 0 <= value <= 24 * 3_600_000:
        raise ValueError("must be between 0 and 24h")
    return round(value)


def _log_level(text: str) -> str:
    if text not in ("debug", "info", "warning", "warn", "error", "off"):
        raise ValueError("must be debug, info, warning, error or off")
    return text


def _log_format(text: str) -> str:
    if text not in ("auto", "text", "color", "json"):
        raise ValueError("must be auto, text, color or json")
    return text


FLAGS = (
    Flag("app", str, None, "the application, as module:attribute"),
    Flag("host", str, "127.0.0.1", "address to bind"),
    Flag("port", _port, 8000, "port to bind (0: any free one)"),
    Flag("threads", _non_negative, 0, "I/O threads per process (0: the cores divided among the workers)"),
    Flag("workers", _positive, 1, "worker processes sharing the port (SO_REUSEPORT); a worker that dies is "
         "restarted", fallback_env="WEB_CONCURRENCY"),
    Flag("reuse-port", "bool", False, "share the port with other processes' listeners (SO_REUSEPORT); off: a port "
         "in use fails the start with 'address already in use' (the workers of one run always share it)"),
    Flag("reload", "bool", False, "restart the workers when a .py file under the reload folders changes"),
    Flag("reload-dirs", "list", None, "folders watched by --reload (default: the app folder); "
         "comma-separated in the variable"),
    Flag("app-dir", str, ".", "folder put first on sys.path to import the app"),
    Flag("root-path", str, "", "path prefix under which a proxy serves the app (OpenAPI servers, docs URLs, "
         "request.url)"),
    Flag("proxy-headers", "bool", False, "use X-Forwarded-For/-Proto for request.client and the URL scheme, "
         "from peers in --forwarded-allow-ips only"),
    Flag("forwarded-allow-ips", str, "127.0.0.1", "trusted proxies: comma-separated addresses or networks, or "
         "'*'", fallback_env="FORWARDED_ALLOW_IPS"),
    Flag("io-uring", "bool", False, "I/O threads wait in io_uring instead of epoll, and plain connections "
         "receive and send through it (Linux 5.19+; refused at start where the kernel does not allow it)"),
    Flag("drain-timeout", _duration_ms, None, "deadline for in-flight work after SIGTERM (500ms, 30s, 2m); "
         "default: the app's own (App(drain_timeout_ms=...), 30s)"),
    Flag("tls-cert", str, None, "TLS certificate chain (PEM file); with --tls-key serves HTTPS"),
    Flag("tls-key", str, None, "TLS private key (PEM file)"),
    Flag("log-level", _log_level, "info", "least severe message logged: debug, info, warning, error, off"),
    Flag("log-format", _log_format, "auto", "log lines: auto (coloured on a terminal, text otherwise), text, "
         "color, json (one object per line)"),
)


def _env_default(flag: Flag) -> Any:
    raw = os.environ.get(flag.env)
    name = flag.env
    if raw in (None, "") and flag.fallback_env:
        raw, name = os.environ.get(flag.fallback_env), flag.fallback_env
    if raw in (None, ""):
        return flag.default
    assert raw is not None
    if flag.kind == "bool":
        if raw.lower() not in _TRUE | _FALSE:
            raise SystemExit(f"error: {name}={raw!r}: expected one of 1/0, true/false, yes/no, on/off")
        return raw.lower() in _TRUE
    if flag.kind == "list":
        return [part for part in raw.replace(os.pathsep, ",").split(",") if part]
    try:
        return flag.kind(raw)  # type: ignore[operator]
    except ValueError as exc:
        raise SystemExit(f"error: {name}={raw!r}: {exc}") from None


def _add_run_flags(run: argparse.ArgumentParser) -> None:
    for flag in FLAGS:
        default = _env_default(flag)
        help_text = f"{flag.help} [env {flag.env}" + (f", then {flag.fallback_env}]" if flag.fallback_env else "]")
        if flag.name == "app":
            run.add_argument("app", nargs="?" if default else None, default=default, help=help_text)
        elif flag.kind == "bool":
            run.add_argument("--" + flag.name, dest=flag.dest, action=argparse.BooleanOptionalAction,
                             default=default, help=help_text)
        elif flag.kind == "list":
            # Flags replace the variable's list (argparse would append to a list default).
            run.add_argument("--" + flag.name.removesuffix("s"), dest=flag.dest, action="append", metavar="DIR",
                             help=help_text)
            run.set_defaults(**{flag.dest + "_env": default})
        else:
            run.add_argument("--" + flag.name, dest=flag.dest, type=flag.kind, default=default,
                             metavar=flag.dest.upper(), help=help_text)
    cli_asgi.add_asgi_flags(run)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="slipstream", description="Serve a Slipstream app, or look at one.")
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser(
        "run", help="serve module:app until SIGINT/SIGTERM",
        description="Serve module:app until SIGINT/SIGTERM (graceful drain). Each option can also be given as "
                    "the environment variable shown beside it; a flag on the command line wins.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    _add_run_flags(run)
    run.add_argument("--interface", choices=("slipstream", "asgi"), default="slipstream",
                     help="asgi: module:app is any ASGI 3 application (as `slipstream asgi`)")
    cli_asgi.add_command(commands, _add_run_flags)
    cli_inspect.add_commands(commands)
    cli_new.add_command(commands)
    cli_mcp.add_command(commands)
    cli_serve_model.add_command(commands)
    cli_decide.add_command(commands)
    cli_bench.add_command(commands)
    return parser


def load_app(spec: str, app_dir: str = ".") -> Any:
    """Imports "package.module:attribute" with `app_dir` first on sys.path (as uvicorn's --app-dir)."""
    module_name, sep, attribute = spec.partition(":")
    if not sep or not module_name or not attribute:
        raise SystemExit(f"error: expected module:app, got {spec!r}")
    folder = os.path.abspath(app_dir)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    module = importlib.import_module(module_name)
    try:
        app = module
        for part in attribute.split("."):
            app = getattr(app, part)
    except AttributeError:
        raise SystemExit(f"error: {module_name} has no attribute {attribute!r}") from None
    return app


def server_options(args: argparse.Namespace) -> dict[str, Any]:
    """The keyword arguments of App.run() that the flags set."""
    options: dict[str, Any] = {}
    if args.root_path:
        options["root_path"] = args.root_path
    if args.proxy_headers:
        options["proxy_headers"] = True
        options["forwarded_allow_ips"] = args.forwarded_allow_ips
    if args.io_uring:
        options["io_uring"] = True
    if args.reuse_port:
        options["reuse_port"] = True
    if args.drain_timeout is not None:
        options["drain_timeout_ms"] = args.drain_timeout
    if args.tls_cert or args.tls_key:
        if not (args.tls_cert and args.tls_key):
            raise SystemExit("error: --tls-cert and --tls-key go together")
        options["tls_cert_file"] = args.tls_cert
        options["tls_key_file"] = args.tls_key
    return options


def _address_in_use(host: str, port: int) -> SystemExit:
    shown = f"[{host}]" if ":" in host else host
    return SystemExit(f"error: listen on {shown}:{port}: address already in use (another process listens there; "
                      "--reuse-port / reuse_port=True shares the port on purpose)")  # as the engine says it


def _reserve_port(host: str, port: int, share: bool = False) -> socket.socket | None:
    """A bound, non-listening SO_REUSEPORT socket that keeps the port for the workers (and picks one for
    port 0) while they start and restart. None for a host that is not a numeric address. Unless `share`, a
    port another process holds fails first: a bind without SO_REUSEPORT conflicts with any socket there."""
    try:
        family = socket.AF_INET6 if ipaddress.ip_address(host).version == 6 else socket.AF_INET
    except ValueError:
        if host != "localhost":
            return None
        host, family = "127.0.0.1", socket.AF_INET
    if port != 0 and not share:
        with socket.socket(family, socket.SOCK_STREAM) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # TIME_WAIT leftovers do not count
            try:
                probe.bind((host, port))
            except OSError as exc:
                if exc.errno == errno.EADDRINUSE:
                    raise _address_in_use(host, port) from None
                raise SystemExit(f"error: cannot bind {host}:{port}: {exc.strerror}") from None
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise SystemExit(f"error: cannot bind {host}:{port}: {exc.strerror}") from None
    return sock


def _serve(args: argparse.Namespace, port: int, threads: int, *, worker: bool = False) -> int:
    app = load_app(args.app, args.app_dir)
    options = server_options(args)
    if args.interface == "asgi":
        app, options = cli_asgi.wrap(app, args), cli_asgi.run_options(options)
    if worker:
        options["reuse_port"] = True  # the workers share the supervisor's reservation (checked there)
    try:
        return int(app.run(host=args.host, port=port, threads=threads, **options) or 0)
    except RuntimeError as exc:
        if "address already in use" not in str(exc):
            raise
        message = f"error: {exc}"
    # Raised outside the handler, with the app dropped: no traceback keeps the native server alive at exit.
    del app
    raise SystemExit(message)


def _supervise(args: argparse.Namespace) -> int:
    reservation = _reserve_port(args.host, args.port, share=args.reuse_port)
    port = reservation.getsockname()[1] if reservation is not None else args.port
    threads = args.threads or max(1, (os.cpu_count() or 1) // args.workers)
    server_options(args)  # flag errors are reported once, here

    def worker() -> int:
        try:
            return _serve(args, port, threads, worker=True)
        except BaseException:  # noqa: BLE001 - import or bind failure: the supervisor must not retry blindly
            traceback.print_exc()
            return EXIT_STARTUP_FAILED

    watcher = FileWatcher(args.reload_dirs or [args.app_dir]) if args.reload else None
    logging.getLogger("slipstream").info("%d worker(s) on http://%s:%d%s", args.workers, args.host, port,
                                         " (reload on)" if watcher else "")
    supervisor = Supervisor(worker, args.workers, watcher=watcher,
                            close_in_child=[reservation] if reservation is not None else [])
    try:
        return supervisor.run()
    finally:
        if reservation is not None:
            reservation.close()


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "new":
        return cli_new.run(args)
    if args.command == "mcp":
        return cli_mcp.run(args, load_app, log_setup.configure)
    if args.command == "serve-model":
        return cli_serve_model.run(args, log_setup.configure)
    if args.command == "decide":
        return cli_decide.run(args)
    if args.command == "bench":
        return cli_bench.run(args)
    if args.command not in ("run", "asgi"):
        return cli_inspect.run_command(args, load_app)
    args.reload_dirs = args.reload_dirs or args.reload_dirs_env
    if not args.app:
        raise SystemExit("error: the app (module:attribute) is required (or SLIPSTREAM_APP)")
    log_setup.configure(args.log_level, args.log_format)
    if args.workers == 1 and not args.reload:
        return _serve(args, args.port, args.threads)
    return _supervise(args)


if __name__ == "__main__":
    sys.exit(main())
