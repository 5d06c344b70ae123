"""Server CPU and memory accounting from /proc: utime/stime per process tree, peak RSS (VmHWM)."""
from __future__ import annotations

import os
from dataclasses import dataclass

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


@dataclass(frozen=True)
class ProcStat:
    pid: int
    comm: str
    state: str
    ppid: int
    utime: int   # clock ticks, all threads of the process
    stime: int
    cutime: int  # ticks of children already reaped
    cstime: int


@dataclass(frozen=True)
class CpuTimes:
    """User and kernel CPU time, in clock ticks."""
    user: int
    system: int

    def __sub__(self, other: CpuTimes) -> CpuTimes:
        return CpuTimes(self.user - other.user, self.system - other.system)

    def __add__(self, other: CpuTimes) -> CpuTimes:
        return CpuTimes(self.user + other.user, self.system + other.system)

    @property
    def total(self) -> int:
        return self.user + self.system

    def us_per_request(self, requests: int) -> tuple[float, float]:
        """(user, kernel) microseconds per request."""
        if requests <= 0:
            return 0.0, 0.0
        scale = 1e6 / CLOCK_TICKS / requests
        return self.user * scale, self.system * scale


def parse_stat(line: str) -> ProcStat:
    """Parses one /proc/PID/stat line; the command name may hold spaces and parentheses."""
    open_paren = line.index("(")
    close_paren = line.rindex(")")
    pid = int(line[:open_paren])
    comm = line[open_paren + 1:close_paren]
    fields = line[close_paren + 2:].split()
    # fields[0] is field 3 (state) of proc(5); utime is field 14, stime 15, cutime 16, cstime 17.
    return ProcStat(pid=pid, comm=comm, state=fields[0], ppid=int(fields[1]), utime=int(fields[11]),
                    stime=int(fields[12]), cutime=int(fields[13]), cstime=int(fields[14]))


def read_stat(pid: int, proc: str = "/proc") -> ProcStat | None:
    try:
        with open(f"{proc}/{pid}/stat") as f:
            return parse_stat(f.read())
    except (FileNotFoundError, ProcessLookupError):
        return None


def all_stats(proc: str = "/proc") -> dict[int, ProcStat]:
    stats = {}
    for name in os.listdir(proc):
        if name.isdigit():
            stat = read_stat(int(name), proc)
            if stat:
                stats[stat.pid] = stat
    return stats


def tree_pids(root: int, stats: dict[int, ProcStat]) -> list[int]:
    """root and all its descendants present in stats."""
    children: dict[int, list[int]] = {}
    for stat in stats.values():
        children.setdefault(stat.ppid, []).append(stat.pid)
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        if pid in stats:
            out.append(pid)
            todo.extend(children.get(pid, []))
    return sorted(out)


def times_of(stats: dict[int, ProcStat], pids: list[int]) -> CpuTimes:
    """Sum over processes of own (all threads) plus reaped children's time."""
    user = sum(stats[p].utime + stats[p].cutime for p in pids if p in stats)
    system = sum(stats[p].stime + stats[p].cstime for p in pids if p in stats)
    return CpuTimes(user, system)


def tree_times(root: int, proc: str = "/proc") -> CpuTimes:
    """CPU time of a server's whole process tree (threads are counted in each process's stat)."""
    stats = all_stats(proc)
    return times_of(stats, tree_pids(root, stats))


def _status_kib(pid: int, key: str, proc: str) -> int:
    try:
        with open(f"{proc}/{pid}/status") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
    except (FileNotFoundError, ProcessLookupError):
        pass
    return 0


def tree_memory_kib(root: int, proc: str = "/proc") -> tuple[int, int]:
    """(peak RSS, current RSS) summed over the tree, in KiB. Peak is VmHWM since the last reset."""
    pids = tree_pids(root, all_stats(proc))
    return (sum(_status_kib(p, "VmHWM", proc) for p in pids),
            sum(_status_kib(p, "VmRSS", proc) for p in pids))


def reset_peak_rss(root: int, proc: str = "/proc") -> bool:
    """Resets VmHWM of every process in the tree (writes 5 to clear_refs). False if not permitted."""
    ok = True
    for pid in tree_pids(root, all_stats(proc)):
        try:
            with open(f"{proc}/{pid}/clear_refs", "w") as f:
                f.write("5")
        except OSError:
            ok = False
    return ok
