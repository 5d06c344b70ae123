#!/usr/bin/env python3
"""One unchanged FastAPI app (bench/apps/fastapi_app.py) on ASGI servers (issue 25): uvicorn (uvloop + httptools),
Granian's ASGI interface (when installed) and `slipstream asgi`. Workloads: `hello` (GET /hello), `echo` (POST
/echo, JSON parsed and re-serialized by FastAPI) and `validated` (POST /items against a pydantic model, 1 in 10
invalid: 422); `bare` is GET /hello on a bare ASGI app (bench/apps/asgi_hello_app.py): the server's own cost,
without FastAPI's. One worker each, the server pinned to CPU 0 and wrk (1 thread) to CPU 1; requests/s, p50/p99 and
the server's CPU per request (user + kernel, its whole process tree). Prints a ledger section (Markdown).

    .venv/bin/python bench/asgi_servers.py [--duration 5] [--connections 32] [--rounds 3] [--workloads bare,hello]
"""
from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
REPO_DIR = os.path.dirname(BENCH_DIR)
APPS_DIR = os.path.join(BENCH_DIR, "apps")
LUA_DIR = os.path.join(BENCH_DIR, "lua")
PYTHON = os.path.join(REPO_DIR, ".venv", "bin", "python")

sys.path.insert(0, REPO_DIR)
sys.path.insert(0, APPS_DIR)
import payloads

from bench.harness import cpu, foreign_load, procs
from bench.session_appends import free_port, wait_up

# name -> (method, path, wrk script and its body files, the body each one is checked against)
WORKLOADS = {
    "bare": ("GET", "/hello", None, {}, None),
    "hello": ("GET", "/hello", None, {}, None),
    "echo": ("POST", "/echo", "post.lua", {"echo.json": payloads.ECHO_BODY}, payloads.ECHO_BODY),
    "validated": ("POST", "/items", "validated.lua", {"valid.json": payloads.VALID_ITEM,
                                                      "invalid.json": payloads.INVALID_ITEM}, payloads.VALID_ITEM),
}

CONTENDERS = {
    "uvicorn (uvloop, httptools)": lambda port, app: [
        PYTHON, "-m", "uvicorn", app, "--app-dir", APPS_DIR, "--host", "127.0.0.1", "--port", str(port),
        "--workers", "1", "--loop", "uvloop", "--http", "httptools", "--no-access-log", "--log-level", "warning"],
    "Granian (ASGI, uvloop)": lambda port, app: [
        PYTHON, "-m", "granian", "--interface", "asgi", "--host", "127.0.0.1", "--port", str(port), "--workers", "1",
        "--runtime-mode", "st", "--runtime-threads", "1", "--loop", "uvloop", "--no-access-log", "--log-level",
        "warning", "--working-dir", APPS_DIR, app],
    "slipstream asgi": lambda port, app: [
        PYTHON, "-m", "slipstream", "asgi", app, "--app-dir", APPS_DIR, "--host", "127.0.0.1",
        "--port", str(port), "--threads", "1", "--no-access-log", "--log-level", "warning"],
}
REFERENCE = "uvicorn (uvloop, httptools)"
OURS = "slipstream asgi"


def available(label: str) -> str | None:
    """Why a contender cannot run here, or None."""
    module = CONTENDERS[label](0, "")[2]
    module = "slipstream.asgi" if module == "slipstream" else module
    ok = subprocess.run([PYTHON, "-c", f"import {module}"], capture_output=True, check=False).returncode == 0
    return None if ok else f"{module} is not installed"


def check(port: int, workload: str) -> None:
    """The server answers the workload's request as FastAPI does before it is measured."""
    method, path, _, _, body = WORKLOADS[workload]
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request(method, path, body=body, headers={"Content-Type": "application/json"} if body else {})
    response = conn.getresponse()
    got = response.read()
    conn.close()
    expected = b'{"message":"hello"}' if body is None else body
    if response.status != 200 or got != expected:
        raise RuntimeError(f"{workload}: {response.status} {got[:200]!r}")


def run_wrk(port: int, workload: str, work: str, duration: int, connections: int) -> dict:
    _, path, script, files, _ = WORKLOADS[workload]
    argv = ["taskset", "-c", "1", "wrk", "-t", "1", "-c", str(connections), "-d", f"{duration}s", "--latency"]
    if script:
        for name, content in files.items():
            with open(os.path.join(work, name), "wb") as f:
                f.write(content)
        argv += ["-s", os.path.join(LUA_DIR, script), f"http://127.0.0.1:{port}{path}", "--",
                 *(os.path.join(work, name) for name in files)]
    else:
        argv.append(f"http://127.0.0.1:{port}{path}")
    out = subprocess.run(argv, capture_output=True, text=True, check=True).stdout
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    errors = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", out)
    return {"requests": int(re.search(r"(\d+) requests in", out).group(1)),
            "rps": float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1)),
            "p50_ms": _ms(re.search(r"50%\s+([\d.]+)(us|ms|s)", out)),
            "p99_ms": _ms(re.search(r"99%\s+([\d.]+)(us|ms|s)", out)),
            "non2xx": int(non2xx.group(1)) if non2xx else 0,
            "socket_errors": sum(int(g) for g in errors.groups()) if errors else 0}


