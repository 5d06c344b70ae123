"""Runs the suite: for each round, each contender in rotating order is started, checked, driven and stopped."""
from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from dataclasses import asdict, dataclass

from . import cpu, foreign_load, h2load, preflight, procs, wrk
from .contenders import HOST, Contender, LaunchContext
from .workloads import LUA_DIR, Workload, write_body_files

IDLE_HELPER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "idle.py")
CLIENT_BOUND_CORES = 0.9


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
                 duration_s: int) -> tuple[list[str], str | None]:
    """(client argv pinned to the client CPU, h2load log path or None)."""
    if workload.load == "h2load":
        log = os.path.join(workdir, f"h2load-{workload.name}.log")
        url = f"http://{HOST}:{h2_port or port}{workload.path}"
        argv = h2load.command(url, duration_s=duration_s, connections=settings.connections,
                              streams=settings.h2_streams, log_file=log)
        return procs.pinned(argv, procs.CLIENT_CPU), log
    script = os.path.join(LUA_DIR, workload.script) if workload.script else None
    argv = wrk.command(f"http://{HOST}:{port}{workload.path}", duration_s=duration_s,
                       connections=settings.connections, script=script,
                       script_args=write_body_files(workload, workdir))
    return procs.pinned(argv, procs.CLIENT_CPU), None


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

    def __init__(self, port: int, count: int, path: str):
        argv = procs.pinned([sys.executable, IDLE_HELPER, "--host", HOST, "--port", str(port), "--path", path,
                             "--count", str(count)], procs.CLIENT_CPU)
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


def measure(workload: Workload, settings: Settings, server_pid: int, port: int, h2_port: int | None,
            workdir: str) -> dict:
    """One measured run of a workload against a started server."""
    argv, log_path = load_command(workload, settings, port, h2_port, workdir, settings.duration_s)
    rss_reset = cpu.reset_peak_rss(server_pid)
    holder = IdleHolder(port, settings.idle_connections, workload.path) if workload.idle_connections else None
    try:
        machine_before = foreign_load.read_machine()
        server_before = cpu.tree_times(server_pid)
        self_before = resource.getrusage(resource.RUSAGE_SELF)
        holder_before = holder.ticks() if holder else 0
        started = time.monotonic()
        text, client_cpu_s, exit_status = run_client(argv, workdir)
        wall_s = time.monotonic() - started
        server_after = cpu.tree_times(server_pid)
        holder_after = holder.ticks() if holder else 0
        self_after = resource.getrusage(resource.RUSAGE_SELF)
        machine_after = foreign_load.read_machine()
        kept = holder.kept() if holder else None
    finally:
        if holder:
            holder.close()
    peak_kib, rss_kib = cpu.tree_memory_kib(server_pid)
    if workload.load == "h2load":
        with open(log_path, "rb") as f:
            result = h2load.parse(text, f.read().decode("ascii", "replace"), settings.connections)
    else:
        result = wrk.parse(text)
    server = server_after - server_before
    harness_s = (self_after.ru_utime + self_after.ru_stime) - (self_before.ru_utime + self_before.ru_stime)
    client_ticks = (client_cpu_s + harness_s) * cpu.CLOCK_TICKS + (holder_after - holder_before)
    foreign = foreign_load.foreign_cores(machine_before, machine_after, server.total, client_ticks, wall_s)
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
        "client_cpu_cores": client_cpu_s / wall_s if wall_s else 0.0,
        "foreign_cores": foreign, "disturbed": foreign_load.disturbed(foreign, settings.foreign_limit),
        "rss_peak_kib": peak_kib, "rss_kib": rss_kib, "rss_peak_reset": rss_reset,
        "idle_opened": holder.opened if holder else None, "idle_kept": kept,
    }


def warm_up(workload: Workload, settings: Settings, port: int, h2_port: int | None, workdir: str) -> None:
    if settings.warmup_s <= 0:
        return
    argv, _ = load_command(workload, settings, port, h2_port, workdir, settings.warmup_s)
    run_client(argv, workdir)


