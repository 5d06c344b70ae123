#!/usr/bin/env python3
"""The `/decide` service (issue 23): decisions/s, p50/p99 and server CPU per request of Slipstream's C++ capsule
(hello --decide) against a FastAPI implementation of the same decision logic (bench/apps/decide_fastapi.py: hashed
features, a numpy ridge per action, SquareCB, SQLite logging) on uvicorn with uvloop and httptools, in shadow mode
(`frozen`: decisions written behind) and learning mode (`learner`: each decision committed before it is answered),
with decisions alone and with decide+reward pairs (each reward closes a decision and is learned), at 1 and 50
connections. Server pinned to CPU 0 with one thread / one worker; wrk pinned to CPU 1. Prints a ledger section.

    .venv/bin/python bench/decide_bench.py [--duration 5] [--rounds 3] [--load "..."] [--append-ledger]
"""

from __future__ import annotations

import argparse
import glob
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
BUILD = os.path.join(REPO_DIR, os.environ.get("SLIPSTREAM_BUILD_DIR", "build"))
PYTHON = os.path.join(REPO_DIR, ".venv", "bin", "python")

sys.path.insert(0, REPO_DIR)
from bench.harness import cpu, foreign_load, fsync_latency, ledger, procs
from bench.session_appends import free_port, wait_up

PATH = "/v1/tenants/bench/jobs/router/capsules/model"
SPEC = {
    "actions": [{"id": "small"}, {"id": "medium"}, {"id": "large"}, {"id": "xl"}],
    "features": {
        "dimension": 32,
        "context": [{"name": "len", "scale": 0.01}, {"name": "user.tier", "type": "categorical"}],
    },
    "reward": {"range": [0, 1], "waitSeconds": 3600},
    "exploration": {"type": "squarecb", "gamma": 50, "floor": 0.02},
}
BODY = '{"context":{"len":120,"user":{"tier":"pro"}}}'

# wrk: decisions only, or decide+reward pairs (a reward for each answered decision, sent by whichever connection
# is free next; the reward's value depends on the action so the model changes).
LUA = r"""
local path = os.getenv("DECIDE_PATH")
local body = os.getenv("DECIDE_BODY")
local pairs_mode = os.getenv("DECIDE_PAIRS") == "1"
local pending = {}
-- wrk.format() with a headers table sends only those: Host is named here (HTTP/1.1 requires it).
local headers = {["Host"] = "127.0.0.1", ["Content-Type"] = "application/json"}
local decide = wrk.format("POST", path .. "/decide", headers, body)
request = function()
  if pairs_mode and #pending > 0 then
    local item = table.remove(pending)
    return wrk.format("POST", path .. "/reward", headers,
                      '{"decisionId":"' .. item[1] .. '","reward":' .. item[2] .. '}')
  end
  return decide
end
response = function(status, headers, body)
  if pairs_mode and status == 200 then
    local id = string.match(body, '"decisionId":"([^"]+)"')
    local action = string.match(body, '"action":"([^"]+)"')
    if id and action and #pending < 10000 then
      table.insert(pending, {id, action == "large" and "1" or "0"})
    end
  end
end
done = function(summary, latency, requests)
  io.write(string.format("P99_US %d\n", latency:percentile(99)))
  io.write(string.format("P50_US %d\n", latency:percentile(50)))
end
"""

CONTENDERS = ("Slipstream C++ (hello --decide)", "FastAPI (uvicorn, numpy, sqlite3)")
REFERENCE = CONTENDERS[1]
CASES = (("frozen", False), ("learner", False), ("learner", True))


def call(port: int, method: str, path: str, body: str) -> tuple[int, str]:
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    c.request(method, path, body=body.encode(), headers={"Content-Type": "application/json"})
    r = c.getresponse()
    out = (r.status, r.read().decode())
    c.close()
    return out


