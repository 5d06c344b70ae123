"""Renders a run as a dated BENCHMARKS.md section and appends it; earlier text is never rewritten."""
from __future__ import annotations

import os
import re
import subprocess

from . import report
from .report import Row, Table

HEADER = """# Slipstream benchmark ledger

This file is **append-only**. Each section is one run of `make bench` (`bench/run.py --append-ledger`): the date,
the machine, the commit, the exact commands, one table per workload and the caveats, with charts and raw JSON
lines under `bench/results/`. Earlier sections are never edited or removed, so a claim can always be traced to
the run that produced it; a correction is a new section. Method: `shared/design/BENCHMARKING.md`; how to run and
read the figures: `bench/README.md`. `make bench-compare` flags rows whose ratio to the reference dropped by more
than 10% between the last two sections.
"""

ENTRY_MARKER = re.compile(r"^<!-- bench-entry id=(\S+) results=(\S+) -->$", re.MULTILINE)


class LedgerError(RuntimeError):
    """The ledger would have been edited rather than appended to."""


def _num(value: float | None, digits: int = 1) -> str:
    return "" if value is None else f"{value:,.{digits}f}"


def _extra_cell(column: str, value: float | None) -> str:
    if value is None:
        return ""
    if column == report.TLS_COST:
        return f"{value:.1%}"
    if column == report.DB_CPU:
        return f"{value:,.1f}"
    return f"{value:.2f}" if column in (report.SEGMENTS, report.DB_CORES) else f"{value:.2f}×"


def _row_cells(row: Row, extra_columns: list[str]) -> list[str]:
    if row.status != "ok":
        return [row.contender, row.status] + [""] * (9 + len(extra_columns)) + [row.note]
    ms = lambda us: None if us is None else us / 1000
    return [row.contender, f"{row.rps:,.0f}", f"{row.rps_min:,.0f}–{row.rps_max:,.0f}",
            _num(ms(row.p50_us), 2), _num(ms(row.p99_us), 2), _num(row.user_us), _num(row.sys_us),
            _num(row.rss_peak_mib), str(row.non_2xx), str(row.socket_errors), _num(row.ratio, 2),
            *(_extra_cell(c, row.extra.get(c)) for c in extra_columns), "; ".join(row.flags)]


def render_table(table: Table) -> str:
    unit = table.workload.unit
    head = ["contender", f"{unit}/s (median)", "min–max", "p50 ms", "p99 ms", f"user µs/{unit}",
            f"kernel µs/{unit}", "peak RSS MiB", "bad echoes" if unit == "msg" else "non-2xx", "socket errors",
            f"vs {table.reference}", *table.extra_columns, "notes"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for row in table.rows:
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in _row_cells(row, table.extra_columns)) + " |")
    return "\n".join(lines)


def generic_command(command: str, workdir_root: str, repo_dir: str | None = None) -> str:
    """A measured command with the per-start port and scratch paths replaced by placeholders (and paths inside
    repo_dir made relative to it)."""
    command = re.sub(r"127\.0\.0\.1:\d+", "127.0.0.1:PORT", command)
    command = re.sub(r"--port \d+", "--port PORT", command)
    command = re.sub(re.escape(workdir_root) + r"/[^/\s]+", "WORKDIR", command)
    return command.replace(repo_dir.rstrip("/") + "/", "") if repo_dir else command


def render_section(meta: dict, settings: dict, tables: list[Table], *, invocation: str, results_path: str,
                   chart_paths: dict[str, str], commands: dict[str, str], contender_lines: list[str],
                   caveats: list[str]) -> str:
    out = [f"## {meta['date']} — {meta['commit']}", "",
           f"<!-- bench-entry id={meta['run_id']} results={results_path} -->", "",
           (f"- Machine: {meta['cpu_model']}, nproc {meta['nproc']}, Linux {meta['kernel']}, {meta['os']}, "
            f"Python {meta['python']}"),
           f"- Commit: {meta['commit']}",
           f"- Command: `{invocation}`",
           (f"- Method: {settings['rounds']} round(s) in rotating order, {settings['duration_s']} s per run after "
            f"a {settings['warmup_s']} s warm-up, {settings['connections']} connections, server pinned to CPU 0 "
            f"(`taskset -c 0`), client to CPU 1; a run with more than {settings['foreign_limit']} cores of foreign "
            f"load is repeated (up to {settings['max_retries']} times)"),
           *([f"- Database: {meta['database']}"] if meta.get("database") else []),
           f"- Tools: {meta['wrk']}; {meta['h2load']}",
           f"- Raw results: [{results_path}]({results_path})", "", "Load commands (PORT and WORKDIR vary per start):", ""]
    out += [f"- {name}: `{cmd}`" for name, cmd in commands.items()]
    out += ["", "Contenders:", ""] + [f"- {line}" for line in contender_lines]
    for table in tables:
        out += ["", f"### {table.workload.name} — {table.workload.description} (ratio to {table.reference})", "",
                render_table(table)]
        if table.workload.name in chart_paths:
            out += ["", f"![{table.workload.name}]({chart_paths[table.workload.name]})"]
    out += ["", "Caveats:", ""] + [f"- {c}" for c in caveats]
    return "\n".join(out) + "\n"


def verify_append_only(old: bytes, new: bytes) -> None:
    """Raises LedgerError unless new is old with text added at the end."""
    if not new.startswith(old):
        raise LedgerError("refusing to write BENCHMARKS.md: earlier content would change")
    if len(new) == len(old):
        raise LedgerError("nothing to append")


def committed_version(path: str) -> bytes | None:
    """The ledger as last committed, or None when git or the file's history is unavailable."""
    directory, name = os.path.split(os.path.abspath(path))
    try:
        out = subprocess.run(["git", "show", f"HEAD:./{name}"], cwd=directory, capture_output=True, timeout=10,
                             check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout if out.returncode == 0 else None


def append_section(path: str, section: str, committed: bytes | None = None) -> None:
    """Appends section to the ledger (created with HEADER if absent), checking nothing earlier changes.

    committed: the ledger's last committed text; when given, the current file must extend it (so a
    hand edit of an earlier section is caught before anything is appended).
    """
    old = b""
    if os.path.exists(path):
        with open(path, "rb") as f:
            old = f.read()
    if committed is not None and not old.startswith(committed):
        raise LedgerError(f"{path} differs from its committed version in earlier text; restore it first")
    base = old if old else HEADER.encode()
    separator = b"" if base.endswith(b"\n\n") else (b"\n" if base.endswith(b"\n") else b"\n\n")
    new = base + separator + section.encode()
    verify_append_only(old, new)
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(new)
    os.replace(tmp, path)
    with open(path, "rb") as f:
        verify_append_only(old, f.read())


def entries(text: str) -> list[tuple[str, str]]:
    """(entry id, section text) for each entry in the ledger, oldest first. A section runs to the next `## `
    heading: sections without a marker (bench/callgrind.py's counts) belong to no entry."""
    out = []
    for mark in ENTRY_MARKER.finditer(text):
        start = text.rfind("\n## ", 0, mark.start()) + 1
        end = text.find("\n## ", mark.end())
        out.append((mark.group(1), text[start:end + 1 if end >= 0 else len(text)]))
    return out
