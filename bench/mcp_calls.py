#!/usr/bin/env python3
"""MCP `tools/call` over Streamable HTTP (issue 21): calls/s, p99 and server CPU per call for a small tool (`add`)
and a tool returning a 10 KiB structured result (`big`), with JSON answers and with each server's default (SSE
streams for the SDK servers), against the official MCP Python SDK's server and FastMCP on uvicorn with the same
tools. Every server validates the arguments. One server process with one worker each, pinned to CPU 0; wrk pinned to
CPU 1 posts the calls on one initialized session. Prints a ledger section (Markdown).

    .venv/bin/python bench/mcp_calls.py [--duration 5] [--connections 16] [--rounds 3] [--append-ledger]
"""
from __future__ import annotations

import argparse
import http.client
import json
import os
import re
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
from bench.harness import cpu, foreign_load, ledger, procs
from bench.session_appends import client_ticks, free_port, wait_up

VERSION = "2025-06-18"
ACCEPT = "application/json, text/event-stream"
TOOLS = {"add": {"a": 1.5, "b": 2}, "big": {}}

LUA = r"""
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Accept"] = "application/json, text/event-stream"
wrk.headers["Mcp-Session-Id"] = os.getenv("MCP_SESSION")
wrk.headers["MCP-Protocol-Version"] = os.getenv("MCP_VERSION")
local tool = os.getenv("MCP_TOOL")
local args = os.getenv("MCP_ARGS")
local counter = 0
request = function()
  counter = counter + 1
  return wrk.format(nil, "/mcp", nil, '{"jsonrpc":"2.0","id":' .. counter ..
                    ',"method":"tools/call","params":{"name":"' .. tool .. '","arguments":' .. args .. '}}')
end
done = function(summary, latency, requests)
  io.write(string.format("P99_US %d\n", latency:percentile(99)))
  io.write(string.format("P50_US %d\n", latency:percentile(50)))
end
"""

# (label, how to start it given port and mode); mode is "json" or "sse".
CONTENDERS = {
    "Slipstream C++ (examples/mcp_server)": lambda port, mode: [
        os.path.join(BUILD, "examples", "mcp_server"), "--host", "127.0.0.1", "--port", str(port), "--threads", "1"]
        + (["--json-response"] if mode == "json" else []),
    "Slipstream Python (slipstream.mcp)": lambda port, mode: [
        PYTHON, os.path.join(BENCH_DIR, "apps", "mcp_servers.py"), "slipstream", str(port), mode],
    "MCP Python SDK MCPServer (uvicorn)": lambda port, mode: [
        PYTHON, os.path.join(BENCH_DIR, "apps", "mcp_servers.py"), "sdk", str(port), mode],
    "FastMCP (uvicorn)": lambda port, mode: [
        PYTHON, os.path.join(BENCH_DIR, "apps", "mcp_servers.py"), "fastmcp", str(port), mode],
}
REFERENCE = "MCP Python SDK MCPServer (uvicorn)"


def post(port: int, body: dict, session: str | None = None) -> tuple[int, dict, str]:
    headers = {"Content-Type": "application/json", "Accept": ACCEPT}
    if session:
        headers |= {"Mcp-Session-Id": session, "MCP-Protocol-Version": VERSION}
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    c.request("POST", "/mcp", body=json.dumps(body).encode(), headers=headers)
    r = c.getresponse()
    text = r.read().decode()
    out = (r.status, {k.lower(): v for k, v in r.getheaders()}, text)
    c.close()
    return out


def open_session(port: int) -> tuple[str, str]:
    """Initializes a session; returns its id and the content type a tools/call is answered with."""
    status, headers, text = post(port, {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": VERSION, "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}})
    assert status == 200, (status, text)
    session = headers.get("mcp-session-id", "")
    status, _, text = post(port, {"jsonrpc": "2.0", "method": "notifications/initialized"}, session)
    assert status == 202, (status, text)
    status, headers, text = post(port, {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "add", "arguments": TOOLS["add"]}}, session)
    assert status == 200 and '"result"' in text and '"isError":true' not in text, (status, text)
    return session, headers.get("content-type", "").split(";")[0]


