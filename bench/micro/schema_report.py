"""Medians, ratios and the BENCHMARKS.md section of a schema benchmark run (pure functions over records)."""
from __future__ import annotations

from dataclasses import dataclass, field

from harness import stats

REFERENCE = "slipstream"
# contender -> how many times faster Slipstream must be per document (issue 4).
TARGETS = {"valijson (rapidjson)": 5.0, "valijson (nlohmann)": 5.0, "pydantic": 3.0}
ORDER = ["slipstream", "valijson (rapidjson)", "valijson (nlohmann)", "pydantic", "jsonschema",
         "slipstream parse only"]
NOTES = {"slipstream parse only": "json::parse alone, for reading the split (not a contender)"}
DOCUMENT_TITLES = {
    "small": "one model body (`bench/micro/data/item.json`) against `item.schema.json`",
    "large": "a ~64 KiB array of model bodies (`bench/micro/data/items_64k.json`) against `item_list.schema.json`",
}


@dataclass
class Row:
    contender: str
    status: str = "ok"          # ok | skipped | failed
    median_ns: float = 0.0
    min_ns: float = 0.0
    max_ns: float = 0.0
    speedup: float | None = None  # median over rounds of (contender time / Slipstream time in the same round)
    rounds: int = 0
    disturbed: int = 0
    notes: list[str] = field(default_factory=list)


def _accepted(records: list[dict]) -> list[dict]:
    """The last attempt of each (contender, document, round)."""
    last: dict[tuple, dict] = {}
    for r in records:
        if r.get("type") == "measurement":
            key = (r["contender"], r["document"], r["round"])
            if key not in last or r["attempt"] >= last[key]["attempt"]:
                last[key] = r
    return list(last.values())


def summarize(records: list[dict], documents: list[str]) -> dict[str, list[Row]]:
    """document -> one Row per contender, in ORDER (unknown contenders after it)."""
    measured = _accepted(records)
    problems = {(r["contender"], r["document"]): r for r in records if r.get("type") in ("skipped", "failed")}
    names = sorted({r["contender"] for r in measured} | {k[0] for k in problems},
                   key=lambda n: (ORDER.index(n) if n in ORDER else len(ORDER), n))
    out: dict[str, list[Row]] = {}
    for doc in documents:
        ref = {r["round"]: r["ns_per_doc"] for r in measured if r["contender"] == REFERENCE and r["document"] == doc}
        rows = []
        for name in names:
            mine = sorted((r for r in measured if r["contender"] == name and r["document"] == doc),
                          key=lambda r: r["round"])
            if not mine:
                p = problems.get((name, doc))
                if p is not None:
                    rows.append(Row(name, status=p["type"], notes=[p.get("reason", "")]))
                continue
            values = [r["ns_per_doc"] for r in mine]
            row = Row(name, median_ns=stats.median(values), min_ns=min(values), max_ns=max(values),
                      rounds=len(values), disturbed=sum(1 for r in mine if r.get("disturbed")))
            ratios = [r["ns_per_doc"] / ref[r["round"]] for r in mine if ref.get(r["round"])]
            if ratios and name != REFERENCE:
                row.speedup = stats.median(ratios)
            if name in NOTES:
                row.notes.append(NOTES[name])
            if row.disturbed:
                row.notes.append(f"disturbed in {row.disturbed}/{row.rounds} rounds")
            rows.append(row)
        out[doc] = rows
    return out


def target_cell(row: Row) -> str:
    target = TARGETS.get(row.contender)
    if target is None or row.speedup is None:
        return ""
    return f"≥ {target:g}×: {'met' if row.speedup >= target else 'MISSED'}"


def misses(summary: dict[str, list[Row]]) -> list[str]:
    """'document/contender' for each target not met (a contender that did not run misses nothing)."""
    return [f"{doc}/{row.contender}" for doc, rows in summary.items() for row in rows
            if row.speedup is not None and row.contender in TARGETS and row.speedup < TARGETS[row.contender]]


def _us(ns: float) -> str:
    us = ns / 1000
    return f"{us:,.3f}" if us < 10 else f"{us:,.1f}" if us < 1000 else f"{us:,.0f}"


def render_table(rows: list[Row], doc_bytes: int) -> str:
    head = ["validator", "µs/document (median)", "min–max", "MB/s", "Slipstream faster by", "target", "notes"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for row in rows:
        if row.status != "ok":
            cells = [row.contender, row.status, "", "", "", "", "; ".join(row.notes)]
        else:
            speed = "1.00× (reference)" if row.contender == REFERENCE else (
                "" if row.speedup is None else f"{row.speedup:,.2f}×")
            cells = [row.contender, _us(row.median_ns), f"{_us(row.min_ns)}–{_us(row.max_ns)}",
                     f"{doc_bytes / row.median_ns * 1e3:,.1f}", speed, target_cell(row), "; ".join(row.notes)]
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines)


def render_section(meta: dict, settings: dict, summary: dict[str, list[Row]], doc_bytes: dict[str, int], *,
                   invocation: str, results_path: str, commands: list[str], contender_lines: list[str],
                   caveats: list[str]) -> str:
    out = [f"## {meta['date']} — {meta['commit']} — JSON Schema parse + validate", "",
           f"<!-- schema-bench-entry id={meta['run_id']} results={results_path} -->", "",
           (f"- Machine: {meta['cpu_model']}, nproc {meta['nproc']}, Linux {meta['kernel']}, {meta['os']}, "
            f"Python {meta['python']}"),
           f"- Commit: {meta['commit']}",
           f"- Command: `{invocation}`",
           (f"- Method: {settings['rounds']} round(s); each round runs every contender once in rotating order (the "
            f"C++ binary, pydantic, jsonschema), each timing at least {settings['min_time_s']} s of CPU per document; "
            f"figures are CPU time per document (parse + validate), median over rounds; the ratio is the median "
            f"over rounds of the contender's time divided by Slipstream's in the same round; "
            f"{settings['pinning']}; a run with more than {settings['foreign_limit']} cores of foreign load is "
            f"repeated (up to {settings['max_retries']} times)"),
           f"- Build: {meta['build']}",
           f"- Raw results: [{results_path}]({results_path})", "", "Commands:", ""]
    out += [f"- `{c}`" for c in commands]
    out += ["", "Contenders:", ""] + [f"- {line}" for line in contender_lines]
    for doc, rows in summary.items():
        out += ["", f"### schema-{doc} — {DOCUMENT_TITLES.get(doc, doc)}, {doc_bytes[doc]:,} bytes", "",
                render_table(rows, doc_bytes[doc])]
    missed = misses(summary)
    verdict = "all met." if not missed else "missed for " + ", ".join(missed) + "."
    out += ["", "Targets (issue 4: at least 5× valijson and 3× pydantic v2 per document): " + verdict]
    out += ["", "Caveats:", ""] + [f"- {c}" for c in caveats]
    return "\n".join(out) + "\n"
