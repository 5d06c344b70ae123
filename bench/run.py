#!/usr/bin/env python3
"""Slipstream benchmark suite: `make bench`, `make bench-quick` and `make bench-compare` land here."""
from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from harness import baseline, charts, compare, contenders, database, ledger, machine, procs, report, runner, workloads

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
REPO_DIR = os.path.dirname(BENCH_DIR)
RESULTS_DIR = os.path.join(BENCH_DIR, "results")
LEDGER = os.path.join(REPO_DIR, "BENCHMARKS.md")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--quick", action="store_true", help="smoke run (< 2 min): 1 round, 3 s, hello and echo")
    p.add_argument("--workloads", help="comma-separated, default all: " + ",".join(workloads.DEFAULT_ORDER))
    p.add_argument("--contenders", help="comma-separated, default all: " + ",".join(contenders.BY_NAME))
    p.add_argument("--rounds", type=int, help="measured rounds (default 3, quick 1)")
    p.add_argument("--duration", type=int, help="seconds per measured run (default 5, quick 3)")
    p.add_argument("--warmup", type=int, help="seconds of warm-up per workload and start (default 1)")
    p.add_argument("--connections", type=int, default=64, help="wrk/h2load connections (default 64)")
    p.add_argument("--idle-connections", type=int, default=10000, help="connections held by `idle` (10000)")
    p.add_argument("--retries", type=int, help="re-runs of a run disturbed by foreign load (default 2, quick 0)")
    p.add_argument("--ws-depth", type=int, default=1, help="WebSocket messages in flight per connection (ws, 1)")
    p.add_argument("--paced-rate", type=int, default=runner.pacedload.DEFAULT_RATE,
                   help="requests per second of the paced workload, all connections together (20000)")
    p.add_argument("--allow-shared-cores", action="store_true",
                   help="measure the 2-worker rows even with fewer than 4 CPUs (flagged: not a valid measurement)")
    p.add_argument("--database-cpus", choices=database.PLACEMENTS, default=database.DEFAULT_PLACEMENT,
                   help="where the database workloads' PostgreSQL runs: with the load generator (client, default), "
                        "with the server, or on all CPUs")
    p.add_argument("--baseline-build", action="append", default=[], metavar="BUILD_DIR",
                   help="a CMake build folder (-DSLIPSTREAM_PYTHON=ON, target _native) in a checkout of an earlier "
                        "commit, e.g. a git worktree: each chosen Python slipstream contender runs on it too, as "
                        "NAME@COMMIT, in the same rounds (repeatable)")
    p.add_argument("--append-ledger", action="store_true", help="append a section to BENCHMARKS.md")
    p.add_argument("--ledger", default=LEDGER, help=argparse.SUPPRESS)
    p.add_argument("--no-self-test", action="store_true", help="skip the harness tests run before --append-ledger")
    p.add_argument("--compare", action="store_true", help="compare the last two ledger entries and exit")
    p.add_argument("--list", action="store_true", help="list contenders and whether they can run here")
    return p.parse_args(argv)


def settings_from(args: argparse.Namespace) -> runner.Settings:
    quick = args.quick
    pick = lambda value, full, fast: value if value is not None else (fast if quick else full)
    return runner.Settings(rounds=pick(args.rounds, 3, 1), duration_s=pick(args.duration, 5, 3),
                           warmup_s=pick(args.warmup, 1, 1), connections=args.connections,
                           idle_connections=args.idle_connections, max_retries=pick(args.retries, 2, 0),
                           ws_depth=args.ws_depth, paced_rate=args.paced_rate,
                           allow_shared_cores=args.allow_shared_cores, database_cpus=args.database_cpus)


def split(value: str | None) -> list[str] | None:
    return [v.strip() for v in value.split(",") if v.strip()] if value else None


def do_compare(path: str) -> int:
    if not os.path.exists(path):
        print(f"{path} does not exist: nothing to compare")
        return 0
    with open(path, encoding="utf-8") as f:
        what, findings, compared = compare.compare_ledger(f.read())
    print(f"bench-compare: {what}; {compared} row(s) compared, limit {compare.DROP_LIMIT:.0%} drop in ratio")
    for finding in findings:
        print(f"REGRESSION {finding}")
    return 1 if findings else 0


