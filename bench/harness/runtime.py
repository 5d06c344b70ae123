"""What a started contender actually runs: its own start-up report and the native modules it mapped, checked
against what the contender is declared to run. A peer that fell back is refused, not measured."""
from __future__ import annotations

import glob
import json
import os
import re
import time

from . import cpu

# Native extension modules seen in /proc/PID/maps, by the distribution folder they live in.
_SITE_PACKAGES = re.compile(r"/site-packages/([A-Za-z0-9_]+)/")


def read_reports(folder: str) -> list[dict]:
    """Every runtime-<pid>.json the contender's processes wrote to `folder` (apps/runtime_report.py)."""
    reports = []
    for path in sorted(glob.glob(os.path.join(folder, "runtime-*.json"))):
        try:
            with open(path) as f:
                reports.append(json.load(f))
        except (OSError, ValueError):
            continue
    return reports


def wait_reports(folder: str, processes: int, timeout_s: float = 5.0) -> list[dict]:
    """The reports, once `processes` of them are there or after `timeout_s` (a worker may report just after the
    port answers)."""
    deadline = time.monotonic() + timeout_s
    while True:
        reports = read_reports(folder)
        if len(reports) >= processes or time.monotonic() >= deadline:
            return reports
        time.sleep(0.05)


def native_modules(root: int, proc: str = "/proc") -> list[str]:
    """Top-level packages under site-packages whose shared objects the process tree of `root` has mapped."""
    found: set[str] = set()
    for pid in cpu.tree_pids(root, cpu.all_stats(proc)):
        try:
            with open(os.path.join(proc, str(pid), "maps")) as f:
                for line in f:
                    if not line.rstrip().endswith(".so") and ".so." not in line:
                        continue
                    match = _SITE_PACKAGES.search(line)
                    if match:
                        found.add(match.group(1))
        except OSError:
            continue
    return sorted(found)


def problems(expected: dict[str, str], reports: list[dict], native: list[str], processes: int) -> list[str]:
    """Why the contender does not run what it is declared to (empty: it does).

    `expected`: fact name -> required prefix of its value (e.g. {"loop": "uvloop.", "http": "httptools"}); the
    special key "native" lists comma-separated packages that must be mapped. Every Python contender must also
    run without dev mode, tracing, profiling, a debug allocator or asyncio debug."""
    out = []
    if len(reports) < processes:
        out.append(f"{len(reports)} of {processes} process(es) wrote a runtime report")
    for report in reports:
        who = f"pid {report.get('pid', '?')}"
        for key, prefix in expected.items():
            if key == "native":
                continue
            value = str(report.get(key, ""))
            if not value.startswith(prefix):
                out.append(f"{who}: {key} is {value or 'unknown'!r}, expected {prefix!r}")
        if report.get("dev_mode"):
            out.append(f"{who}: Python dev mode is on")
        if report.get("tracing") or report.get("profiling"):
            out.append(f"{who}: a trace or profile function is set")
        if report.get("pythonmalloc") not in ("", "pymalloc", "malloc", "mimalloc"):
            out.append(f"{who}: PYTHONMALLOC={report.get('pythonmalloc')}")
        if report.get("asyncio_debug") or report.get("asyncio_debug_env"):
            out.append(f"{who}: asyncio debug mode is on")
    for package in filter(None, expected.get("native", "").split(",")):
        if package not in native:
            out.append(f"native module {package} is not loaded")
    return out


def summary(reports: list[dict], native: list[str]) -> str:
    """One line for the ledger's contender list: what ran (first process's report; all agree when checked)."""
    if not reports:
        return ""
    first = reports[0]
    parts = [f"Python {first.get('python', '?')}"]
    if "loop" in first:
        parts.append(f"loop {first['loop']}")
    if "http" in first:
        parts.append(f"HTTP {first['http']}")
    versions = first.get("versions", {})
    if versions:
        parts.append(", ".join(f"{k} {v}" for k, v in sorted(versions.items())))
    if native:
        parts.append("native " + "+".join(native))
    return "; ".join(parts)
