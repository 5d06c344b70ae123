#!/usr/bin/env python3
"""Instructions per request of the C++ server, counted by callgrind, for this checkout against a baseline commit.

Each binary (`examples/bench_app`, one I/O thread, no access log) runs under `valgrind --tool=callgrind`; after a
warm-up the counters are zeroed (`callgrind_control -z`), h2load sends a fixed number of requests, and the counters
are dumped (`callgrind_control -d`): the dump's total over the requests is the figure. Instruction counts do not
depend on the machine's load, so this is the check that a change did not move the request path ("performance
must not move"), where throughput on a 2-core machine varies by a few percent run to run.

Usage: bench/callgrind.py --baseline REV [--current REV] [--workloads hello,h2] [--requests N] [--append-ledger]
The baseline is built in a temporary git worktree, this checkout in `build-callgrind/`, both Release with the same
flags (ccache).
"""
from __future__ import annotations

import argparse
import contextlib
import datetime
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)

from bench.harness import ledger


@dataclass(frozen=True)
class Load:
    name: str
    description: str
    h2load_flags: tuple[str, ...]


LOADS = {
    "hello": Load("hello", "GET /hello over HTTP/1.1, 50 connections", ("--h1", "-c50", "-m1")),
    "h2": Load("h2", "GET /hello over cleartext HTTP/2, 8 connections x 16 streams", ("-c8", "-m16")),
}
WARMUP_REQUESTS = 2000


def _run(cmd: list[str], **kw) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw)