def do_list() -> int:
    cpus = len(procs.available_cpus())
    for c in contenders.CONTENDERS:
        reason = c.missing()
        cores = c.cores_reason(cpus) if reason is None else None
        print(f"{c.name:22} " + ("skipped: " + reason if reason else "ready" + (f" ({cores})" if cores else "")))
    return 0


def self_test() -> bool:
    """The harness's own tests; a broken harness must not put numbers in the ledger."""
    out = subprocess.run([sys.executable, "-m", "pytest", "-q", os.path.join(BENCH_DIR, "tests")], cwd=REPO_DIR,
                         check=False)
    return out.returncode == 0


def caveats(settings: runner.Settings, tables: list[report.Table]) -> list[str]:
    names = {t.workload.name for t in tables}
    notes = []
    if names & {"echo", "validated", "params"}:
        notes.append("Static references (nginx, h2o, lighttpd) serve fixed bytes; echo, validated and params need a "
                     "parser, so those tables use FastAPI as the reference and mark the static servers n/a.")
    notes.append("Throughput counts 2xx responses only" + (
        "; validated sends 10% invalid bodies by design, so about 10% of its responses are 422 and appear under "
        "non-2xx." if "validated" in names else "."))
    notes += [
        ("Server CPU per request is utime/stime of the server's whole process tree from /proc/PID/stat, in clock "
         f"ticks of 1/{runner.cpu.CLOCK_TICKS} s, divided by all responses; short runs make it coarse."),
        ("Peak RSS is VmHWM (reset before each run) summed over the server's processes: an upper bound for "
         "multi-process servers."),
        ("\"kernel/req vs REF CPU/req\" is the server's kernel CPU per request over the reference's total (user + "
         "kernel) in the same round: the CPU/req ratio it would have with no user-space time at all. \"TCP "
         "segs/req\" counts TCP segments sent on the machine (/proc/net/snmp OutSegs) per response: on loopback a "
         "request and its response with no pure ACKs are 2."),
    ]
    if "pipelined" in names:
        notes.append("pipelined: wrk does not time pipelined requests individually, so no latency is reported.")
    if names & {"tls", "h2tls"}:
        notes.append("TLS rows: every server gets the same self-signed ECDSA P-256 certificate, generated per run "
                     "(openssl), and its TLS library's default TLS 1.3 settings; servers may pick different suites "
                     "from the client's offer (AES-128-GCM or AES-256-GCM): h2load's negotiated protocol, cipher, "
                     "key exchange and ALPN are in the notes of h2tls (wrk's tls rows talk to the same servers). \"TLS cost\" is 1 - req/s with TLS / req/s "
                     "in cleartext (hello for tls, h2 for h2tls), same contender and round, median over rounds "
                     "(target: under 15%); \"CPU/req vs cleartext\" is the same ratio of server CPU per request. "
                     "Connections are kept alive, so handshakes are a small part of the run.")
    if "paced" in names:
        notes.append(f"paced: bench/tools/http_paced sends {settings.paced_rate:,} requests/s over "
                     f"{settings.connections} connections, request n due at n/rate on connection n mod N (no "
                     "bursts from the client); latency runs from each request's scheduled time, so a late answer "
                     "also delays, and is charged to, the requests queued behind it. Throughput is the offered "
                     "rate when the server keeps up; compare latency and CPU per request.")
    if "ws" in names:
        notes.append(f"ws: bench/tools/ws_load keeps {settings.ws_depth} masked 32-byte text message(s) in flight "
                     f"on each of {settings.connections} connections and checks every echo byte for byte; "
                     "throughput is echoes per second, CPU per message is the server's, \"bad echoes\" counts "
                     "echoes that differed. No compression is offered.")
    if any(r.contender.endswith("-w2") for t in tables for r in t.rows):
        notes.append("2-worker rows (-w2): the server gets CPUs 0-1 (taskset -c 0,1), wrk runs 2 threads on CPUs "
                     "2-3 and the harness on the last CPU; on a machine with fewer than 4 CPUs they are marked "
                     "n/a (not measurable here) rather than measured with the client on the server's cores. "
                     "\"scaling\" is req/s with 2 workers / req/s of the 1-worker contender in the same round.")
    if any(t.workload.database for t in tables):
        notes.append(database_caveat(settings))
    if "idle" in names:
        notes.append("idle: each held connection made one request and then stayed silent; servers with a short "
                     "keep-alive timeout close some of them during the run (see \"idle kept\").")
    notes.append("This machine is small and shared; only ratios measured in the same run are comparable across "
                 "entries.")
    if not charts.available():
        notes.append("No charts: matplotlib is not installed (run bench/setup.sh).")
    if any("@" in r.contender for t in tables for r in t.rows):
        notes.append("NAME@COMMIT rows (--baseline-build) run the same app file on an earlier commit's package and "
                     "extension (both Release builds of this CMake project); \"CPU/req vs this commit\" is their "
                     "server CPU per request over the same contender's on this commit, same round, median over "
                     "rounds (above 1: the earlier commit cost more).")
    if settings.rounds < 3:
        notes.append(f"Only {settings.rounds} round(s): the spread is not meaningful.")
    flagged = {f for t in tables for r in t.rows for f in r.flags}
    if any(f.startswith("disturbed") for f in flagged):
        notes.append("Rows marked disturbed kept more than the allowed foreign load after all retries: their "
                     "absolute figures are not trustworthy.")
    if "client-bound" in flagged:
        notes.append("Rows marked client-bound had the load generator's core near 100%: their throughput is the "
                     "client's ceiling; compare their CPU per request instead.")
    if "server-bound" in flagged:
        notes.append("Rows marked server-bound had the server above 90% of its cores: with client-bound too, both "
                     "sides were near saturation, and throughput reflects the server's cost as well as the client's.")
    return notes


