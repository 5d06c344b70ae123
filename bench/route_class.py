"""Cost of a custom route class (FastAPI's "Custom Request and APIRoute class" timing route): server CPU per request
and requests/s for GET /items/7?q=x served by Slipstream as an ordinary route, by Slipstream through an APIRoute
subclass (Python reads and validates the parameters), and by FastAPI on uvicorn through the same subclass.

    .venv/bin/python bench/route_class.py [--seconds 5] [--rounds 3] [--connections 16]

Server on CPU 0, wrk on CPU 1 (BENCHMARKING.md); one server thread or worker each; rounds rotate the order; the
median per contender is printed with its min-max spread. The server's CPU time (utime+stime of its process, from
/proc) divided by the requests served is the figure that holds when the client is the ceiling."""

from __future__ import annotations

import argparse
import os
import re
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Callable

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
APPS = os.path.join(ROOT, "bench", "apps")
PORT = 18731
CONTENDERS = {
    "slipstream ordinary route": ("slipstream", "0"),
    "slipstream route class": ("slipstream", "1"),
    "fastapi route class (uvicorn)": ("fastapi", "1"),
}


def _argv(framework: str) -> list[str]:
    """The server's command line: uvicorn (uvloop, httptools) or `slipstream run` with one I/O thread."""
    where = ["route_class_app:app", "--app-dir", APPS, "--port", str(PORT)]
    if framework == "fastapi":
        options = "--loop uvloop --http httptools --no-access-log --log-level warning"
        return [sys.executable, "-m", "uvicorn", *where, *options.split()]
    return [sys.executable, "-m", "slipstream", "run", *where, "--threads", "1"]


def _wait_ready() -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", PORT), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError("the server did not start")


def _cpu_ticks(pid: int) -> int:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def run_one(name: str, seconds: int, connections: int) -> tuple[float, float]:
    """(requests/s, server CPU microseconds per request) for one contender."""
    framework, route_class = CONTENDERS[name]
    env = {**os.environ, "BENCH_FRAMEWORK": framework, "BENCH_ROUTE_CLASS": route_class}
    return measure(name, _argv(framework), env, f"http://127.0.0.1:{PORT}/items/7?q=x", seconds, connections)


def measure(
    name: str, argv: list[str], env: dict[str, str], url: str, seconds: int, connections: int
) -> tuple[float, float]:
    """Starts the server `argv` on CPU 0, loads `url` with wrk on CPU 1: (requests/s, server CPU µs/request)."""
    server = subprocess.Popen(
        ["taskset", "-c", "0", *argv],
        env=env,
        cwd=APPS,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        _wait_ready()
        subprocess.run(
            ["taskset", "-c", "1", "wrk", "-t1", "-c", str(connections), "-d1s", url], capture_output=True, check=True
        )  # warm-up
        before = _cpu_ticks(server.pid)
        out = subprocess.run(
            ["taskset", "-c", "1", "wrk", "-t1", "-c", str(connections), f"-d{seconds}s", url],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        ticks = _cpu_ticks(server.pid) - before
    finally:
        server.terminate()
        server.wait(timeout=30)
    requests = int(re.search(r"(\d+) requests in", out).group(1))
    if "Non-2xx" in out:
        raise RuntimeError(f"{name}: non-2xx answers\n{out}")
    return requests / seconds, ticks * 1e6 / os.sysconf("SC_CLK_TCK") / max(requests, 1)


def compare(description: str, names: list[str], run: Callable[[str, int, int], tuple[float, float]]) -> None:
    """The command line (--seconds, --rounds, --connections); rounds of `run` over `names` in rotating order; the
    median and spread per contender."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--seconds", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--connections", type=int, default=16)
    args = parser.parse_args()
    results: dict[str, list[tuple[float, float]]] = {n: [] for n in names}
    for r in range(args.rounds):
        for name in names[r % len(names) :] + names[: r % len(names)]:
            results[name].append(run(name, args.seconds, args.connections))
    width = max(len(n) for n in names) + 2
    for name in names:
        rps = [x[0] for x in results[name]]
        cpu = [x[1] for x in results[name]]
        print(
            f"{name:{width}s} {statistics.median(rps):9.0f} req/s ({min(rps):.0f}-{max(rps):.0f})  "
            f"{statistics.median(cpu):7.1f} us CPU/request ({min(cpu):.1f}-{max(cpu):.1f})"
        )


def main() -> None:
    compare(__doc__.splitlines()[0], list(CONTENDERS), run_one)


if __name__ == "__main__":
    main()
