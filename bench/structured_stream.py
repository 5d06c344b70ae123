#!/usr/bin/env python3
"""Streamed JSON validated chunk by chunk, side by side in one run: slipstream.structured.StreamValidator against
pydantic's partial validation and jiter's partial parsing.

A TypedDict's JSON (a list of records with nested objects, enums, bounded strings; --items records, about 100 bytes
each) is cut into --chunk-byte pieces, as an LLM streams tokens. After every piece each contender says whether the
output so far can still be valid:
- `slipstream`: StreamValidator(Model).feed(piece) (the stream is parsed and checked once, incrementally);
- `slipstream-parse`: the same with an empty schema (parsing and building the value only: the validation's cost
  is the difference);
- `slipstream-partial`: the same plus partial() after every piece (the value so far, as a UI renders it; one live
  Python value updated in place);
- `pydantic`: TypeAdapter(Model).validate_json(prefix, experimental_allow_partial=True) on the whole prefix;
- `jiter`: jiter.from_json(prefix, partial_mode="trailing-strings") on the whole prefix (parsing only, no schema).
The last two re-read the prefix after each piece (nothing else in their APIs resumes), so their cost per piece
grows with the output; that is what a streaming validator avoids. Reported: the whole stream's time (median of
--rounds, each contender in the same process, alternating), MB/s of output, mean and p99 time per piece, and
ratios to pydantic and jiter from the same run. CPU 0 only (taskset), one Python process.

Usage: bench/structured_stream.py [--items 100,1000] [--chunk-bytes 16] [--rounds 5] [--append-ledger]
"""
from __future__ import annotations

import argparse
import datetime
import os
import statistics
import subprocess
import sys
import time
from typing import Annotated, Literal

from typing_extensions import TypedDict

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)

from pydantic import Field, TypeAdapter

from bench.harness import ledger

CONTENDERS = ("slipstream", "slipstream-parse", "slipstream-partial", "pydantic", "jiter")


# TypedDicts: pydantic's partial mode supports them (not BaseModel); both sides validate the same type.
class Address(TypedDict):
    city: Annotated[str, Field(max_length=40)]
    zip: Annotated[str, Field(max_length=10)]


class Person(TypedDict):
    id: int
    name: Annotated[str, Field(max_length=40)]
    role: Literal["admin", "editor", "viewer"]
    score: float
    address: Address
    tags: list[str]


class People(TypedDict):
    people: list[Person]


def document(items: int) -> bytes:
    people = [Person(id=i, name=f"Person number {i}", role=("admin", "editor", "viewer")[i % 3], score=i * 0.25,
                     address=Address(city="Lisbon", zip=f"{1000 + i}"), tags=["a", "bc"]) for i in range(items)]
    return TypeAdapter(People).dump_json(People(people=people))


def pieces(data: bytes, size: int) -> list[bytes]:
    return [data[i:i + size] for i in range(0, len(data), size)]


def run_one(name: str, chunks: list[bytes]) -> tuple[float, list[float]]:
    """(whole stream seconds, seconds per piece)."""
    per_piece: list[float] = []
    clock = time.perf_counter
    # Each side's validator is made before the clock starts (schema generation and compilation are not timed).
    if name.startswith("slipstream"):
        from slipstream.structured import StreamState, StreamValidator
        v = StreamValidator({} if name == "slipstream-parse" else People)
    elif name == "pydantic":
        adapter = TypeAdapter(People)
    start = clock()
    if name.startswith("slipstream"):
        partial = name == "slipstream-partial"
        for c in chunks:
            t = clock()
            if v.feed(c) is StreamState.INVALID:
                raise RuntimeError(v.failure)
            if partial:
                v.partial()
            per_piece.append(clock() - t)
        if v.finish() is not StreamState.COMPLETE:
            raise RuntimeError(v.failure)
    elif name == "pydantic":
        prefix = b""
        for c in chunks:
            t = clock()
            prefix += c
            adapter.validate_json(prefix, experimental_allow_partial=True)
            per_piece.append(clock() - t)
    else:
        import jiter
        prefix = b""
        for c in chunks:
            t = clock()
            prefix += c
            jiter.from_json(prefix, partial_mode="trailing-strings")
            per_piece.append(clock() - t)
    return clock() - start, per_piece