def database_caveat(settings: runner.Settings) -> str:
    where = {"client": "pinned with the load generator to its CPU (the postmaster's CPU affinity, set as it "
                       "starts and inherited by every backend it forks)",
             "server": "pinned to the server's CPU (the postmaster's CPU affinity, inherited by its backends)",
             "all": "unpinned (any CPU, the server's included)"}[settings.database_cpus]
    return ("Bookstore (bk-*): one throwaway PostgreSQL cluster per run (tests/pg_cluster.py: Unix socket only, "
            "fsync off), examples/bookstore/schema.sql loaded once (deterministic seed, ANALYZEd), read-only "
            f"workloads; PostgreSQL {where}. The expected bodies come from the database: the first contender to "
            "answer a bk-* pre-flight in the run sets the bytes (recorded as \"expected\" lines in the raw results) "
            "and every other start of every contender must send the same. \"DB µs/req\" is the CPU time (utime + "
            "stime) of the postmaster and everything it forked (backends, background workers) per response, "
            "\"DB cores\" the cores it used; PostgreSQL is part of the workload, not foreign load. \"CPU+DB/req vs "
            "REF\" compares server + database CPU per request. Every app keeps a pool of at most 10 connections, "
            "runs the same SQL and prepares each statement once per connection (asyncpg's statement cache, "
            "store::Database's statement_cache_size). \"client+DB-bound\" (\"server+DB-bound\") marks rows where the "
            "load generator (the server) and PostgreSQL together kept the CPU they share above 90%.")


def meta_database(records: list[dict]) -> str | None:
    """The ledger's Database line: version and CPUs of the run's PostgreSQL, or why it did not start."""
    for r in records:
        if r.get("type") == "database":
            if "error" in r:
                return f"PostgreSQL did not start: {r['error']}"
            return (f"{r['version']}, throwaway cluster (tests/pg_cluster.py, Unix socket, fsync off), "
                    f"examples/bookstore/schema.sql; postmaster and backends on CPU {r['cpus']} ({r['placement']})")
    return None


def contender_line(c: contenders.Contender, skipped: dict[str, str], ran: dict[str, str] | None = None) -> str:
    """The ledger's line for a contender: description, versions, app file and, for Python peers, what ran."""
    if c.name in skipped:
        return f"{c.name}: skipped — {skipped[c.name]}"
    version = c.version()
    line = f"{c.name}: {c.description}" + (f" — {version}" if version else "") + f" (`{c.app_path}`)"
    what = (ran or {}).get(c.name)
    return line + (f"; ran: {what}" if what else "")


