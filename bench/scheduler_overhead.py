#!/usr/bin/env python3
"""Scheduler overhead per step: the continuous-batching scheduler driven by a model that costs nothing.

Runs build/src/agent/infer/scheduler_bench (google-benchmark; a NullModel whose logits are one row write) at
1, 8, 32 and 256 running sequences, with the prefix cache on and off and with prompt-lookup speculation, pinned to
one CPU, and reports time per step and per generated token: what planning, block bookkeeping, sampling and event
delivery cost beyond the model. No peer runs here: vLLM's scheduler needs PyTorch and its CUDA stack, which this
machine has not got; the entry says so.

Usage: bench/scheduler_overhead.py [--repetitions 3] [--min-time 0.5] [--append-ledger]
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import statistics
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)

from bench.harness import ledger

BINARY = os.path.join(REPO, os.environ.get("SLIPSTREAM_BUILD_DIR", "build"), "src/agent/infer/scheduler_bench")


def run(repetitions: int, min_time: float) -> list[dict]:
    """The benchmark's JSON rows (one per repetition and argument set)."""
    out = subprocess.run(["taskset", "-c", "0", BINARY, "--benchmark_format=json",
                          f"--benchmark_repetitions={repetitions}", f"--benchmark_min_time={min_time}"],
                         check=True, capture_output=True, text=True)
    return [b for b in json.loads(out.stdout)["benchmarks"] if b.get("run_type") == "iteration"]


def summarize(rows: list[dict]) -> list[tuple[str, float, float, float]]:
    """(arguments, median µs per step, median tokens per step, median ns per token) per argument set."""
    by_name: dict[str, list[dict]] = {}
    for r in rows:
        by_name.setdefault(r["run_name"], []).append(r)
    out = []
    scale = {"ns": 1e-3, "us": 1.0, "ms": 1e3}
    for name, runs in by_name.items():
        us = statistics.median(r["real_time"] * scale[r["time_unit"]] for r in runs)
        tokens = statistics.median(r["tokens/step"] for r in runs)
        ns = statistics.median(r["ns/token"] for r in runs) * 1e9  # the counter is seconds per token
        out.append((name.split("/", 1)[1], us, tokens, ns))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repetitions", type=int, default=3)
    ap.add_argument("--min-time", type=float, default=0.5)
    ap.add_argument("--append-ledger", action="store_true")
    args = ap.parse_args()
    if not os.path.exists(BINARY):
        print(f"{BINARY} is not built (ninja -C build scheduler_bench)", file=sys.stderr)
        return 2
    table = summarize(run(args.repetitions, args.min_time))
    commit = subprocess.run(["git", "-C", REPO, "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                            check=False).stdout.strip()
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    out = [f"## {now} — {commit} (inference scheduler overhead per step with a zero-cost model)", "",
           f"- Machine: nproc {os.cpu_count()}, Linux {os.uname().release}",
           f"- Command: `bench/scheduler_overhead.py --repetitions {args.repetitions} --min-time {args.min_time}`",
           ("- Method: `scheduler_bench` (google-benchmark) pinned to CPU 0; a model whose forward pass writes one "
            "logits row per sampled position and nothing else; N sequences decoding (32-token prompts sharing 16, "
            "256 tokens each, a finished one replaced at once); medians over the repetitions"),
           ("- Peer: none in this run. vLLM's scheduler (the reference design) needs PyTorch with its CUDA stack, "
            "which this machine has not got; the GPU script (bench/gpu/infer_serve_gpu.sh) is where a side-by-side "
            "belongs."), "",
           "| running / prefix cache / speculation | µs per step | tokens per step | ns per token |",
           "|---|---|---|---|"]
    for name, us, tokens, ns in table:
        out.append(f"| {name} | {us:.1f} | {tokens:.0f} | {ns:.0f} |")
    out += ["", "Caveats:", "",
            ("- Each sampled position pays a full-vocabulary greedy draw (vocabulary 32: small on purpose), so the "
             "figures are the scheduler's bookkeeping, event delivery and sampling at a tiny vocabulary; a real "
             "vocabulary adds the sampler's cost (infer_sampler_bench)."),
            "- A shared 2-core machine: other processes may have run on the other core."]
    section = "\n".join(out) + "\n"
    print(section)
    if args.append_ledger:
        path = os.path.join(REPO, "BENCHMARKS.md")
        ledger.append_section(path, section, ledger.committed_version(path))
    return 0


if __name__ == "__main__":
    sys.exit(main())
