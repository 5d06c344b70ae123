"""Runs the suite: for each round, each contender in rotating order is started, checked, driven and stopped."""
from __future__ import annotations

import hashlib
import json
import os
import resource
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field

from . import cpu, database, foreign_load, h2load, pacedload, preflight, procs, runtime, tcp_counters, tls, wrk, wsload
from .contenders import HOST, Contender, LaunchContext, runtime_dir
from .workloads import LUA_DIR, Workload, write_body_files

IDLE_HELPER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "idle.py")


@dataclass
class Settings:
    rounds: int = 3
    duration_s: int = 5
    warmup_s: int = 1
    connections: int = 64
    idle_connections: int = 10000
    h2_streams: int = 16
    max_retries: int = 2           # extra attempts of a run disturbed by foreign load
    foreign_limit: float = foreign_load.DISTURBANCE_LIMIT_CORES
    ws_depth: int = 1              # WebSocket messages in flight per connection (ws_load --depth)
    paced_rate: int = pacedload.DEFAULT_RATE  # requests per second of the paced workload (http_paced --rate)
    allow_shared_cores: bool = False  # measure multi-worker rows even where their CPUs overlap the client's
    database_cpus: str = database.DEFAULT_PLACEMENT  # where PostgreSQL runs: "client", "server" or "all" CPUs


def rotate(items: list, round_index: int) -> list:
    """Round r starts with the (r mod n)-th contender: A B C, B C A, C A B, ..."""
    if not items:
        return []
    k = round_index % len(items)
    return items[k:] + items[:k]


class Recorder:
    """Appends JSON lines to the run's raw results file as they are produced."""

    def __init__(self, path: str):
        self.path = path
        self.records: list[dict] = []

    def add(self, record: dict) -> None:
        self.records.append(record)
        with open(self.path, "a") as f:
            f.write(json.dumps(record, sort_keys=True) + "\n")


def load_command(workload: Workload, settings: Settings, port: int, h2_port: int | None, workdir: str,
                 duration_s: int, layout: procs.CpuLayout | None = None) -> tuple[list[str], str | None]:
    """(client argv pinned to the client CPUs, h2load log path or None)."""
    layout = layout or procs.CpuLayout([procs.SERVER_CPU, procs.CLIENT_CPU])
    scheme = "https" if workload.tls else "http"
    if workload.load == "ws":
        argv = wsload.command(port, host=HOST, path=workload.path, connections=settings.connections,
                              depth=settings.ws_depth, duration_s=duration_s)
        return procs.pinned(argv, layout.client_spec), None
    if workload.load == "paced":
        argv = pacedload.command(port, host=HOST, path=workload.path, connections=settings.connections,
                                 rate=settings.paced_rate, duration_s=duration_s, warmup_s=0)
        return procs.pinned(argv, layout.client_spec), None
    if workload.load == "h2load":
        log = os.path.join(workdir, f"h2load-{workload.name}.log")
        url = f"{scheme}://{HOST}:{h2_port or port}{workload.path}"
        argv = h2load.command(url, duration_s=duration_s, connections=settings.connections,
                              streams=settings.h2_streams, log_file=log)
        return procs.pinned(argv, layout.client_spec), log
    script = os.path.join(LUA_DIR, workload.script) if workload.script else None
    argv = wrk.command(f"{scheme}://{HOST}:{port}{workload.path}", duration_s=duration_s,
                       connections=settings.connections, threads=len(layout.client), script=script,
                       script_args=write_body_files(workload, workdir))
    return procs.pinned(argv, layout.client_spec), None


def parse_load(workload: Workload, text: str, log_path: str | None, connections: int) -> wrk.WrkResult:
    if workload.load == "ws":
        return wsload.parse(text)
    if workload.load == "paced":
        return pacedload.parse(text)
    if workload.load == "h2load":
        with open(log_path, "rb") as f:
            return h2load.parse(text, f.read().decode("ascii", "replace"), connections)
    return wrk.parse(text)


