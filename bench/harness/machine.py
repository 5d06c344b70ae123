"""What a result was measured on: CPU, cores, kernel, OS, commit, tool versions, date."""
from __future__ import annotations

import datetime
import os
import platform
import subprocess

from .contenders import REPO_DIR


def _first_line(argv: list[str]) -> str:
    try:
        out = subprocess.run(argv, check=False, capture_output=True, text=True, timeout=10, cwd=REPO_DIR)
        lines = (out.stdout + out.stderr).strip().splitlines()
        return lines[0].strip() if lines else "unknown"
    except (OSError, subprocess.TimeoutExpired):
        return "unavailable"


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def os_name() -> str:
    try:
        with open("/etc/os-release") as f:
            for line in f:
                if line.startswith("PRETTY_NAME="):
                    return line.split("=", 1)[1].strip().strip('"')
    except OSError:
        pass
    return platform.system()


def commit() -> str:
    rev = _first_line(["git", "rev-parse", "--short=12", "HEAD"])
    # The ledger and the raw results are what a run writes: they do not make the measured code "uncommitted".
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no", "--", ".",
                            ":(exclude)BENCHMARKS.md", ":(exclude)bench/results"], capture_output=True,
                           text=True, cwd=REPO_DIR, check=False).stdout.strip()
    return rev + (" (with uncommitted changes)" if dirty else "")


def describe() -> dict:
    now = datetime.datetime.now(datetime.timezone.utc)
    return {
        "date": now.strftime("%Y-%m-%d %H:%M UTC"),
        "run_id": now.strftime("%Y%m%dT%H%M%SZ"),
        "nproc": os.cpu_count(),
        "cpus_usable": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count(),
        "cpu_model": cpu_model(),
        "kernel": platform.release(),
        "os": os_name(),
        "python": platform.python_version(),
        "commit": commit(),
        "wrk": _first_line(["wrk", "-v"]).split(" [")[0],
        "h2load": _first_line(["h2load", "--version"]),
    }