def start(label: str, mode: str, port: int, work: str) -> subprocess.Popen:
    data = tempfile.mkdtemp(dir=work)
    if label == CONTENDERS[0]:
        argv = [
            os.path.join(BUILD, "examples", "hello"),
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--threads",
            "1",
            "--no-access-log",
            "--decide",
            "--data-dir",
            data,
        ]
        env = dict(os.environ)
    else:
        argv = [
            PYTHON,
            "-m",
            "uvicorn",
            "decide_fastapi:app",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--workers",
            "1",
            "--loop",
            "uvloop",
            "--http",
            "httptools",
            "--no-access-log",
            "--log-level",
            "warning",
        ]
        env = dict(
            os.environ,
            DECIDE_MODE=mode,
            DECIDE_DB=os.path.join(data, "decide.db"),
            BENCH_RUNTIME_DIR=data,
            PYTHONPATH=os.path.join(BENCH_DIR, "apps"),
        )
    proc = subprocess.Popen(
        ["taskset", "-c", "0", *argv],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=env,
        cwd=os.path.join(BENCH_DIR, "apps"),
    )
    wait_up(port, proc)
    if label == CONTENDERS[0]:
        status, text = call(port, "PUT", PATH + "/spec", json.dumps({**SPEC, "mode": mode}))
        assert status == 201, text
    else:
        deadline = time.monotonic() + 10
        while not glob.glob(os.path.join(data, "runtime-*.json")) and time.monotonic() < deadline:
            time.sleep(0.05)
        with open(glob.glob(os.path.join(data, "runtime-*.json"))[0]) as f:
            report = json.load(f)
        if not report.get("loop", "").startswith("uvloop.") or report.get("http") != "httptools":
            procs.stop(proc)
            raise RuntimeError(f"the FastAPI peer fell back: {report.get('loop')} {report.get('http')}")
    status, text = call(port, "POST", PATH + "/decide", BODY)
    assert status == 200 and '"decisionId"' in text, text  # pre-flight: a decision
    return proc


def run_wrk(port: int, lua_file: str, env: dict, duration: int, connections: int) -> dict:
    argv = [
        "taskset",
        "-c",
        "1",
        "wrk",
        "-t",
        "1",
        "-c",
        str(connections),
        "-d",
        f"{duration}s",
        "--latency",
        "-s",
        lua_file,
        f"http://127.0.0.1:{port}",
    ]
    out = subprocess.run(argv, capture_output=True, text=True, env=env, check=True).stdout
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    sock = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", out)
    return {
        "requests": int(re.search(r"(\d+) requests in", out).group(1)),
        "rps": float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1)),
        "p50_ms": int(re.search(r"P50_US (\d+)", out).group(1)) / 1000,
        "p99_ms": int(re.search(r"P99_US (\d+)", out).group(1)) / 1000,
        "errors": (int(non2xx.group(1)) if non2xx else 0) + (sum(map(int, sock.groups())) if sock else 0),
    }


def measure(label: str, mode: str, pairs: bool, connections: int, args: argparse.Namespace, work: str) -> dict:
    port = free_port()
    proc = start(label, mode, port, work)
    try:
        lua_file = os.path.join(work, "decide.lua")
        with open(lua_file, "w") as f:
            f.write(LUA)
        env = dict(os.environ, DECIDE_PATH=PATH, DECIDE_BODY=BODY, DECIDE_PAIRS="1" if pairs else "0")
        run_wrk(port, lua_file, env, 1, connections)  # warm-up
        machine_before = foreign_load.read_machine()
        children_before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start_wall = time.monotonic()
        before = cpu.tree_times(proc.pid)
        result = run_wrk(port, lua_file, env, args.duration, connections)
        after = cpu.tree_times(proc.pid)
        wall = time.monotonic() - start_wall
        children_after = resource.getrusage(resource.RUSAGE_CHILDREN)
        machine_after = foreign_load.read_machine()
        ticks = os.sysconf("SC_CLK_TCK")
        client_s = (children_after.ru_utime - children_before.ru_utime) + (
            children_after.ru_stime - children_before.ru_stime
        )
        server_ticks = (after.user - before.user) + (after.system - before.system)
        result["foreign_cores"] = foreign_load.foreign_cores(
            machine_before, machine_after, server_ticks, int(client_s * ticks), wall
        )
        served = max(1, result["requests"])
        result["user_us"] = (after.user - before.user) / ticks / served * 1e6
        result["kernel_us"] = (after.system - before.system) / ticks / served * 1e6
        result["cpu_us"] = result["user_us"] + result["kernel_us"]
        result["server_cores"] = ((after.user - before.user) + (after.system - before.system)) / ticks / args.duration
        return result
    finally:
        procs.stop(proc)


