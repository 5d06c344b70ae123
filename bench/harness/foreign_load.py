"""Foreign load: CPU used on the machine during a run by anything other than the server and the client."""
from __future__ import annotations

from dataclasses import dataclass

from .cpu import CLOCK_TICKS

# /proc/stat "cpu" columns: user nice system idle iowait irq softirq steal guest guest_nice.
# guest time is already included in user, so it is not added again.
_BUSY_COLUMNS = (0, 1, 2, 5, 6, 7)


@dataclass(frozen=True)
class MachineTimes:
    busy: int   # ticks, all CPUs
    total: int


def parse_proc_stat(text: str) -> MachineTimes:
    for line in text.splitlines():
        if line.startswith("cpu "):
            values = [int(v) for v in line.split()[1:]]
            values += [0] * (10 - len(values))
            return MachineTimes(busy=sum(values[i] for i in _BUSY_COLUMNS), total=sum(values[:8]))
    raise ValueError("no aggregate cpu line in /proc/stat")


def read_machine(proc: str = "/proc") -> MachineTimes:
    with open(f"{proc}/stat") as f:
        return parse_proc_stat(f.read())


def foreign_cores(before: MachineTimes, after: MachineTimes, server_ticks: int, client_ticks: int,
                  wall_s: float, database_ticks: int = 0) -> float:
    """Average number of cores used by others: (machine busy - server - client - database) / wall time.

    The database (the suite's PostgreSQL, for database workloads) is part of the workload, not foreign load.
    Accounting is in clock ticks, so a value within a few ticks of 0 may come out slightly negative;
    it is clamped at 0.
    """
    if wall_s <= 0:
        return 0.0
    foreign_ticks = (after.busy - before.busy) - server_ticks - client_ticks - database_ticks
    return max(0.0, foreign_ticks / CLOCK_TICKS / wall_s)


DISTURBANCE_LIMIT_CORES = 0.2


def disturbed(cores: float, limit: float = DISTURBANCE_LIMIT_CORES) -> bool:
    return cores > limit