def run_wrk(port: int, lua_file: str, env: dict, duration: int, connections: int) -> dict:
    argv = ["taskset", "-c", "1", "wrk", "-t", "1", "-c", str(connections), "-d", f"{duration}s", "--latency",
            "-s", lua_file, f"http://127.0.0.1:{port}"]
    out = subprocess.run(argv, capture_output=True, text=True, env=env, check=True).stdout
    total = int(re.search(r"(\d+) requests in", out).group(1))
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    errors = int(non2xx.group(1)) if non2xx else 0
    return {"requests": total, "rps": float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1)),
            "p50_ms": int(re.search(r"P50_US (\d+)", out).group(1)) / 1000,
            "p99_ms": int(re.search(r"P99_US (\d+)", out).group(1)) / 1000, "errors": errors}


def measure(label: str, mode: str, tool: str, args: argparse.Namespace, work: str) -> dict:
    port = free_port()
    argv = ["taskset", "-c", "0", *CONTENDERS[label](port, mode)]
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        wait_up(port, proc)
        session, answered_as = open_session(port)
        lua_file = os.path.join(work, "mcp_call.lua")
        with open(lua_file, "w") as f:
            f.write(LUA)
        env = dict(os.environ, MCP_SESSION=session, MCP_VERSION=VERSION, MCP_TOOL=tool,
                   MCP_ARGS=json.dumps(TOOLS[tool], separators=(",", ":")))
        run_wrk(port, lua_file, env, 1, args.connections)  # warm-up
        before = cpu.tree_times(proc.pid)
        machine_before = foreign_load.read_machine()
        ticks_before = client_ticks()
        started = time.monotonic()
        result = run_wrk(port, lua_file, env, args.duration, args.connections)
        wall = time.monotonic() - started
        after = cpu.tree_times(proc.pid)
        server = after - before
        served = max(1, result["requests"])
        result["cpu_us"] = server.total / cpu.CLOCK_TICKS / served * 1e6
        # CPU used meanwhile by anything but this server and wrk: another build or test on a shared machine.
        result["foreign"] = foreign_load.foreign_cores(machine_before, foreign_load.read_machine(), server.total,
                                                       client_ticks() - ticks_before, wall)
        result["disturbed"] = foreign_load.disturbed(result["foreign"])
        result["answered_as"] = answered_as
        return result
    finally:
        procs.stop(proc)


def available(label: str) -> str | None:
    """Why a contender cannot run here, or None."""
    argv = CONTENDERS[label](0, "json")
    if argv[0] != PYTHON:
        return None if os.path.exists(argv[0]) else f"{argv[0]} is not built (make build)"
    module = {"sdk": "mcp", "fastmcp": "fastmcp", "slipstream": "slipstream.mcp"}[argv[2]]
    ok = subprocess.run([PYTHON, "-c", f"import {module}"], capture_output=True, check=False).returncode == 0
    return None if ok else f"{module} is not installed (bench/setup.sh)"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--duration", type=int, default=5, help="seconds measured per contender (5)")
    p.add_argument("--connections", type=int, default=16, help="wrk connections (16)")
    p.add_argument("--rounds", type=int, default=3, help="rounds, contenders rotated each round (3)")
    p.add_argument("--append-ledger", action="store_true", help="append the section to BENCHMARKS.md")
    args = p.parse_args(argv)
    if shutil.which("wrk") is None or shutil.which("taskset") is None:
        print("wrk and taskset are needed (bench/setup.sh)", file=sys.stderr)
        return 1
    skipped = {label: why for label in CONTENDERS if (why := available(label))}
    labels = [label for label in CONTENDERS if label not in skipped]
    cases = [(mode, tool) for mode in ("json", "sse") for tool in TOOLS]
    results: dict[tuple[str, str, str], list[dict]] = {}
    work = tempfile.mkdtemp(prefix="ss-mcp-bench-")
    try:
        for round_ in range(args.rounds):
            order = labels[round_ % len(labels):] + labels[:round_ % len(labels)]
            for mode, tool in cases:
                for label in order:
                    results.setdefault((label, mode, tool), []).append(measure(label, mode, tool, args, work))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(render(results, labels, skipped, cases, args, argv))
    if args.append_ledger:
        path = os.path.join(REPO_DIR, "BENCHMARKS.md")
        ledger.append_section(path, render(results, labels, skipped, cases, args, argv), ledger.committed_version(path))
    return 0


