#!/usr/bin/env python3
"""Shared rate limits (issue 20): what deciding every request in PostgreSQL (`--rate-limit-store store`) costs next to
the in-process limiter and no limit, on `GET /hello`. One server process with one I/O thread pinned to CPU 0; wrk on
CPU 1; the throwaway PostgreSQL cluster pinned with the client (its CPU per request is reported on its own). Two key
patterns: `anonymous` (every request is the client address's: one hot key, a batch's requests counted together) and
`keyed` (1,000 API keys, a wrk Lua script rotating them: a batch holds many keys). The rate is far above what is
sent, so nothing is refused and every request takes the store's round trip (batched). Prints a Markdown table;
nothing is written to BENCHMARKS.md.

    .venv/bin/python bench/rate_limit_store.py [--duration 5] [--connections 32] [--rounds 3]
"""

from __future__ import annotations

import argparse
import http.client
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
REPO_DIR = os.path.dirname(BENCH_DIR)
BUILD = os.path.join(REPO_DIR, os.environ.get("SLIPSTREAM_BUILD_DIR", "build"))

sys.path.insert(0, REPO_DIR)
from bench.harness import cpu, database, procs, wrk
from bench.harness.foreign_load import foreign_cores, read_machine

KEYED_LUA = r"""
local keys = {}
for line in io.lines(os.getenv("KEYS_FILE")) do keys[#keys + 1] = line end
local counter = 0
request = function()
  counter = counter + 1
  wrk.headers["X-API-Key"] = keys[(counter % #keys) + 1]
  return wrk.format("GET", "/hello")
end
"""


def metric(port: int, name: str) -> float:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("GET", "/metrics")
    body = conn.getresponse().read().decode()
    conn.close()
    for line in body.splitlines():
        if line.startswith(name + " "):
            return float(line.split()[1])
    return 0.0


def wait_ready(port: int) -> None:
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=1)
            conn.request("GET", "/livez")
            if conn.getresponse().status == 200:
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError("the server did not start")


def run_one(flags, keyed, args, tmp, pg_pid):
    port = procs.free_port()
    argv = [
        os.path.join(BUILD, "examples", "hello"),
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--threads",
        "1",
        "--no-access-log",
        *flags,
    ]
    if keyed:
        argv += ["--auth", "required", "--api-keys-file", os.path.join(tmp, "keys.txt")]
    server = subprocess.Popen(procs.pinned(argv, 0), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        wait_ready(port)
        script = os.path.join(tmp, "keyed.lua") if keyed else None
        cmd = procs.pinned(
            wrk.command(
                f"http://127.0.0.1:{port}/hello", duration_s=args.duration, connections=args.connections, script=script
            ),
            1,
        )
        before_s, before_pg, machine = cpu.tree_times(server.pid), cpu.tree_times(pg_pid), read_machine()
        trips_before = metric(port, "slipstream_rate_limit_store_round_trips_total")
        env = {**os.environ, "KEYS_FILE": os.path.join(tmp, "keys.only")}
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        out = subprocess.run(cmd, capture_output=True, text=True, check=True, env=env).stdout
        children_after = resource.getrusage(resource.RUSAGE_CHILDREN)
        client_ticks = round(
            (children_after.ru_utime + children_after.ru_stime - children.ru_utime - children.ru_stime)
            * os.sysconf("SC_CLK_TCK")
        )
        after_s, after_pg, machine_after = cpu.tree_times(server.pid), cpu.tree_times(pg_pid), read_machine()
        trips = metric(port, "slipstream_rate_limit_store_round_trips_total") - trips_before
        r = wrk.parse(out)
        served = after_s - before_s
        pg = after_pg - before_pg
        foreign = foreign_cores(machine, machine_after, served.total, client_ticks, args.duration, pg.total)
        return {
            "rps": r.ok_per_s,
            "non2xx": r.non_2xx,
            "p50": r.percentiles_us.get(50.0, 0.0),
            "p99": r.percentiles_us.get(99.0, 0.0),
            "server_us": served.us_per_request(r.requests),
            "pg_us": sum(pg.us_per_request(r.requests)),
            "per_trip": r.requests / trips if trips else 0.0,
            "foreign": foreign,
        }
    finally:
        procs.stop(server)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=int, default=5)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    procs.pin_self(1)
    bindir = database.find_bindir()
    if bindir is None:
        sys.exit("PostgreSQL's server is not installed (scripts/setup.sh installs it)")
    cluster = database.pg_cluster_module().PgCluster(bindir).start()
    try:
        pg_pid = database.read_postmaster_pid(os.path.join(cluster.dir, "data"))
        database.pin_tree(pg_pid, [1])
        with tempfile.TemporaryDirectory() as tmp:
            keys = [f"bench-key-{i:06d}-0123456789abcdef" for i in range(1000)]
            with open(os.path.join(tmp, "keys.txt"), "w") as f:
                f.writelines(f"user{i} {k}\n" for i, k in enumerate(keys))
            with open(os.path.join(tmp, "keys.only"), "w") as f:
                f.writelines(k + "\n" for k in keys)
            with open(os.path.join(tmp, "keyed.lua"), "w") as f:
                f.write(KEYED_LUA)
            rate = ("--rate-limit", "1000000000/s")
            contenders = {
                "no limit": (),
                "memory": rate,
                "store": (*rate, "--rate-limit-store", "store", "--store", cluster.url),
                "store, 1 in flight": (
                    *rate,
                    "--rate-limit-store",
                    "store",
                    "--store",
                    cluster.url,
                    "--rate-limit-store-in-flight",
                    "1",
                ),
            }
            results = {}
            for pattern in ("anonymous", "keyed"):
                names = list(contenders)
                run_one(contenders["store"], pattern == "keyed", args, tmp, pg_pid)  # warm-up
                for rnd in range(args.rounds):
                    order = names[rnd % len(names) :] + names[: rnd % len(names)]
                    for name in order:
                        res = run_one(contenders[name], pattern == "keyed", args, tmp, pg_pid)
                        results.setdefault((pattern, name), []).append(res)
            print(f"wrk -c{args.connections} -d{args.duration}s, {args.rounds} rounds, medians (min-max of rps)\n")
            print(
                "| keys | limiter | 2xx/s | p50 us | p99 us | server user+kernel us/req | PostgreSQL us/req | "
                "requests per round trip | foreign cores (max) |"
            )
            print("|---|---|---|---|---|---|---|---|---|")
            for (pattern, name), rs in results.items():
                rps = [r["rps"] for r in rs]
                user = statistics.median(r["server_us"][0] for r in rs)
                kern = statistics.median(r["server_us"][1] for r in rs)
                print(
                    f"| {pattern} | {name} | {statistics.median(rps):,.0f} ({min(rps):,.0f}-{max(rps):,.0f}) | "
                    f"{statistics.median(r['p50'] for r in rs):.0f} | {statistics.median(r['p99'] for r in rs):.0f} | "
                    f"{user:.1f}+{kern:.1f} | {statistics.median(r['pg_us'] for r in rs):.1f} | "
                    f"{statistics.median(r['per_trip'] for r in rs):.1f} | {max(r['foreign'] for r in rs):.2f} |"
                )
    finally:
        cluster.close()


if __name__ == "__main__":
    main()
