"""Turns raw records into per-workload rows: medians and spreads over rounds, ratio to the same-round reference."""
from __future__ import annotations

from dataclasses import dataclass, field

from .stats import median, spread
from .workloads import Workload

# A side busier than this share of its cores was (near) saturated: its ceiling shaped the throughput.
CLIENT_BOUND_CORES = 0.9
SERVER_BOUND_SHARE = 0.9


@dataclass
class Row:
    contender: str
    status: str                      # "ok", "n/a", "skipped" or "failed"
    note: str = ""
    rounds: int = 0
    rps: float | None = None         # median over rounds, 2xx only
    rps_min: float | None = None
    rps_max: float | None = None
    p50_us: float | None = None
    p99_us: float | None = None
    user_us: float | None = None     # server CPU per request, user space (median)
    sys_us: float | None = None      # server CPU per request, kernel (median)
    rss_peak_mib: float | None = None  # highest over rounds
    non_2xx: int = 0                 # summed over rounds
    socket_errors: int = 0
    ratio: float | None = None       # median over rounds of rps / reference rps (same round)
    flags: list[str] = field(default_factory=list)
    extra: dict[str, float | None] = field(default_factory=dict)  # Table.extra_columns -> value


# Paired comparisons, each a median over rounds of a same-round, same-contender quotient.
TLS_COST = "TLS cost"                       # 1 - rps(TLS) / rps(cleartext)
TLS_CPU = "CPU/req vs cleartext"            # CPU per request (user + kernel), TLS / cleartext
SCALING = "scaling (÷ 1 worker)"            # rps(2 workers) / rps(the 1-worker baseline)
SEGMENTS = "TCP segs/req"                   # TCP segments sent on the machine per response (median)
DB_CPU = "DB µs/req"                        # the database's CPU (user + kernel, all its processes) per response
DB_CORES = "DB cores"                       # cores the database used during the run (median)
EARLIER_CPU = "CPU/req vs this commit"      # an earlier commit's CPU per request / the current build's (--baseline-build)


def cpu_vs_reference(reference: str) -> str:
    """The column of CPU per request (user + kernel) / the reference's, same round."""
    return f"CPU/req vs {reference}"


def total_vs_reference(reference: str) -> str:
    """The column of server + database CPU per request / the reference's, same round: the whole stack's cost."""
    return f"CPU+DB/req vs {reference}"


def kernel_vs_reference(reference: str) -> str:
    """The column of kernel CPU per request / the reference's CPU per request (user + kernel), same round: the
    value the CPU/req column would have with no user-space time at all."""
    return f"kernel/req vs {reference} CPU/req"


@dataclass
class Table:
    workload: Workload
    reference: str
    rows: list[Row]
    extra_columns: list[str] = field(default_factory=list)


def accepted(records: list[dict]) -> dict[tuple[str, str, int], dict]:
    """The measurement kept for each (workload, contender, round): its last attempt."""
    kept: dict[tuple[str, str, int], dict] = {}
    for r in records:
        if r.get("type") != "measurement":
            continue
        key = (r["workload"], r["contender"], r["round"])
        if key not in kept or r["attempt"] >= kept[key]["attempt"]:
            kept[key] = r
    return kept