def render(results: dict, labels: list[str], skipped: dict[str, str], cases: list[tuple[str, str]],
           args: argparse.Namespace, argv: list[str] | None) -> str:
    def med(label: str, mode: str, tool: str, key: str) -> float:
        return statistics.median(r[key] for r in results[(label, mode, tool)])

    commit = subprocess.run(["git", "-C", REPO_DIR, "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                            check=False).stdout.strip()
    now = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    out = [f"## {now} — {commit} (MCP tools/call over Streamable HTTP against the MCP Python SDK and FastMCP)", "",
           f"- Machine: nproc {os.cpu_count()}, Linux {os.uname().release}",
           f"- Command: `bench/mcp_calls.py {' '.join(argv if argv is not None else sys.argv[1:])}`",
           (f"- Method: `tools/call` on one initialized session (protocol {VERSION}), {args.connections} connections "
            f"(wrk, 1 thread, pinned to CPU 1), server pinned to CPU 0 with one worker; {args.duration} s per "
            f"contender, case and round, {args.rounds} round(s) in rotating order, medians; `add` takes two numbers, "
            "`big` returns a 10 KiB structured result; each server validates the arguments against the tool's "
            "schema; each server's answer to one call is checked before the run (a `result`); non-2xx answers are counted as failed")]
    runs = [r for rows in results.values() for r in rows]
    disturbed = sum(r["disturbed"] for r in runs)
    out += [f"- Disturbed rounds (others used more than {foreign_load.DISTURBANCE_LIMIT_CORES} cores): {disturbed} of "
            f"{len(runs)}" + (" — **flagged: numbers from a busy machine; compare the CPU per call, not calls/s**"
                              if disturbed else ""), ""]
    for mode, tool in cases:
        ref = med(REFERENCE, mode, tool, "rps") if REFERENCE in labels else 0.0
        ref_cpu = med(REFERENCE, mode, tool, "cpu_us") if REFERENCE in labels else 0.0
        out += [f"### `{tool}`, {'JSON answers' if mode == 'json' else 'default answers (SSE where the server streams)'}",
                "", ("| server | answered as | calls/s (median) | min–max | p50 ms | p99 ms | server CPU us/call | "
                "vs SDK (calls/s) | vs SDK (CPU/call) | failed | disturbed | others (cores) |"),
                "|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for label in labels:
            rows = results[(label, mode, tool)]
            rps = med(label, mode, tool, "rps")
            cpu_us = med(label, mode, tool, "cpu_us")
            rates = [r["rps"] for r in rows]
            out.append(f"| {label} | {rows[0]['answered_as']} | {rps:,.0f} | {min(rates):,.0f}–{max(rates):,.0f} | "
                       f"{med(label, mode, tool, 'p50_ms'):.2f} | {med(label, mode, tool, 'p99_ms'):.2f} | "
                       f"{cpu_us:,.0f} | {rps / ref if ref else float('nan'):.1f}x | "
                       f"{ref_cpu / cpu_us if cpu_us else float('nan'):.1f}x | {sum(r['errors'] for r in rows)} | "
                       f"{sum(r['disturbed'] for r in rows)} | {med(label, mode, tool, 'foreign'):.2f} |")
        out.append("")
    for label, why in skipped.items():
        out.append(f"- Not measured: {label}: {why}.")
    out += ["Caveats:", "",
            ("- Two cores: the server has CPU 0, wrk CPU 1; when a fast server saturates wrk's core the calls/s are "
            "the client's ceiling, and the server CPU per call is the figure that holds."),
            ("- The SDK servers answer a POST with an SSE stream by default; Slipstream answers with JSON unless a "
            "notification (progress, log) comes before the result, which the protocol allows.")]
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    sys.exit(main())