def _ms(match: re.Match[str] | None) -> float:
    if match is None:
        return float("nan")
    value, unit = float(match.group(1)), match.group(2)
    return value / 1000 if unit == "us" else value * 1000 if unit == "s" else value


def measure(label: str, workload: str, args: argparse.Namespace, work: str) -> dict:
    port = free_port()
    app = "asgi_hello_app:app" if workload == "bare" else "fastapi_app:app"
    reports = tempfile.mkdtemp(prefix="ss-asgi-runtime-", dir=work)
    proc = subprocess.Popen(["taskset", "-c", "0", *CONTENDERS[label](port, app)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, cwd=APPS_DIR, env=dict(os.environ, BENCH_RUNTIME_DIR=reports))
    try:
        wait_up(port, proc)
        check(port, workload)
        run_wrk(port, workload, work, 1, args.connections)  # warm-up
        machine_before = foreign_load.read_machine()
        client_before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.monotonic()
        before = cpu.tree_times(proc.pid)
        result = run_wrk(port, workload, work, args.duration, args.connections)
        after = cpu.tree_times(proc.pid)
        wall = time.monotonic() - start
        client_after = resource.getrusage(resource.RUSAGE_CHILDREN)
        machine_after = foreign_load.read_machine()
        client_s = (client_after.ru_utime - client_before.ru_utime) + (client_after.ru_stime - client_before.ru_stime)
        result["foreign_cores"] = foreign_load.foreign_cores(machine_before, machine_after, (after - before).total,
                                                             int(client_s * cpu.CLOCK_TICKS), wall)
        user, kernel = (after - before).us_per_request(max(1, result["requests"]))
        result["user_us"], result["kernel_us"], result["cpu_us"] = user, kernel, user + kernel
        result["runtime"] = resolved(reports)
        return result
    finally:
        procs.stop(proc)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--duration", type=int, default=5, help="seconds measured per contender, workload and round (5)")
    p.add_argument("--connections", type=int, default=32, help="wrk connections (32)")
    p.add_argument("--rounds", type=int, default=3, help="rounds, contenders rotated each round (3)")
    p.add_argument("--workloads", default="bare,hello,echo,validated",
                   help="comma-separated: bare, hello, echo, validated")
    args = p.parse_args(argv)
    if shutil.which("wrk") is None or shutil.which("taskset") is None:
        print("wrk and taskset are needed (bench/setup.sh)", file=sys.stderr)
        return 1
    workloads = [w for w in args.workloads.split(",") if w]
    unknown = set(workloads) - set(WORKLOADS)
    if unknown:
        p.error(f"unknown workload(s): {', '.join(sorted(unknown))}")
    skipped = {label: why for label in CONTENDERS if (why := available(label))}
    app_cost = app_costs(workloads)
    labels = [label for label in CONTENDERS if label not in skipped]
    results: dict[tuple[str, str], list[dict]] = {}
    work = tempfile.mkdtemp(prefix="ss-asgi-bench-")
    try:
        for round_ in range(args.rounds):
            order = labels[round_ % len(labels):] + labels[:round_ % len(labels)]
            for workload in workloads:
                for label in order:
                    results.setdefault((label, workload), []).append(measure(label, workload, args, work))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(render(results, labels, skipped, workloads, args, argv, app_cost))
    return 0


def resolved(folder: str) -> str:
    """What the server's app process ran (bench/apps/runtime_report.py: its event loop and HTTP parser), as a
    short text; empty when the app wrote nothing (the bare app has no lifespan report)."""
    for name in sorted(os.listdir(folder)):
        if name.startswith("runtime-") and name.endswith(".json"):
            with open(os.path.join(folder, name)) as f:
                facts = json.load(f)
            return ", ".join(x for x in (facts.get("loop", ""), facts.get("http", "")) if x)
    return ""


def app_costs(workloads: list[str]) -> dict[str, float]:
    """The app's own CPU per request without a server (bench/asgi_app_cost.py, pinned to CPU 0)."""
    done = subprocess.run(["taskset", "-c", "0", PYTHON, os.path.join(BENCH_DIR, "asgi_app_cost.py"),
                           "--workloads", ",".join(workloads)], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        print(f"asgi_app_cost.py failed: {done.stderr[-500:]}", file=sys.stderr)
        return {}
    return json.loads(done.stdout)


def render(results: dict, labels: list[str], skipped: dict[str, str], workloads: list[str],
           args: argparse.Namespace, argv: list[str] | None, app_cost: dict[str, float] | None = None) -> str:
    def med(label: str, workload: str, key: str) -> float:
        return statistics.median(r[key] for r in results[(label, workload)])

    commit = subprocess.run(["git", "-C", REPO_DIR, "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                            check=False).stdout.strip()
    now = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    out = [f"## {now} — {commit} (an unchanged FastAPI app on ASGI servers)", "",
           f"- Machine: nproc {os.cpu_count()}, Linux {os.uname().release}",
           f"- Command: `bench/asgi_servers.py {' '.join(argv if argv is not None else sys.argv[1:])}`",
           (f"- Method: bench/apps/fastapi_app.py unchanged (`bare`: bench/apps/asgi_hello_app.py); one worker per server pinned to CPU 0, wrk (1 thread, "
            f"{args.connections} connections) pinned to CPU 1; {args.duration} s per server, workload and round, "
            f"{args.rounds} round(s) in rotating order, medians; each server's answer is checked before its run; "
            "server CPU per request is user + kernel time of its process tree over the requests served"), ""]
    runs = [r for rows in results.values() for r in rows]
    disturbed = [r for r in runs if foreign_load.disturbed(r["foreign_cores"])]
    load = f"- Foreign load: {len(disturbed)} of {len(runs)} runs disturbed (others used more than " \
           f"{foreign_load.DISTURBANCE_LIMIT_CORES} cores; median {statistics.median(r['foreign_cores'] for r in runs):.2f}," \
           f" max {max(r['foreign_cores'] for r in runs):.2f} cores)"
    if disturbed:
        load = "- **BUSY MACHINE** " + load[2:] + ": compare CPU per request, not requests/s"
    out += [load, ""]
    for workload in workloads:
        ref = med(REFERENCE, workload, "rps") if REFERENCE in labels else 0.0
        ref_cpu = med(REFERENCE, workload, "cpu_us") if REFERENCE in labels else 0.0
        best_peer = min((med(label, workload, "cpu_us") for label in labels if label != OURS), default=0.0)
        out += [f"### `{workload}`", "",
                ("| server | req/s (median) | min–max | p50 ms | p99 ms | server CPU us/req (user + kernel) | "
                 "vs uvicorn (req/s) | vs uvicorn (CPU/req) | vs best peer (CPU/req) | non-2xx | socket errors | "
                 "foreign cores (max) |"),
                "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for label in labels:
            rows = results[(label, workload)]
            rps = med(label, workload, "rps")
            cpu_us = med(label, workload, "cpu_us")
            rates = [r["rps"] for r in rows]
            out.append(f"| {label} | {rps:,.0f} | {min(rates):,.0f}–{max(rates):,.0f} | "
                       f"{med(label, workload, 'p50_ms'):.2f} | {med(label, workload, 'p99_ms'):.2f} | {cpu_us:,.1f} "
                       f"({med(label, workload, 'user_us'):,.1f} + {med(label, workload, 'kernel_us'):,.1f}) | "
                       f"{rps / ref if ref else float('nan'):.2f}x | {ref_cpu / cpu_us if cpu_us else float('nan'):.2f}x"
                       f" | {best_peer / cpu_us if cpu_us and best_peer else float('nan'):.2f}x"
                       f" | {sum(r['non2xx'] for r in rows)} | {sum(r['socket_errors'] for r in rows)} | "
                       f"{max(r['foreign_cores'] for r in rows):.2f} |")
        if app_cost and workload in app_cost:
            what = "the bare app" if workload == "bare" else "FastAPI"
            out.append(f"| {what} alone, no server (bench/asgi_app_cost.py) | | | | | {app_cost[workload]:,.1f} "
                       "| | | | | | |")
        out.append("")
    for label in labels:
        seen = sorted({r["runtime"] for rows in [results[(label, w)] for w in workloads] for r in rows if r["runtime"]})
        out.append(f"- {label} resolved: {'; '.join(seen) or 'not reported'}")
    for label, why in skipped.items():
        out.append(f"- Not measured: {label}: {why}.")
    out += ["", "Caveats:", "",
            ("- Two cores: the server has CPU 0 and wrk CPU 1; the server CPU per request is the figure that holds "
             "when wrk's core is the ceiling."),
            "- `validated` answers 1 request in 10 with 422 by design: those are the non-2xx counted there."]
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    sys.exit(main())
