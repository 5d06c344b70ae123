"""The suite's PostgreSQL for database workloads: one throwaway cluster (tests/pg_cluster.py) with the Bookstore
schema and seed, its processes pinned where the run says, and the CPU time they use."""
from __future__ import annotations

import functools
import importlib.util
import os

from . import cpu
from .bookstore import REPO_DIR, SCHEMA
from .procs import cpu_list

PG_CLUSTER = os.path.join(REPO_DIR, "tests", "pg_cluster.py")

# Where the postmaster (and so every backend it forks) runs, by the name of --database-cpus.
PLACEMENTS = ("client", "server", "all")
DEFAULT_PLACEMENT = "client"


class DatabaseError(RuntimeError):
    """The cluster could not be started or loaded."""


@functools.cache
def pg_cluster_module():
    """tests/pg_cluster.py (PgCluster, find_bindir), loaded by path: bench/ does not import the tests package."""
    spec = importlib.util.spec_from_file_location("slipstream_pg_cluster", PG_CLUSTER)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def find_bindir() -> str | None:
    """PostgreSQL's server tools, or None when the server is not installed."""
    return pg_cluster_module().find_bindir()


def placement_cpus(placement: str, server: list[int], client: list[int], available: list[int]) -> list[int]:
    """The CPUs of a placement: with the load generator, with the server, or anywhere."""
    if placement == "client":
        return list(client)
    if placement == "server":
        return list(server)
    if placement == "all":
        return sorted(available)
    raise ValueError(f"unknown database placement {placement!r}; known: {', '.join(PLACEMENTS)}")


def read_postmaster_pid(data_dir: str) -> int:
    """The postmaster's pid: the first line of postmaster.pid in the data folder."""
    with open(os.path.join(data_dir, "postmaster.pid")) as f:
        return int(f.readline().strip())


def pin_tree(root: int, cpus: list[int], proc: str = "/proc") -> list[int]:
    """Sets the CPU affinity of root and its descendants (processes forked later inherit it); the pids pinned."""
    pids = cpu.tree_pids(root, cpu.all_stats(proc))
    for pid in pids:
        try:
            os.sched_setaffinity(pid, set(cpus))
        except ProcessLookupError:
            continue
    return pids


class Database:
    """A started cluster with the schema loaded; close() stops it and removes its folder."""

    def __init__(self, cluster, cpus: list[int]):
        self.cluster = cluster
        self.cpus = list(cpus)
        self.postmaster = read_postmaster_pid(os.path.join(cluster.dir, "data"))

    @classmethod
    def start(cls, cpus: list[int], schema: str = SCHEMA, bindir: str | None = None) -> Database:
        """initdb, pg_ctl start, pin the postmaster's tree to `cpus`, then load `schema` (its backend is forked
        after the pinning, as the apps' will be)."""
        bindir = bindir or find_bindir()
        if bindir is None:
            raise DatabaseError("PostgreSQL's server is not installed (scripts/setup.sh installs it)")
        cluster = pg_cluster_module().PgCluster(bindir)
        try:
            cluster.start()
            db = cls(cluster, cpus)
            pin_tree(db.postmaster, cpus)
            cluster.psql(file=schema)
        except (OSError, RuntimeError, ValueError) as error:
            cluster.close()
            raise DatabaseError(str(error).strip().splitlines()[0] if str(error).strip() else repr(error)) from error
        return db

    @property
    def url(self) -> str:
        return self.cluster.url

    @property
    def cpu_spec(self) -> str:
        return cpu_list(self.cpus)

    def version(self) -> str:
        try:
            return "PostgreSQL " + self.cluster.psql("SHOW server_version").strip()
        except RuntimeError:
            return "PostgreSQL (unknown version)"

    def times(self) -> cpu.CpuTimes:
        """CPU time of the postmaster and everything it forked (backends, background workers, reaped ones)."""
        return cpu.tree_times(self.postmaster)

    def close(self) -> None:
        self.cluster.close()