def p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


def versions() -> str:
    from importlib.metadata import version
    return ", ".join(f"{p} {version(p)}" for p in ("pydantic", "pydantic-core", "jiter"))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--items", default="100,1000")
    ap.add_argument("--chunk-bytes", type=int, default=16)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--append-ledger", action="store_true")
    ap.add_argument("--pinned", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if not args.pinned:
        return subprocess.call(["taskset", "-c", "0", sys.executable, *sys.argv, "--pinned"])
    rows = []
    for items in (int(x) for x in args.items.split(",")):
        data = document(items)
        chunks = pieces(data, args.chunk_bytes)
        results: dict[str, list[tuple[float, list[float]]]] = {c: [] for c in CONTENDERS}
        for r in range(args.rounds):
            order = CONTENDERS[r % len(CONTENDERS):] + CONTENDERS[:r % len(CONTENDERS)]
            for name in order:
                results[name].append(run_one(name, chunks))
        for name in CONTENDERS:
            whole = statistics.median(w for w, _ in results[name])
            per = [x for _, ps in results[name] for x in ps]
            rows.append((items, len(data), len(chunks), name, whole, statistics.mean(per), p99(per)))
            print(f"{items} items {name}: {whole * 1e3:.2f} ms", flush=True)
    commit = subprocess.run(["git", "-C", REPO, "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                            check=False).stdout.strip()
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    argv = [a for a in sys.argv[1:] if a != "--pinned"]
    out = [f"## {now} — {commit} (streamed JSON validated per chunk: slipstream.structured, pydantic partial, jiter)",
           "", f"- Machine: nproc {os.cpu_count()}, Linux {os.uname().release}; Python {sys.version.split()[0]}",
           f"- Command: `bench/structured_stream.py {' '.join(argv)}`",
           (f"- Method: one Python process pinned to CPU 0; a People TypedDict's JSON ({args.chunk_bytes}-byte pieces) "
            f"checked after every piece; {args.rounds} rounds, contenders alternating; whole-stream time is the "
            "median over rounds (validators and type adapters made before the clock starts), per-piece mean and "
            "p99 over every piece of every round"),
           f"- Versions: {versions()}", "",
           ("| records | bytes | pieces | contender | stream ms (median) | MB/s | µs/piece mean | µs/piece p99 | "
            "vs pydantic | vs jiter |"), "|---|---|---|---|---|---|---|---|---|---|"]
    for items, size, n, name, whole, mean, tail in rows:
        ref = {r[3]: r[4] for r in rows if r[0] == items}
        out.append(f"| {items:,} | {size:,} | {n:,} | {name} | {whole * 1e3:.2f} | {size / whole / 1e6:.1f} | "
                   f"{mean * 1e6:.2f} | {tail * 1e6:.2f} | {ref['pydantic'] / whole:.1f}× | {ref['jiter'] / whole:.1f}× |")
    out += ["", "Caveats:", "",
            ("- pydantic and jiter have no resumable partial mode: each piece re-reads the whole prefix, so their "
             "stream time grows with the square of the output; slipstream reads each byte once."),
            ("- `jiter` only parses (no schema); `slipstream` and `pydantic` validate against the same TypedDict (its "
             "JSON Schema for slipstream, the type for pydantic, whose partial mode takes TypedDicts, not models)."),
            ("- `slipstream-partial` also asks for the value so far after every piece (partial(): one live Python "
             "value updated in place, as a UI that re-renders each step would)."),
            "- Timings include the Python call per piece on every side."]
    section = "\n".join(out) + "\n"
    print(section)
    if args.append_ledger:
        path = os.path.join(REPO, "BENCHMARKS.md")
        ledger.append_section(path, section, ledger.committed_version(path))
    return 0


if __name__ == "__main__":
    sys.exit(main())
