#!/usr/bin/env python3
"""JSON Schema parse + validate, same documents and schema: Slipstream vs valijson, pydantic v2 and jsonschema.

Runs the C++ benchmark binary (Slipstream, valijson) and times the Python peers in this process, in rotating
order for several rounds; prints per-document CPU times and ratios; with --append-ledger appends a dated
section to BENCHMARKS.md (append-only, via harness/ledger.py).
"""
from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import time

BENCH_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, BENCH_DIR)

from harness import foreign_load, ledger, machine

from micro import cpp_bench, documents, peers, schema_report

REPO_DIR = os.path.dirname(BENCH_DIR)
RESULTS_DIR = os.path.join(BENCH_DIR, "results")
LEDGER = os.path.join(REPO_DIR, "BENCHMARKS.md")
GROUPS = ["cpp", "pydantic", "jsonschema"]


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--build-dir", default=os.path.join(REPO_DIR, "build"), help="a Release build (default build/)")
    p.add_argument("--no-build", action="store_true", help="do not (re)build json_schema_compare_bench")
    p.add_argument("--rounds", type=int, default=5, help="measured rounds (default 5)")
    p.add_argument("--min-time", type=float, default=0.5, help="CPU seconds per contender and document (0.5)")
    p.add_argument("--cpu", type=int, default=0, help="pin this script and the C++ binary to this CPU; -1: no pin")
    p.add_argument("--retries", type=int, default=2, help="re-runs of a run disturbed by foreign load (default 2)")
    p.add_argument("--append-ledger", action="store_true", help="append a section to BENCHMARKS.md (>= 3 rounds)")
    p.add_argument("--ledger", default=LEDGER, help=argparse.SUPPRESS)
    p.add_argument("--results-dir", default=RESULTS_DIR, help=argparse.SUPPRESS)
    p.add_argument("--check-targets", action="store_true", help="exit 1 when a target of issue 4 is missed")
    return p.parse_args(argv)


def _first_line(argv: list[str]) -> str:
    try:
        out = subprocess.run(argv, capture_output=True, text=True, timeout=10, check=False)
        return (out.stdout + out.stderr).strip().splitlines()[0]
    except (OSError, IndexError, subprocess.TimeoutExpired):
        return "unknown"


def build_description(build_dir: str) -> str:
    cxx = cpp_bench.cache_value(build_dir, "CMAKE_CXX_COMPILER") or "c++"
    kind = cpp_bench.cache_value(build_dir, "CMAKE_BUILD_TYPE") or "unknown"
    packages = ["libvalijson-dev", "rapidjson-dev", "nlohmann-json3-dev", "libsimdjson-dev", "libbenchmark-dev"]
    versions = [f"{p} {_first_line(['dpkg-query', '-W', '-f=${Version}', p])}" for p in packages]
    return f"{kind}, {_first_line([cxx, '--version'])}; " + ", ".join(versions)


def describe(build_dir: str) -> dict:
    meta = {k: v for k, v in machine.describe().items() if k not in ("wrk", "h2load")}
    meta["build"] = build_description(build_dir)
    return meta


def measure_group(group: str, args: argparse.Namespace) -> dict[tuple[str, str], float]:
    """(contender, document) -> CPU ns per document for one run of a group."""
    if group == "cpp":
        return cpp_bench.run(args.build_dir, args.min_time)
    return {(group, doc): ns for doc, ns in peers.measure(peers.PEERS[group], args.min_time).items()}


def timed_group(group: str, args: argparse.Namespace) -> tuple[dict[tuple[str, str], float], float]:
    """Runs a group once; also returns the cores others used meanwhile."""
    before, own_before, start = foreign_load.read_machine(), os.times(), time.monotonic()
    result = measure_group(group, args)
    after, own_after, wall = foreign_load.read_machine(), os.times(), time.monotonic() - start
    own_s = sum(own_after[:4]) - sum(own_before[:4])  # user + system of this process and its reaped children
    ticks = round(own_s * foreign_load.CLOCK_TICKS)
    return result, foreign_load.foreign_cores(before, after, ticks, 0, wall)


def problem_records(group: str, kind: str, reason: str) -> list[dict]:
    names = list(cpp_bench.CONTENDERS.values()) if group == "cpp" else [group]
    return [{"type": kind, "contender": n, "document": d, "reason": reason} for n in names for d in documents.DOCUMENTS]