def build_bench_app(tree: str, build: str) -> str:
    """bench_app of the checkout at `tree`, built in `build` (Release, ccache, no tests); returns its path. Both
    sides are built here with the same flags, so only the code differs."""
    env = dict(os.environ, CCACHE_BASEDIR=tree, CCACHE_NOHASHDIR="true")
    if not os.path.exists(os.path.join(build, "build.ninja")):
        _run(["cmake", "-S", tree, "-B", build, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release",
              "-DCMAKE_CXX_COMPILER_LAUNCHER=ccache", "-DSLIPSTREAM_BUILD_TESTS=OFF", "-DSLIPSTREAM_BUILD_BENCH=OFF"],
             env=env)
    _run(["ninja", "-C", build, "bench_app"], env=env)
    return os.path.join(build, "examples", "bench_app")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_ready(port: int, proc: subprocess.Popen, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the server exited ({proc.returncode}) before it listened")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
            return
        time.sleep(0.2)
    raise RuntimeError("the server did not listen in time under valgrind")


def _h2load(port: int, load: Load, requests: int) -> int:
    out = _run(["h2load", "-t1", *load.h2load_flags, "-n", str(requests), f"http://127.0.0.1:{port}/hello"]).stdout
    m = re.search(r"status codes: (\d+) 2xx", out)
    done = int(m.group(1)) if m else 0
    if done != requests:
        raise RuntimeError(f"h2load got {done} 2xx of {requests}:\n{out}")
    return done


def _total_instructions(dump: str) -> int:
    with open(dump) as f:
        for line in f:
            if line.startswith(("totals:", "summary:")):
                return int(line.split()[1])
    raise RuntimeError(f"no totals in {dump}")


def measure(binary: str, load: Load, requests: int, workdir: str) -> float:
    """Instructions per request of `binary` serving `load`."""
    port = _free_port()
    out_dir = tempfile.mkdtemp(dir=workdir)
    proc = subprocess.Popen(
        ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out_dir}/cg.out", binary, "--host", "127.0.0.1",
         "--port", str(port), "--threads", "1", "--no-access-log"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _wait_ready(port, proc)
        _h2load(port, load, WARMUP_REQUESTS)
        _run(["callgrind_control", "-z", str(proc.pid)])
        served = _h2load(port, load, requests)
        _run(["callgrind_control", "-d", str(proc.pid)])
        dumps = sorted((f for f in os.listdir(out_dir) if f.startswith("cg.out.")),
                       key=lambda f: int(f.rsplit(".", 1)[-1]))
        if not dumps:
            raise RuntimeError("callgrind wrote no dump")
        return _total_instructions(os.path.join(out_dir, dumps[-1])) / served
    finally:
        proc.terminate()
        proc.wait(timeout=60)


def _commit(path: str) -> str:
    head = _run(["git", "-C", path, "rev-parse", "--short", "HEAD"]).stdout.strip()
    dirty = _run(["git", "-C", path, "status", "--porcelain", "--untracked-files=no", "--", ".",
                  ":(exclude)BENCHMARKS.md"]).stdout.strip()
    return head + ("+changes" if dirty else "")


def render(rows: list[tuple[str, float, float]], baseline: str, current: str, requests: int, invocation: str) -> str:
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    uname = os.uname()
    out = [f"## {now} — {current} (callgrind: instructions per request against {baseline})", "",
           f"- Machine: nproc {os.cpu_count()}, Linux {uname.release}",
           f"- Commit: {current}; baseline {baseline}",
           f"- Command: `{invocation}`",
           (f"- Method: `examples/bench_app --threads 1 --no-access-log` under `valgrind --tool=callgrind`; "
            f"{WARMUP_REQUESTS} warm-up requests, counters zeroed, {requests:,} requests by `h2load -t1`, counters "
            "dumped; the figure is the dump's total instructions (every thread of the server) over the requests. "
            "Counts, not time: the machine's load does not move them."), "",
           "| workload | baseline instructions/request | this commit | ratio |", "|---|---|---|---|"]
    for name, before, after in rows:
        out.append(f"| {name} — {LOADS[name].description} | {before:,.0f} | {after:,.0f} | {after / before:.4f} |")
    return "\n".join(out) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--baseline", required=True, help="the commit to compare against (built in a worktree)")
    ap.add_argument("--current", help="the commit to measure (built in a worktree); default: this checkout")
    ap.add_argument("--workloads", default="hello,h2")
    ap.add_argument("--requests", type=int, default=20000)
    ap.add_argument("--append-ledger", action="store_true", help="append the table to BENCHMARKS.md")
    args = ap.parse_args()
    for tool in ("valgrind", "callgrind_control", "h2load"):
        if shutil.which(tool) is None:
            print(f"callgrind: {tool} is not installed (bash bench/setup.sh)", file=sys.stderr)
            return 2
    names = [n for n in args.workloads.split(",") if n]
    unknown = [n for n in names if n not in LOADS]
    if unknown:
        print(f"callgrind: unknown workload(s) {unknown}; known: {sorted(LOADS)}", file=sys.stderr)
        return 2
    workdir = tempfile.mkdtemp(prefix="ss-callgrind-")
    try:
        tree = os.path.join(workdir, "baseline")
        _run(["git", "-C", REPO, "worktree", "add", "--detach", tree, args.baseline])
        base_binary = build_bench_app(tree, os.path.join(workdir, "build-baseline"))
        if args.current:
            current_tree = os.path.join(workdir, "current")
            _run(["git", "-C", REPO, "worktree", "add", "--detach", current_tree, args.current])
        else:
            current_tree = REPO
        current = _commit(current_tree)  # named when built: later edits to the checkout do not rename it
        binary = build_bench_app(current_tree, os.path.join(workdir if args.current else REPO,
                                                            "build-current" if args.current else "build-callgrind"))
        baseline = _commit(tree)
        rows = []
        for name in names:
            before = measure(base_binary, LOADS[name], args.requests, workdir)
            after = measure(binary, LOADS[name], args.requests, workdir)
            rows.append((name, before, after))
            print(f"{name}: {before:,.0f} -> {after:,.0f} instructions per request ({after / before:.4f})")
        invocation = "bench/callgrind.py " + " ".join(sys.argv[1:])
        section = render(rows, baseline, current, args.requests, invocation)
        print(section)
        if args.append_ledger:
            path = os.path.join(REPO, "BENCHMARKS.md")
            ledger.append_section(path, section, ledger.committed_version(path))
    finally:
        for tree_name in ("baseline", "current"):
            subprocess.run(["git", "-C", REPO, "worktree", "remove", "--force", os.path.join(workdir, tree_name)],
                           capture_output=True, check=False)
        shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
