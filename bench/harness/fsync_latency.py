"""The disk's own commit latency: a loop of write + fdatasync on one file, as a WAL commit does.

A durable commit cannot answer faster than the file system syncs: this is the floor under every learning-mode
decision (each one committed with SQLite synchronous=FULL before it is answered) at one connection.

    .venv/bin/python -m bench.harness.fsync_latency [--dir DIR] [--count 2000] [--bytes 4096]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time


def measure(directory: str, count: int = 2000, size: int = 4096) -> dict:
    """Appends `size` bytes then fdatasync, `count` times, on a new file in `directory`; latencies in ms."""
    if count < 1 or size < 1:
        raise ValueError("count and size must be at least 1")
    block = b"\x5a" * size
    fd, path = tempfile.mkstemp(prefix="fsync-latency-", dir=directory)
    samples: list[float] = []
    try:
        for _ in range(count):
            t0 = time.perf_counter_ns()
            os.write(fd, block)
            os.fdatasync(fd)
            samples.append((time.perf_counter_ns() - t0) / 1e6)
    finally:
        os.close(fd)
        os.unlink(path)
    samples.sort()
    return {
        "count": count,
        "bytes": size,
        "p50_ms": statistics.median(samples),
        "p99_ms": samples[min(len(samples) - 1, int(len(samples) * 0.99))],
        "max_ms": samples[-1],
    }


def describe(r: dict, directory: str) -> str:
    return (
        f"write {r['bytes']} B + fdatasync on {directory} ({r['count']} times): p50 {r['p50_ms']:.2f} ms, "
        f"p99 {r['p99_ms']:.2f} ms, max {r['max_ms']:.2f} ms"
    )


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--dir", default=tempfile.gettempdir(), help="a folder on the file system to measure (TMPDIR)")
    p.add_argument("--count", type=int, default=2000, help="syncs measured (2000)")
    p.add_argument("--bytes", type=int, default=4096, help="bytes appended before each sync (4096)")
    args = p.parse_args(argv)
    try:
        r = measure(args.dir, args.count, args.bytes)
    except (OSError, ValueError) as e:
        print(f"fsync_latency: {e}", file=sys.stderr)
        return 2
    print(describe(r, args.dir))
    return 0


if __name__ == "__main__":
    sys.exit(main())