def run_rounds(args: argparse.Namespace, log) -> list[dict]:
    records: list[dict] = []
    live = []
    for group in GROUPS:  # warm-up, which also checks every verdict
        try:
            measure_group(group, argparse.Namespace(**{**vars(args), "min_time": 0.05}))
            live.append(group)
        except peers.PeerUnavailable as e:
            records += problem_records(group, "skipped", f"not installed ({e})")
        except (cpp_bench.BenchError, ValueError) as e:
            records += problem_records(group, "failed", str(e).splitlines()[0])
    for rnd in range(args.rounds):
        order = live[rnd % len(live):] + live[:rnd % len(live)] if live else []
        for group in order:
            for attempt in range(args.retries + 1):
                result, foreign = timed_group(group, args)
                disturbed = foreign_load.disturbed(foreign)
                for (contender, doc), ns in result.items():
                    records.append({"type": "measurement", "contender": contender, "document": doc, "round": rnd,
                                    "attempt": attempt, "ns_per_doc": ns, "foreign_cores": round(foreign, 3),
                                    "disturbed": disturbed})
                log(f"round {rnd + 1}/{args.rounds} {group}: foreign load {foreign:.2f} cores"
                    + (" (disturbed)" if disturbed else ""))
                if not disturbed:
                    break
    return records


def contender_lines(build_dir: str) -> list[str]:
    binary = os.path.relpath(cpp_bench.binary_path(build_dir), REPO_DIR)
    return [(f"slipstream: `json::parse` into a per-request arena (reset each time) + `Schema::validate`, "
             f"draft 2020-12 (`{binary}`, src/json/schema/compare_bench.cpp)"),
            ("valijson (rapidjson): valijson 1.0, draft-07 parser, a fresh `rapidjson::Document` per document, "
             "`RapidJsonAdapter`, strong types"),
            "valijson (nlohmann): the same with `nlohmann::json::parse` and `NlohmannJsonAdapter`",
            ] + [f"{p.name}: {p.description} — {p.versions()}" for p in peers.PEERS.values()]


CAVEATS = [
    "Slipstream's target is checked against both valijson adapters; rapidjson is valijson's fastest here.",
    "pydantic also builds Python model instances (its job in FastAPI); jsonschema's time includes `json.loads`.",
    "Python peers run with the garbage collector off while timed (as `timeit` does): their best case.",
    "The schema has no `pattern` or `format`: valijson's std::regex would dominate and flatter Slipstream.",
    "The shared 2-core machine is noisy: read the ratios (same round), not the absolute times.",
]


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.append_ledger and args.rounds < 3:
        print("--append-ledger needs at least 3 rounds", file=sys.stderr)
        return 2
    try:
        if not args.no_build:
            cpp_bench.build(args.build_dir)
    except cpp_bench.BenchError as e:
        print(e, file=sys.stderr)
        return 1
    kind = cpp_bench.cache_value(args.build_dir, "CMAKE_BUILD_TYPE")
    if kind not in ("Release", "RelWithDebInfo"):
        print(f"warning: {args.build_dir} is a {kind or 'unknown'} build; timings mean little", file=sys.stderr)
        if args.append_ledger:
            return 2
    if args.cpu >= 0:
        os.sched_setaffinity(0, {args.cpu})  # inherited by the C++ binary
    meta = describe(args.build_dir)
    records = [{"type": "meta", **meta}] + run_rounds(args, lambda line: print(line, file=sys.stderr))
    results_rel = os.path.relpath(os.path.join(args.results_dir, f"{meta['run_id']}-schema.jsonl"), REPO_DIR)
    os.makedirs(args.results_dir, exist_ok=True)
    with open(os.path.join(REPO_DIR, results_rel), "w") as f:
        f.writelines(json.dumps(r) + "\n" for r in records)
    summary = schema_report.summarize(records, list(documents.DOCUMENTS))
    doc_bytes = {d: len(documents.read(f)) for d, (f, _) in documents.DOCUMENTS.items()}
    settings = {"rounds": args.rounds, "min_time_s": args.min_time, "foreign_limit": foreign_load.DISTURBANCE_LIMIT_CORES,
                "max_retries": args.retries,
                "pinning": f"pinned to CPU {args.cpu} (script and binary)" if args.cpu >= 0 else "not pinned"}
    commands = [shlex.join(cpp_bench.command(os.path.relpath(args.build_dir, REPO_DIR), args.min_time))]
    section = schema_report.render_section(
        meta, settings, summary, doc_bytes, invocation=shlex.join(["bench/micro/schema_compare.py", *(argv or sys.argv[1:])]),
        results_path=results_rel, commands=commands, contender_lines=contender_lines(args.build_dir), caveats=CAVEATS)
    with open(os.path.join(REPO_DIR, results_rel[:-len(".jsonl")] + ".md"), "w") as f:
        f.write(section)
    print(section)
    if args.append_ledger:
        ledger.append_section(args.ledger, section, committed=ledger.committed_version(args.ledger))
        print(f"appended to {args.ledger}", file=sys.stderr)
    return 1 if args.check_targets and schema_report.misses(summary) else 0


if __name__ == "__main__":
    sys.exit(main())