def machine_load() -> float:
    """Cores busy on the machine over one second (everything: other users' builds included)."""

    def snap() -> tuple[int, int]:
        with open("/proc/stat") as f:
            fields = [int(x) for x in f.readline().split()[1:]]
        return sum(fields) - fields[3] - fields[4], sum(fields)

    busy0, total0 = snap()
    time.sleep(1)
    busy1, total1 = snap()
    return (busy1 - busy0) / max(1, total1 - total0) * (os.cpu_count() or 1)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--duration", type=int, default=5, help="seconds measured per run (5)")
    p.add_argument("--rounds", type=int, default=3, help="rounds, contenders rotated each round (3)")
    p.add_argument("--connections", default="1,50", help="wrk connections, comma-separated (1,50)")
    p.add_argument("--load", default="", help="what else ran on the machine, for the ledger")
    p.add_argument("--append-ledger", action="store_true", help="append the section to BENCHMARKS.md")
    args = p.parse_args(argv)
    if shutil.which("wrk") is None or shutil.which("taskset") is None:
        print("wrk and taskset are needed (bench/setup.sh)", file=sys.stderr)
        return 1
    conns = [int(c) for c in args.connections.split(",")]
    idle_load = machine_load()
    results: dict[tuple, list[dict]] = {}
    work = tempfile.mkdtemp(prefix="ss-decide-bench-")
    disk: dict[str, dict] = {}
    try:
        disk["before"] = fsync_latency.measure(work)
        for round_ in range(args.rounds):
            order = CONTENDERS[round_ % 2 :] + CONTENDERS[: round_ % 2]
            for mode, pairs in CASES:
                for c in conns:
                    for label in order:
                        r = measure(label, mode, pairs, c, args, work)
                        results.setdefault((label, mode, pairs, c), []).append(r)
                        print(
                            f"# {label} {mode} pairs={pairs} c={c}: {r['rps']:.0f}/s p99 {r['p99_ms']} ms "
                            f"cpu {r['cpu_us']:.1f} us",
                            file=sys.stderr,
                        )
        disk["after"] = fsync_latency.measure(work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    section = render(results, conns, args, argv, idle_load, disk)
    print(section)
    raw = os.path.join(REPO_DIR, "bench", "results", time.strftime("decide-%Y%m%dT%H%M%SZ.jsonl", time.gmtime()))
    with open(raw, "w") as f:
        for (label, mode, pairs, c), rows in results.items():
            for r in rows:
                f.write(json.dumps({"contender": label, "mode": mode, "pairs": pairs, "connections": c, **r}) + "\n")
    if args.append_ledger:
        path = os.path.join(REPO_DIR, "BENCHMARKS.md")
        ledger.append_section(path, section, ledger.committed_version(path))
    return 0


DISTURBED_CORES = 0.2  # foreign load past which a run counts as disturbed (BENCHMARKING.md)


def disturbed_line(results: dict) -> str:
    runs = [r for rows in results.values() for r in rows]
    n = sum(1 for r in runs if r["foreign_cores"] > DISTURBED_CORES)
    line = f"- Disturbed runs (others used more than {DISTURBED_CORES} cores): {n} of {len(runs)}"
    if n:
        line += (
            " — **flagged: numbers from a busy machine**: quote CPU per request and its ratios; requests/s and "
            "p50/p99 carry the other processes' scheduling delays on both pinned cores"
        )
    return line


def render(
    results: dict, conns: list[int], args: argparse.Namespace, argv: list[str] | None, idle_load: float, disk: dict
) -> str:
    def med(key: tuple, field: str) -> float:
        return statistics.median(r[field] for r in results[key])

    commit = subprocess.run(
        ["git", "-C", REPO_DIR, "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False
    ).stdout.strip()
    with open("/proc/cpuinfo") as f:
        model = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), "?")
    now = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    out = [
        f"## {now} — {commit} (/decide: decisions/s against a FastAPI implementation of the same logic)",
        "",
        (
            f"- Machine: nproc {os.cpu_count()}, {model}, Linux {os.uname().release}; load: {args.load or 'not labelled'} "
            f"(measured before the run: {idle_load:.2f} cores busy)"
        ),
        f"- Command: `bench/decide_bench.py {' '.join(argv if argv is not None else sys.argv[1:])}`",
        (
            "- Method: one capsule, 4 actions, 32 hashed features (a numeric and a categorical context feature), "
            'SquareCB (gamma 50, floor 0.02); `POST .../decide` with `{"context":{"len":120,"user":{"tier":'
            '"pro"}}}`; pairs: each answered decision gets a `POST .../reward` (1 for `large`, else 0) from the '
            "next free connection. Server pinned to CPU 0 (one I/O thread / one uvicorn worker; the store's own "
            "threads count in its CPU), wrk (1 thread) pinned to CPU 1; "
            f"{args.duration} s per run after 1 s of warm-up, {args.rounds} round(s), contenders alternated, medians; "
            "a fresh server and database per run. SQLite with WAL and synchronous=FULL on both sides. Both sides "
            "check the body, log the propensity and seed, and commit learner-mode decisions and every reward "
            "before answering."
        ),
        disturbed_line(results),
        (
            "- Disk (bench/harness/fsync_latency.py on the data folder's file system, 2000 x write 4 KiB + "
            "fdatasync; the floor under a learning-mode decision at one connection): "
            + "; ".join(
                f"{when} the run p50 {d['p50_ms']:.2f} ms, p99 {d['p99_ms']:.2f} ms, max {d['max_ms']:.2f} ms"
                for when, d in disk.items()
            )
        ),
        "",
    ]
    for mode, pairs in CASES:
        title = {
            ("frozen", False): "shadow mode (frozen: decisions written behind)",
            ("learner", False): "learning mode (learner: each decision committed before the answer)",
            ("learner", True): "learning mode, decide+reward pairs (requests/s counts both)",
        }[(mode, pairs)]
        out += [
            f"### {title}",
            "",
            (
                "| server | conns | req/s (median) | min–max | p50 ms | p99 ms | server CPU us/req (user+kernel) | "
                "server cores | vs FastAPI (req/s) | vs FastAPI (CPU/req) | errors | foreign cores |"
            ),
            "|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for c in conns:
            ref = (REFERENCE, mode, pairs, c)
            for label in CONTENDERS:
                key = (label, mode, pairs, c)
                rates = [r["rps"] for r in results[key]]
                out.append(
                    f"| {label} | {c} | {med(key, 'rps'):,.0f} | {min(rates):,.0f}–{max(rates):,.0f} | "
                    f"{med(key, 'p50_ms'):.2f} | {med(key, 'p99_ms'):.2f} | {med(key, 'cpu_us'):,.1f} "
                    f"({med(key, 'user_us'):,.1f}+{med(key, 'kernel_us'):,.1f}) | {med(key, 'server_cores'):.2f} | "
                    f"{med(key, 'rps') / med(ref, 'rps'):.1f}x | {med(ref, 'cpu_us') / med(key, 'cpu_us'):.1f}x | "
                    f"{sum(r['errors'] for r in results[key])} | {med(key, 'foreign_cores'):.2f} |"
                )
        out.append("")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    sys.exit(main())