def run_client(argv: list[str], workdir: str) -> tuple[str, float, int]:
    """Runs the load generator; returns (stdout, its CPU seconds from wait4, exit status)."""
    out_path = os.path.join(workdir, "client.out")
    with open(out_path, "wb") as out:
        proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
    with open(out_path, "rb") as f:
        text = f.read().decode("utf-8", "replace")
    return text, usage.ru_utime + usage.ru_stime, proc.returncode


class IdleHolder:
    """The idle-connection helper process (pinned to the client CPU)."""

    def __init__(self, port: int, count: int, path: str, cpus: str = str(procs.CLIENT_CPU)):
        argv = procs.pinned([sys.executable, IDLE_HELPER, "--host", HOST, "--port", str(port), "--path", path,
                             "--count", str(count)], cpus)
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline().split()
        self.opened = int(line[1]) if len(line) == 2 and line[0] == "READY" else 0

    def ticks(self) -> int:
        stat = cpu.read_stat(self.proc.pid)
        return stat.utime + stat.stime if stat else 0

    def kept(self) -> int:
        self.proc.stdin.write("check\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline().split()
        return int(line[1]) if len(line) == 2 and line[0] == "KEPT" else 0

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait(timeout=60)


def database_figures(db: database.Database | None, spent: cpu.CpuTimes, requests: int, wall_s: float) -> dict:
    """The database's share of a run: its CPU per response (user, kernel), the cores it used, where it ran."""
    if db is None:
        return {}
    user_us, sys_us = spent.us_per_request(requests)
    return {"db_ticks": {"user": spent.user, "system": spent.system}, "db_user_us_per_req": user_us,
            "db_sys_us_per_req": sys_us, "db_cpu_cores": spent.total / cpu.CLOCK_TICKS / wall_s if wall_s else 0.0,
            "db_cpus": db.cpu_spec}


def measure(workload: Workload, settings: Settings, server_pid: int, port: int, h2_port: int | None,
            workdir: str, layout: procs.CpuLayout | None = None, db: database.Database | None = None) -> dict:
    """One measured run of a workload against a started server (and the database it uses, when db is given)."""
    layout = layout or procs.CpuLayout([procs.SERVER_CPU, procs.CLIENT_CPU])
    argv, log_path = load_command(workload, settings, port, h2_port, workdir, settings.duration_s, layout)
    rss_reset = cpu.reset_peak_rss(server_pid)
    holder = IdleHolder(port, settings.idle_connections, workload.path, layout.client_spec) \
        if workload.idle_connections else None
    try:
        machine_before = foreign_load.read_machine()
        tcp_before = tcp_counters.read()
        server_before = cpu.tree_times(server_pid)
        db_before = db.times() if db else cpu.CpuTimes(0, 0)
        self_before = resource.getrusage(resource.RUSAGE_SELF)
        holder_before = holder.ticks() if holder else 0
        started = time.monotonic()
        text, client_cpu_s, exit_status = run_client(argv, workdir)
        wall_s = time.monotonic() - started
        server_after = cpu.tree_times(server_pid)
        db_after = db.times() if db else cpu.CpuTimes(0, 0)
        holder_after = holder.ticks() if holder else 0
        self_after = resource.getrusage(resource.RUSAGE_SELF)
        machine_after = foreign_load.read_machine()
        tcp_after = tcp_counters.read()
        kept = holder.kept() if holder else None
    finally:
        if holder:
            holder.close()
    peak_kib, rss_kib = cpu.tree_memory_kib(server_pid)
    result = parse_load(workload, text, log_path, settings.connections)
    server = server_after - server_before
    harness_s = (self_after.ru_utime + self_after.ru_stime) - (self_before.ru_utime + self_before.ru_stime)
    client_ticks = (client_cpu_s + harness_s) * cpu.CLOCK_TICKS + (holder_after - holder_before)
    spent_db = db_after - db_before
    foreign = foreign_load.foreign_cores(machine_before, machine_after, server.total, client_ticks, wall_s,
                                         database_ticks=spent_db.total)
    user_us, sys_us = server.us_per_request(result.requests)
    return {
        "command": " ".join(argv), "client_exit": exit_status, "wall_s": round(wall_s, 3),
        "requests": result.requests, "ok_requests": result.ok_requests, "duration_s": result.duration_s,
        "rps": result.ok_per_s, "rps_all_statuses": result.requests_per_s,
        "latency_us": {str(k): v for k, v in result.percentiles_us.items()} if workload.latency_meaningful else {},
        "latency_avg_us": result.latency_avg_us if workload.latency_meaningful else None,
        "non_2xx": result.non_2xx, "socket_errors": result.socket_errors,
        "server_ticks": {"user": server.user, "system": server.system}, "clock_ticks_per_s": cpu.CLOCK_TICKS,
        "server_user_us_per_req": user_us, "server_sys_us_per_req": sys_us,
        "tcp_segments_per_req": tcp_counters.segments_per_response(tcp_before, tcp_after, result.requests),
        "client_cpu_cores": client_cpu_s / wall_s if wall_s else 0.0,
        "server_cpu_cores": server.total / cpu.CLOCK_TICKS / wall_s if wall_s else 0.0,
        "server_cpu_count": len(layout.server),
        "foreign_cores": foreign, "disturbed": foreign_load.disturbed(foreign, settings.foreign_limit),
        "rss_peak_kib": peak_kib, "rss_kib": rss_kib, "rss_peak_reset": rss_reset,
        "idle_opened": holder.opened if holder else None, "idle_kept": kept,
        "server_cpus": layout.server_spec, "client_cpus": layout.client_spec, "cores_shared": layout.shared,
        "tls_session": h2load.tls_session(text) if workload.tls and workload.load == "h2load" else None,
        **database_figures(db, spent_db, result.requests, wall_s),
    }


def warm_up(workload: Workload, settings: Settings, port: int, h2_port: int | None, workdir: str,
            layout: procs.CpuLayout | None = None) -> None:
    if settings.warmup_s <= 0:
        return
    argv, _ = load_command(workload, settings, port, h2_port, workdir, settings.warmup_s, layout)
    run_client(argv, workdir)


@dataclass
class SuiteContext:
    """What every start of a run shares: the fd limit, the CPUs, the TLS certificate (None: no TLS workload)."""
    fd_limit: int
    cpus: list[int]
    certificate: tls.Certificate | None = None
    certificate_error: str | None = None
    database: database.Database | None = None  # the PostgreSQL of the database workloads (None: none selected)
    database_error: str | None = None
    run_bytes: preflight.RunBytes = field(default_factory=preflight.RunBytes)  # bodies learned from the database


def na_reason(contender: Contender, workload: Workload, settings: Settings, suite: SuiteContext) -> str | None:
    """Why this contender does not run this workload here ("n/a"), or None."""
    reason = contender.na_reason(workload.name, suite.fd_limit, settings.idle_connections, settings.connections)
    if reason:
        return reason
    if not settings.allow_shared_cores:
        return contender.cores_reason(len(suite.cpus))
    return None


def measure_workload(contender: Contender, workload: Workload, settings: Settings, server: procs.ServerProcess,
                     port: int, h2_port: int | None, workdir: str, layout: procs.CpuLayout, base: dict,
                     recorder: Recorder, log, suite: SuiteContext | None = None) -> None:
    """Pre-flight, warm-up and the measured attempts of one workload against a started server."""
    suite = suite or SuiteContext(fd_limit=0, cpus=layout.available)
    db = suite.database if workload.database else None
    if workload.load == "ws":
        mismatch = wsload.probe(HOST, port, workload.path)
    else:
        learned: list[preflight.Answer] = []
        mismatch = preflight.run(HOST, h2_port or port, workload, suite.run_bytes, contender.name, learned)
        for answer in learned:
            recorder.add({"type": "expected", **base, "workload": workload.name, "bytes": len(answer.body),
                          "sha256": hashlib.sha256(answer.body).hexdigest(), "body": answer.body.decode("utf-8", "replace")})
    if mismatch:
        recorder.add({"type": "failure", **base, "workload": workload.name, "reason": f"pre-flight: {mismatch}"})
        log(f"  {contender.name} {workload.name}: pre-flight failed: {mismatch}")
        return
    warm_up(workload, settings, port, h2_port, workdir, layout)
    for attempt in range(settings.max_retries + 1):
        try:
            figures = measure(workload, settings, server.pid, port, h2_port, workdir, layout, db)
        except wrk.WrkParseError as error:
            recorder.add({"type": "failure", **base, "workload": workload.name,
                          "reason": f"load generator output unusable: {str(error).splitlines()[0]}"})
            log(f"  {contender.name} {workload.name}: {str(error).splitlines()[0]}")
            return
        recorder.add({"type": "measurement", **base, "workload": workload.name, "attempt": attempt,
                      "load": workload.load, **figures})
        db_note = (f"  db {figures['db_user_us_per_req']:.1f}+{figures['db_sys_us_per_req']:.1f} us/req "
                   f"{figures['db_cpu_cores']:.2f} cores") if db else ""
        log(f"  {contender.name:20} {workload.name:10} {figures['rps']:>10.0f} {workload.unit}/s  "
            f"cpu {figures['server_user_us_per_req']:.1f}+{figures['server_sys_us_per_req']:.1f} "
            f"us/{workload.unit}{db_note}  foreign {figures['foreign_cores']:.2f}"
            + ("  DISTURBED" if figures["disturbed"] else ""))
        if not figures["disturbed"]:
            return


def check_runtime(contender: Contender, ctx: LaunchContext, server: procs.ServerProcess, base: dict,
                  recorder: Recorder) -> list[str]:
    """Records what a Python contender runs (its reports and mapped native modules); returns why it must not be
    measured (it fell back from what it is declared to run), or nothing."""
    if contender.expects is None:
        return []
    reports = runtime.wait_reports(runtime_dir(ctx), contender.workers)
    native = runtime.native_modules(server.pid)
    found = runtime.problems(contender.expects, reports, native, contender.workers)
    recorder.add({"type": "runtime", **base, "reports": reports, "native": native, "problems": found,
                  "summary": runtime.summary(reports, native)})
    return found


def run_start(contender: Contender, workloads: list[Workload], settings: Settings, round_index: int,
              run_dir: str, suite: SuiteContext, recorder: Recorder, log=print) -> None:
    """One start of a contender (cleartext, or TLS when the workloads are TLS ones) and its workloads."""
    base = {"round": round_index, "contender": contender.name}
    use_tls = workloads[0].tls
    if use_tls and suite.certificate is None:
        for w in workloads:
            recorder.add({"type": "failure", **base, "workload": w.name,
                          "reason": f"no TLS certificate: {suite.certificate_error}"})
        return
    if suite.database is None and any(w.database for w in workloads):
        for w in (w for w in workloads if w.database):
            recorder.add({"type": "failure", **base, "workload": w.name,
                          "reason": f"no database: {suite.database_error or 'not started'}"})
        workloads = [w for w in workloads if not w.database]
        if not workloads:
            return
    workdir = os.path.join(run_dir, f"r{round_index}-{contender.name}" + ("-tls" if use_tls else ""))
    os.makedirs(workdir, exist_ok=True)
    cert = suite.certificate if use_tls else None
    ctx = LaunchContext(port=procs.free_port(), h2_port=procs.free_port(), workdir=workdir, fd_limit=suite.fd_limit,
                        tls_cert=cert.cert if cert else None, tls_key=cert.key if cert else None,
                        database_url=suite.database.url if suite.database else None)
    layout = procs.CpuLayout(suite.cpus, contender.workers)
    launch = contender.build(contender, ctx)
    server = procs.ServerProcess(launch.argv, cwd=launch.cwd, env=launch.env,
                                 log_path=os.path.join(workdir, "server.log"), stop_signal=contender.stop_signal,
                                 cpu=layout.server_spec)
    server.start()
    try:
        try:
            server.wait_ready(HOST, ctx.port, contender.ready_path, tls=use_tls)
        except procs.ServerError as error:
            for w in workloads:
                recorder.add({"type": "failure", **base, "workload": w.name, "reason": f"server start: {error}"})
            log(f"  {contender.name}: did not start{' (TLS)' if use_tls else ''}: {error}")
            return
        fell_back = check_runtime(contender, ctx, server, base, recorder)
        if fell_back:
            reason = "peer fell back: " + "; ".join(fell_back)
            for w in workloads:
                recorder.add({"type": "failure", **base, "workload": w.name, "reason": reason})
            log(f"  {contender.name}: not measured, {reason}")
            return
        for workload in workloads:
            if server.proc.poll() is not None:
                reason = f"server exited with status {server.proc.returncode}: {server.log_tail()}"
                recorder.add({"type": "failure", **base, "workload": workload.name, "reason": reason})
                log(f"  {contender.name} {workload.name}: {reason}")
                continue
            h2_port = launch.h2_port if workload.load == "h2load" and not use_tls else None
            measure_workload(contender, workload, settings, server, ctx.port, h2_port, workdir, layout, base,
                             recorder, log, suite)
    finally:
        server.stop()


def run_contender(contender: Contender, workloads: list[Workload], settings: Settings, round_index: int,
                  run_dir: str, suite: SuiteContext, recorder: Recorder, log=print) -> None:
    """Runs every workload the contender can serve: one start for the cleartext ones, one for the TLS ones."""
    runnable = []
    for workload in workloads:
        reason = na_reason(contender, workload, settings, suite)
        if reason:
            recorder.add({"type": "na", "round": round_index, "contender": contender.name,
                          "workload": workload.name, "reason": reason})
        else:
            runnable.append(workload)
    for group in ([w for w in runnable if not w.tls], [w for w in runnable if w.tls]):
        if group:
            run_start(contender, group, settings, round_index, run_dir, suite, recorder, log)


def run_suite(contenders: list[Contender], workloads: list[Workload], settings: Settings, run_dir: str,
              recorder: Recorder, log=print) -> None:
    suite = SuiteContext(fd_limit=procs.raise_fd_limit(), cpus=procs.available_cpus())
    procs.pin_self(procs.CpuLayout(suite.cpus).harness)
    if any(w.tls for w in workloads):
        try:
            suite.certificate = tls.make_certificate(os.path.join(run_dir, "tls"))
        except RuntimeError as error:
            suite.certificate_error = str(error)
            log(f"no TLS certificate: {error}")
    runnable = []
    for contender in contenders:
        reason = contender.missing()
        if reason:
            recorder.add({"type": "skip", "contender": contender.name, "reason": reason})
            log(f"skipped {contender.name}: {reason}")
        else:
            runnable.append(contender)
    if needs_database(runnable, workloads, settings, suite):
        start_database(settings, suite, recorder, log)
    try:
        for round_index in range(settings.rounds):
            log(f"round {round_index + 1}/{settings.rounds}")
            for contender in rotate(runnable, round_index):
                run_contender(contender, workloads, settings, round_index, run_dir, suite, recorder, log)
    finally:
        if suite.database is not None:
            suite.database.close()
            suite.database = None


def needs_database(runnable: list[Contender], workloads: list[Workload], settings: Settings,
                   suite: SuiteContext) -> bool:
    """Whether a contender that can run here serves a selected database workload."""
    return any(w.database and na_reason(c, w, settings, suite) is None for c in runnable for w in workloads)


def start_database(settings: Settings, suite: SuiteContext, recorder: Recorder, log=print) -> None:
    """Starts the suite's PostgreSQL where settings.database_cpus says (a failure fails the database workloads)."""
    layout = procs.CpuLayout(suite.cpus)
    cpus = database.placement_cpus(settings.database_cpus, layout.server, layout.client, suite.cpus)
    try:
        suite.database = database.Database.start(cpus)
    except database.DatabaseError as error:
        suite.database_error = str(error)
        recorder.add({"type": "database", "error": suite.database_error})
        log(f"no database: {error}")
        return
    record = {"type": "database", "version": suite.database.version(), "placement": settings.database_cpus,
              "cpus": suite.database.cpu_spec}
    recorder.add(record)
    log(f"database: {record['version']} on CPU {record['cpus']} ({settings.database_cpus})")


def settings_dict(settings: Settings) -> dict:
    return asdict(settings)