def runtimes(records: list[dict]) -> dict[str, str]:
    """Per contender, what its processes reported running (first start), with every start that fell back."""
    out: dict[str, str] = {}
    refused: dict[str, list[str]] = {}
    for r in records:
        if r.get("type") != "runtime":
            continue
        out.setdefault(r["contender"], r.get("summary", ""))
        if r.get("problems"):
            refused.setdefault(r["contender"], []).append(f"round {r['round'] + 1}: " + "; ".join(r["problems"]))
    for name, why in refused.items():
        out[name] = (out.get(name, "") + " — NOT MEASURED, fell back: " + " / ".join(why)).lstrip(" —")
    return out


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.compare:
        return do_compare(args.ledger)
    if args.list:
        return do_list()
    settings = settings_from(args)
    if args.append_ledger and (args.quick or settings.rounds < 3):
        print("a ledger entry needs at least 3 rounds and a full run (BENCHMARKING.md)", file=sys.stderr)
        return 2
    chosen_workloads = workloads.select(split(args.workloads) or (workloads.QUICK_WORKLOADS if args.quick else None))
    chosen = contenders.select(split(args.contenders))
    try:
        chosen = baseline.add(chosen, args.baseline_build)
    except ValueError as exc:
        print(f"--baseline-build: {exc}", file=sys.stderr)
        return 2
    if args.append_ledger and not args.no_self_test and not self_test():
        print("harness self-test failed: no numbers reported", file=sys.stderr)
        return 2
    meta = machine.describe()
    run_id = meta["run_id"] + ("-quick" if args.quick else "")
    os.makedirs(RESULTS_DIR, exist_ok=True)
    results_path = os.path.join(RESULTS_DIR, f"{run_id}.jsonl")
    run_dir = os.path.join(RESULTS_DIR, "tmp", run_id)
    os.makedirs(run_dir, exist_ok=True)
    recorder = runner.Recorder(results_path)
    invocation = "bench/run.py " + " ".join(shlex.quote(a) for a in (argv if argv is not None else sys.argv[1:]))
    recorder.add({"type": "run", "meta": meta, "settings": runner.settings_dict(settings), "invocation": invocation,
                  "workloads": [w.name for w in chosen_workloads], "contenders": [c.name for c in chosen]})
    runner.run_suite(chosen, chosen_workloads, settings, run_dir, recorder)

    tables = report.build_tables(recorder.records, chosen_workloads, [c.name for c in chosen],
                                 {c.name: c.baseline for c in chosen if c.baseline},
                                 {c.name: c.name.rsplit("@", 1)[0] for c in chosen if "@" in c.name})
    rel = lambda path: os.path.relpath(path, REPO_DIR)
    chart_paths = {}
    for table in tables:
        path = os.path.join(RESULTS_DIR, run_id, f"{table.workload.name}.png")
        if charts.render(table, path, f" ({meta['date']})"):
            chart_paths[table.workload.name] = rel(path)
    commands = {}
    for r in recorder.records:
        if r.get("type") == "measurement" and r["workload"] not in commands:
            commands[r["workload"]] = ledger.generic_command(r["command"], run_dir, REPO_DIR)
    skipped = {r["contender"]: r["reason"] for r in recorder.records if r.get("type") == "skip"}
    ran = runtimes(recorder.records)
    lines = [contender_line(c, skipped, ran) for c in chosen]
    meta["run_id"] = run_id
    if meta_database(recorder.records):
        meta["database"] = meta_database(recorder.records)
    section = ledger.render_section(meta, runner.settings_dict(settings), tables, invocation=invocation,
                                    results_path=rel(results_path), chart_paths=chart_paths, commands=commands,
                                    contender_lines=lines, caveats=caveats(settings, tables))
    with open(os.path.join(RESULTS_DIR, f"{run_id}.md"), "w", encoding="utf-8") as f:
        f.write(section)
    print()
    print(section)
    if args.append_ledger:
        ledger.append_section(args.ledger, section, ledger.committed_version(args.ledger))
        print(f"appended to {rel(args.ledger)}")
    print(f"raw results: {rel(results_path)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
