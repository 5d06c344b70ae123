"""Regression check: compares the ratio-to-reference of every row in the ledger's last two entries."""
from __future__ import annotations

import re
from dataclasses import dataclass

from .ledger import entries

DROP_LIMIT = 0.10
_HEADING = re.compile(r"^### (\S+)")


@dataclass(frozen=True)
class Finding:
    workload: str
    contender: str
    reference: str
    before: float
    after: float

    @property
    def drop(self) -> float:
        return (self.before - self.after) / self.before

    def __str__(self) -> str:
        return (f"{self.workload}/{self.contender}: ratio to {self.reference} {self.before:.2f} -> {self.after:.2f} "
                f"({-self.drop:+.0%})")


def parse_ratios(section: str) -> dict[tuple[str, str], tuple[str, float]]:
    """(workload, contender) -> (reference, ratio) for every row with a numeric ratio."""
    out: dict[tuple[str, str], tuple[str, float]] = {}
    workload, ratio_col, reference = None, None, None
    for line in section.splitlines():
        heading = _HEADING.match(line)
        if heading:
            workload, ratio_col, reference = heading.group(1), None, None
            continue
        if not line.startswith("|") or workload is None:
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cells and cells[0] == "contender":
            ratio_col = next((i for i, c in enumerate(cells) if c.startswith("vs ")), None)
            reference = cells[ratio_col][3:] if ratio_col is not None else None
            continue
        if ratio_col is None or len(cells) <= ratio_col or set(cells[0]) <= set("-"):
            continue
        try:
            out[(workload, cells[0])] = (reference, float(cells[ratio_col].replace(",", "")))
        except ValueError:
            continue
    return out


def compare_sections(before: str, after: str, limit: float = DROP_LIMIT) -> tuple[list[Finding], int]:
    """(rows whose ratio dropped by more than limit, number of rows compared)."""
    old, new = parse_ratios(before), parse_ratios(after)
    findings, compared = [], 0
    for key, (reference, ratio) in new.items():
        if key not in old or old[key][0] != reference or old[key][1] <= 0:
            continue
        compared += 1
        finding = Finding(key[0], key[1], reference, old[key][1], ratio)
        if finding.drop > limit:
            findings.append(finding)
    return findings, compared


def compare_ledger(text: str, limit: float = DROP_LIMIT) -> tuple[str, list[Finding], int]:
    """Compares the last two entries. Returns (description, findings, rows compared)."""
    found = entries(text)
    if len(found) < 2:
        return f"{len(found)} entr{'y' if len(found) == 1 else 'ies'} in the ledger: nothing to compare", [], 0
    (id_before, before), (id_after, after) = found[-2], found[-1]
    findings, compared = compare_sections(before, after, limit)
    return f"{id_before} -> {id_after}", findings, compared
