"""A throwaway PostgreSQL cluster for tests: initdb into a temporary folder, pg_ctl on a Unix socket only (no TCP
port to collide with), as `nobody` when run as root; the same recipe as src/store/postgres/test_cluster.cpp."""
from __future__ import annotations

import glob
import os
import pathlib
import shutil
import subprocess
import tempfile


def find_bindir() -> str | None:
    """The server's bin folder: SLIPSTREAM_TEST_PG_BINDIR, `pg_config --bindir`, or the newest
    /usr/lib/postgresql/*/bin; None when PostgreSQL's server is not installed."""
    def usable(d: str) -> bool:
        return all(os.access(os.path.join(d, tool), os.X_OK) for tool in ("initdb", "pg_ctl", "psql"))

    forced = os.environ.get("SLIPSTREAM_TEST_PG_BINDIR")
    if forced is not None:
        return forced if usable(forced) else None
    try:
        d = subprocess.run(["pg_config", "--bindir"], capture_output=True, text=True, check=False).stdout.strip()
        if d and usable(d):
            return d
    except OSError:
        pass
    found = [d for d in glob.glob("/usr/lib/postgresql/*/bin") if usable(d)]
    found.sort(key=lambda d: int(d.split("/")[4]) if d.split("/")[4].isdigit() else 0)
    return found[-1] if found else None


class PgCluster:
    """start() / stop() / restart(); `url` and `conninfo` reach it; psql() runs SQL through psql."""

    def __init__(self, bindir: str) -> None:
        self.bindir = bindir
        self.dir = tempfile.mkdtemp(prefix="ss-pg-")
        self._as: list[str] = []
        if os.geteuid() == 0:
            self._as = ["runuser", "-u", "nobody", "--"]
            shutil.chown(self.dir, "nobody")
        os.chmod(self.dir, 0o755)
        self.running = False

    @property
    def conninfo(self) -> str:
        return f"host={self.dir} port=5432 user=slipstream dbname=postgres"

    @property
    def url(self) -> str:
        return f"postgresql://slipstream@/postgres?host={self.dir}&port=5432"

    def _tool(self, name: str) -> str:
        return os.path.join(self.bindir, name)

    def _run(self, args: list[str], what: str) -> None:
        out = subprocess.run([*self._as, *args], capture_output=True, text=True, check=False)
        if out.returncode != 0:
            log = os.path.join(self.dir, "server.log")
            tail = pathlib.Path(log).read_text()[-2000:] if os.path.exists(log) else ""
            raise RuntimeError(f"{what} failed: {out.stdout}{out.stderr}{tail}")

    def start(self) -> PgCluster:
        if not os.path.exists(os.path.join(self.dir, "data")):
            self._run([self._tool("initdb"), "-D", f"{self.dir}/data", "-U", "slipstream", "--auth=trust", "-N",
                       "-E", "UTF8", "--locale=C"], "initdb")
        self._pg_ctl("start")
        self.running = True
        return self

    def _pg_ctl(self, action: str) -> None:
        options = f"-k {self.dir} -c listen_addresses='' -p 5432 -c fsync=off -c full_page_writes=off"
        args = [self._tool("pg_ctl"), "-D", f"{self.dir}/data", "-l", f"{self.dir}/server.log", "-w", "-t", "30"]
        if action != "start":
            args += ["-m", "fast"]
        self._run([*args, "-o", options, action], f"pg_ctl {action}")

    def stop(self) -> None:
        if self.running:
            self._pg_ctl("stop")
            self.running = False

    def restart(self) -> None:
        self._pg_ctl("restart")
        self.running = True

    def psql(self, sql: str | None = None, *, file: str | None = None) -> str:
        args = [self._tool("psql"), "-X", "-q", "-v", "ON_ERROR_STOP=1", "-At", "-h", self.dir, "-p", "5432", "-U",
                "slipstream", "-d", "postgres"]
        args += ["-f", file] if file is not None else ["-c", sql or ""]
        out = subprocess.run(args, capture_output=True, text=True, check=False)
        if out.returncode != 0:
            raise RuntimeError(f"psql failed: {out.stderr}")
        return out.stdout

    def close(self) -> None:
        try:
            self.stop()
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)