def _median_of(values: list[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return median(present) if present else None


def build_row(contender: str, runs: list[dict], ref_by_round: dict[int, float]) -> Row:
    rps = [r["rps"] for r in runs]
    lo, hi = spread(rps)
    ratios = [r["rps"] / ref_by_round[r["round"]] for r in runs if ref_by_round.get(r["round"])]
    row = Row(contender=contender, status="ok", rounds=len(runs), rps=median(rps), rps_min=lo, rps_max=hi,
              p50_us=_median_of([r["latency_us"].get("50.0") for r in runs]),
              p99_us=_median_of([r["latency_us"].get("99.0") for r in runs]),
              user_us=median([r["server_user_us_per_req"] for r in runs]),
              sys_us=median([r["server_sys_us_per_req"] for r in runs]),
              rss_peak_mib=max(r["rss_peak_kib"] for r in runs) / 1024,
              non_2xx=sum(r["non_2xx"] for r in runs),
              socket_errors=sum(sum(r["socket_errors"].values()) for r in runs),
              ratio=median(ratios) if ratios else None)
    disturbed = sum(1 for r in runs if r["disturbed"])
    if disturbed:
        row.flags.append(f"disturbed in {disturbed}/{len(runs)} rounds")
    if median([r["client_cpu_cores"] for r in runs]) > CLIENT_BOUND_CORES:
        row.flags.append("client-bound")
    # Older results have no server figure. Both flags on a row: the two sides were near saturation together.
    server_load = [r["server_cpu_cores"] / max(1, r.get("server_cpu_count", 1)) for r in runs if "server_cpu_cores" in r]
    if server_load and median(server_load) > SERVER_BOUND_SHARE:
        row.flags.append("server-bound")
    kept = [r["idle_kept"] for r in runs if r.get("idle_kept") is not None]
    if kept:
        opened = min(r["idle_opened"] for r in runs)
        row.flags.append(f"idle kept {min(kept):,} of {opened:,}")
    if any(r["client_exit"] != 0 for r in runs):
        row.flags.append("load generator exited non-zero")
    # The database on the client's or the server's CPUs: that side and PostgreSQL filled the CPUs they share.
    shared = [r["client_cpu_cores"] + r["db_cpu_cores"] for r in runs
              if "db_cpu_cores" in r and r.get("db_cpus") == r.get("client_cpus")]
    if shared and median(shared) > CLIENT_BOUND_CORES:
        row.flags.append("client+DB-bound")
    shared = [(r["server_cpu_cores"] + r["db_cpu_cores"]) / max(1, r.get("server_cpu_count", 1)) for r in runs
              if "db_cpu_cores" in r and "server_cpu_cores" in r and r.get("db_cpus") == r.get("server_cpus")]
    if shared and median(shared) > SERVER_BOUND_SHARE:
        row.flags.append("server+DB-bound")
    if any(r.get("cores_shared") for r in runs):
        row.flags.append(f"CPUs shared with the load generator (server on {runs[0].get('server_cpus')}): "
                         "not a valid measurement")
    sessions = sorted({r["tls_session"] for r in runs if r.get("tls_session")})
    if sessions:
        row.flags.append(" / ".join(sessions))
    return row


def _cpu_per_request(run: dict) -> float:
    return run["server_user_us_per_req"] + run["server_sys_us_per_req"]


def paired(runs: list[dict], others: dict[int, dict], quotient) -> float | None:
    """Median over rounds of quotient(run, the other run of the same round); rounds without a pair are left out."""
    values = []
    for run in runs:
        other = others.get(run["round"])
        if other is not None:
            value = quotient(run, other)
            if value is not None:
                values.append(value)
    return median(values) if values else None


def _tls_cost(tls_run: dict, clear_run: dict) -> float | None:
    return 1.0 - tls_run["rps"] / clear_run["rps"] if clear_run["rps"] > 0 else None


def _cpu_ratio(run: dict, other_run: dict) -> float | None:
    other = _cpu_per_request(other_run)
    return _cpu_per_request(run) / other if other > 0 and run["rps"] > 0 and other_run["rps"] > 0 else None


def _db_cpu_per_request(run: dict) -> float:
    return run["db_user_us_per_req"] + run["db_sys_us_per_req"]


def _total_ratio(run: dict, other_run: dict) -> float | None:
    other = _cpu_per_request(other_run) + _db_cpu_per_request(other_run)
    mine = _cpu_per_request(run) + _db_cpu_per_request(run)
    return mine / other if other > 0 and run["rps"] > 0 and other_run["rps"] > 0 else None


def _kernel_ratio(run: dict, other_run: dict) -> float | None:
    other = _cpu_per_request(other_run)
    return run["server_sys_us_per_req"] / other if other > 0 and run["rps"] > 0 and other_run["rps"] > 0 else None


def _segments(runs: list[dict]) -> float | None:
    """Median TCP segments per response; None unless every run counted them."""
    values = [r.get("tcp_segments_per_req") for r in runs]
    return median(values) if values and None not in values else None


def _scaling(run: dict, base_run: dict) -> float | None:
    return run["rps"] / base_run["rps"] if base_run["rps"] > 0 else None


def _runs_by_round(kept: dict[tuple[str, str, int], dict], workload: str, contender: str) -> dict[int, dict]:
    return {rnd: r for (w, c, rnd), r in kept.items() if w == workload and c == contender}


def add_extras(table: Table, kept: dict[tuple[str, str, int], dict], baselines: dict[str, str]) -> None:
    """CPU per request (and kernel CPU alone) against the reference, TCP segments per response, TLS cost against
    the cleartext workload, scaling against the 1-worker contender, where measured."""
    workload = table.workload
    measured = [row for row in table.rows if row.status == "ok"]
    reference = _runs_by_round(kept, workload.name, table.reference)
    if reference and any(row.contender != table.reference for row in measured):
        columns = ((cpu_vs_reference(table.reference), _cpu_ratio), (kernel_vs_reference(table.reference), _kernel_ratio))
        table.extra_columns += [column for column, _ in columns]
        for row in measured:
            runs = sorted(_runs_by_round(kept, workload.name, row.contender).values(), key=lambda r: r["round"])
            for column, quotient in columns:
                row.extra[column] = paired(runs, reference, quotient)
    if workload.database:
        add_database_columns(table, kept)
    segments = {row.contender: _segments(list(_runs_by_round(kept, workload.name, row.contender).values()))
                for row in measured}
    if any(value is not None for value in segments.values()):
        table.extra_columns.append(SEGMENTS)
        for row in measured:
            row.extra[SEGMENTS] = segments[row.contender]
    clear_present = workload.cleartext is not None and any(w == workload.cleartext for (w, _, _) in kept)
    if clear_present:
        table.extra_columns += [TLS_COST, TLS_CPU]
    if any(row.contender in baselines for row in measured):
        table.extra_columns.append(SCALING)
    for row in measured:
        runs = sorted(_runs_by_round(kept, workload.name, row.contender).values(), key=lambda r: r["round"])
        if clear_present:
            clear = _runs_by_round(kept, workload.cleartext, row.contender)
            row.extra[TLS_COST] = paired(runs, clear, _tls_cost)
            row.extra[TLS_CPU] = paired(runs, clear, _cpu_ratio)
        if row.contender in baselines:
            base = _runs_by_round(kept, workload.name, baselines[row.contender])
            row.extra[SCALING] = paired(runs, base, _scaling)


def add_earlier(table: Table, kept: dict[tuple[str, str, int], dict], earlier: dict[str, str]) -> None:
    """EARLIER_CPU: each earlier-commit row's CPU per request over the current build's, same round (median), and
    1.0 on the current rows themselves."""
    measured = [row for row in table.rows if row.status == "ok"]
    if not any(row.contender in earlier for row in measured):
        return
    table.extra_columns.append(EARLIER_CPU)
    current = set(earlier.values())
    for row in measured:
        runs = sorted(_runs_by_round(kept, table.workload.name, row.contender).values(), key=lambda r: r["round"])
        if row.contender in earlier:
            row.extra[EARLIER_CPU] = paired(runs, _runs_by_round(kept, table.workload.name, earlier[row.contender]),
                                            _cpu_ratio)
        elif row.contender in current:
            row.extra[EARLIER_CPU] = 1.0


def add_database_columns(table: Table, kept: dict[tuple[str, str, int], dict]) -> None:
    """The database's CPU per response and cores used (medians), and server + database CPU per request against the
    reference's, where every run of a row measured the database."""
    runs_of = {row.contender: list(_runs_by_round(kept, table.workload.name, row.contender).values())
               for row in table.rows if row.status == "ok"}
    runs_of = {name: runs for name, runs in runs_of.items() if runs and all("db_cpu_cores" in r for r in runs)}
    if not runs_of:
        return
    reference = {rnd: r for rnd, r in _runs_by_round(kept, table.workload.name, table.reference).items()
                 if "db_cpu_cores" in r}
    with_reference = bool(reference) and any(name != table.reference for name in runs_of)
    table.extra_columns += [DB_CPU, DB_CORES] + ([total_vs_reference(table.reference)] if with_reference else [])
    for row in table.rows:
        runs = sorted(runs_of.get(row.contender, []), key=lambda r: r["round"])
        if not runs:
            continue
        row.extra[DB_CPU] = median([_db_cpu_per_request(r) for r in runs])
        row.extra[DB_CORES] = median([r["db_cpu_cores"] for r in runs])
        if with_reference:
            row.extra[total_vs_reference(table.reference)] = paired(runs, reference, _total_ratio)


def build_tables(records: list[dict], workloads: list[Workload], contenders: list[str],
                 baselines: dict[str, str] | None = None, earlier: dict[str, str] | None = None) -> list[Table]:
    """One table per workload. baselines: multi-worker contender -> its 1-worker contender (scaling column);
    earlier: a contender on an earlier commit's build -> the same contender on this one (EARLIER_CPU column)."""
    baselines = {k: v for k, v in (baselines or {}).items() if k in contenders}
    earlier = {k: v for k, v in (earlier or {}).items() if k in contenders}
    kept = accepted(records)
    skips = {r["contender"]: r["reason"] for r in records if r.get("type") == "skip"}
    problems: dict[tuple[str, str], tuple[str, str]] = {}
    for r in records:
        if r.get("type") in ("na", "failure"):
            problems[(r["workload"], r["contender"])] = ("n/a" if r["type"] == "na" else "failed", r["reason"])
    tables = []
    for workload in workloads:
        ref_by_round = {rnd: r["rps"] for (w, c, rnd), r in kept.items()
                        if w == workload.name and c == workload.reference}
        rows = []
        for contender in contenders:
            runs = sorted((r for (w, c, _), r in kept.items() if w == workload.name and c == contender),
                          key=lambda r: r["round"])
            if runs:
                row = build_row(contender, runs, ref_by_round)
                if (workload.name, contender) in problems:  # e.g. failed in one round only
                    row.flags.append(problems[(workload.name, contender)][1])
            elif contender in skips:
                row = Row(contender, "skipped", skips[contender])
            elif (workload.name, contender) in problems:
                status, reason = problems[(workload.name, contender)]
                row = Row(contender, status, reason)
            else:
                continue  # not selected for this run
            rows.append(row)
        table = Table(workload, workload.reference, rows)
        add_extras(table, kept, baselines)
        add_earlier(table, kept, earlier)
        tables.append(table)
    return tables