def run_contender(contender: Contender, workloads: list[Workload], settings: Settings, round_index: int,
                  run_dir: str, fd_limit: int, recorder: Recorder, log=print) -> None:
    """Starts one contender, runs every workload it can serve, stops it."""
    workdir = os.path.join(run_dir, f"r{round_index}-{contender.name}")
    os.makedirs(workdir, exist_ok=True)
    ctx = LaunchContext(port=procs.free_port(), h2_port=procs.free_port(), workdir=workdir, fd_limit=fd_limit)
    launch = contender.build(contender, ctx)
    server = procs.ServerProcess(launch.argv, cwd=launch.cwd, env=launch.env,
                                 log_path=os.path.join(workdir, "server.log"), stop_signal=contender.stop_signal)
    base = {"round": round_index, "contender": contender.name}
    server.start()
    try:
        try:
            server.wait_ready(HOST, ctx.port, "/hello")
        except procs.ServerError as error:
            for w in workloads:
                recorder.add({"type": "failure", **base, "workload": w.name, "reason": f"server start: {error}"})
            log(f"  {contender.name}: did not start: {error}")
            return
        for workload in workloads:
            if server.proc.poll() is not None:
                reason = f"server exited with status {server.proc.returncode}: {server.log_tail()}"
                recorder.add({"type": "failure", **base, "workload": workload.name, "reason": reason})
                log(f"  {contender.name} {workload.name}: {reason}")
                continue
            reason = contender.na_reason(workload.name, fd_limit, settings.idle_connections, settings.connections)
            if reason:
                recorder.add({"type": "na", **base, "workload": workload.name, "reason": reason})
                continue
            h2_port = launch.h2_port if workload.load == "h2load" else None
            mismatch = preflight.run(HOST, h2_port or ctx.port, workload)
            if mismatch:
                recorder.add({"type": "failure", **base, "workload": workload.name, "reason": f"pre-flight: {mismatch}"})
                log(f"  {contender.name} {workload.name}: pre-flight failed: {mismatch}")
                continue
            warm_up(workload, settings, ctx.port, h2_port, workdir)
            for attempt in range(settings.max_retries + 1):
                try:
                    figures = measure(workload, settings, server.pid, ctx.port, h2_port, workdir)
                except wrk.WrkParseError as error:
                    recorder.add({"type": "failure", **base, "workload": workload.name,
                                  "reason": f"load generator output unusable: {str(error).splitlines()[0]}"})
                    log(f"  {contender.name} {workload.name}: {str(error).splitlines()[0]}")
                    break
                recorder.add({"type": "measurement", **base, "workload": workload.name, "attempt": attempt,
                              "load": workload.load, **figures})
                log(f"  {contender.name:20} {workload.name:10} {figures['rps']:>10.0f} req/s  "
                    f"cpu {figures['server_user_us_per_req']:.1f}+{figures['server_sys_us_per_req']:.1f} us/req  "
                    f"foreign {figures['foreign_cores']:.2f}" + ("  DISTURBED" if figures["disturbed"] else ""))
                if not figures["disturbed"]:
                    break
    finally:
        server.stop()


def run_suite(contenders: list[Contender], workloads: list[Workload], settings: Settings, run_dir: str,
              recorder: Recorder, log=print) -> None:
    fd_limit = procs.raise_fd_limit()
    procs.pin_self(procs.CLIENT_CPU)
    runnable = []
    for contender in contenders:
        reason = contender.missing()
        if reason:
            recorder.add({"type": "skip", "contender": contender.name, "reason": reason})
            log(f"skipped {contender.name}: {reason}")
        else:
            runnable.append(contender)
    for round_index in range(settings.rounds):
        log(f"round {round_index + 1}/{settings.rounds}")
        for contender in rotate(runnable, round_index):
            run_contender(contender, workloads, settings, round_index, run_dir, fd_limit, recorder, log)


def settings_dict(settings: Settings) -> dict:
    return asdict(settings)
