"""The suite's PostgreSQL: placement, pinning, the cluster lifecycle around a run (with a stand-in cluster), its CPU
kept out of foreign load, and its figures in the report, the ledger and the caveats."""
import os
import subprocess
import sys

import pytest
from harness import contenders, cpu, database, foreign_load, ledger, report, runner, workloads
from helpers import META, SETTINGS, measurement

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import run


@pytest.mark.parametrize("placement, cpus", [("client", [1]), ("server", [0]), ("all", [0, 1])])
def test_placements(placement, cpus):
    assert database.placement_cpus(placement, [0], [1], [1, 0]) == cpus


def test_an_unknown_placement_is_refused():
    with pytest.raises(ValueError, match="unknown database placement 'elsewhere'"):
        database.placement_cpus("elsewhere", [0], [1], [0, 1])


@pytest.fixture
def sleeper():
    proc = subprocess.Popen(["sleep", "60"])
    yield proc
    proc.kill()
    proc.wait()


def test_pin_tree_sets_the_affinity_of_the_tree(sleeper):
    cpus = sorted(os.sched_getaffinity(0))[-1:]
    assert database.pin_tree(sleeper.pid, cpus) == [sleeper.pid]
    assert sorted(os.sched_getaffinity(sleeper.pid)) == cpus


INSTANCES = []  # the FakeClusters made by the current test


class FakeCluster:
    """PgCluster's surface: start(), psql(), close(), url and dir (with data/postmaster.pid)."""

    def __init__(self, bindir, postmaster, folder, fail_on=None):
        self.bindir, self.postmaster, self.dir, self.fail_on = bindir, postmaster, str(folder), fail_on
        self.calls = []
        INSTANCES.append(self)

    def start(self):
        os.makedirs(os.path.join(self.dir, "data"))
        with open(os.path.join(self.dir, "data", "postmaster.pid"), "w") as f:
            f.write(f"{self.postmaster}\n/data\n")
        self.calls.append("start")
        return self

    def psql(self, sql=None, *, file=None):
        self.calls.append(("psql", file or sql))
        if self.fail_on == "psql":
            raise RuntimeError("psql failed: ERROR: syntax error\nLINE 1")
        return "15.18\n"

    @property
    def url(self):
        return f"postgresql://slipstream@/postgres?host={self.dir}&port=5432"

    def close(self):
        self.calls.append("close")


def _fake_module(monkeypatch, postmaster, folder, fail_on=None):
    import types
    INSTANCES.clear()
    module = types.SimpleNamespace(PgCluster=lambda bindir: FakeCluster(bindir, postmaster, folder, fail_on),
                                   find_bindir=lambda: "/pg/bin")
    monkeypatch.setattr(database, "pg_cluster_module", lambda: module)


def test_start_pins_the_postmaster_then_loads_the_schema(monkeypatch, sleeper, tmp_path):
    _fake_module(monkeypatch, sleeper.pid, tmp_path)
    cpus = sorted(os.sched_getaffinity(0))[:1]
    db = database.Database.start(cpus)
    (cluster,) = INSTANCES
    assert (cluster.bindir, cluster.calls) == ("/pg/bin", ["start", ("psql", database.SCHEMA)])
    assert database.SCHEMA.endswith("examples/bookstore/schema.sql")
    assert (db.postmaster, db.url, db.cpu_spec) == (sleeper.pid, cluster.url, str(cpus[0]))
    assert sorted(os.sched_getaffinity(sleeper.pid)) == cpus
    assert db.version() == "PostgreSQL 15.18"
    assert db.times() == cpu.tree_times(sleeper.pid)
    db.close()
    assert cluster.calls[-1] == "close"


def test_a_schema_that_fails_stops_the_cluster(monkeypatch, sleeper, tmp_path):
    _fake_module(monkeypatch, sleeper.pid, tmp_path, fail_on="psql")
    with pytest.raises(database.DatabaseError, match="^psql failed: ERROR: syntax error$"):
        database.Database.start([0])
    assert INSTANCES[0].calls[-1] == "close"


def test_no_server_installed_is_an_error_not_a_crash(monkeypatch):
    monkeypatch.setattr(database, "find_bindir", lambda: None)
    with pytest.raises(database.DatabaseError, match="PostgreSQL's server is not installed"):
        database.Database.start([0])


def test_the_postmaster_pid_is_the_first_line(tmp_path):
    (tmp_path / "postmaster.pid").write_text("4242\n/var/lib/data\n1700000000\n5432\n")
    assert database.read_postmaster_pid(str(tmp_path)) == 4242


def test_the_database_is_started_only_for_a_contender_that_serves_a_selected_database_workload():
    settings, suite = runner.Settings(), runner.SuiteContext(fd_limit=65536, cpus=[0, 1])
    bk, hello = workloads.WORKLOADS["bk-stats"], workloads.WORKLOADS["hello"]
    cpp, nginx = contenders.BY_NAME["slipstream-cpp-bookstore"], contenders.BY_NAME["nginx"]
    assert runner.needs_database([cpp], [bk, hello], settings, suite)
    assert not runner.needs_database([nginx], [bk, hello], settings, suite)
    assert not runner.needs_database([cpp, nginx], [hello], settings, suite)


class FakeDatabase:
    url = "postgresql://x"
    cpu_spec = "1"

    def __init__(self):
        self.closed = False

    def version(self):
        return "PostgreSQL 15.18"

    def close(self):
        self.closed = True


def test_the_suite_starts_the_database_where_told_and_stops_it_even_when_a_round_fails(monkeypatch, tmp_path):
    started = []

    def start(cpus):
        started.append(cpus)
        return db

    db = FakeDatabase()
    monkeypatch.setattr(runner.database.Database, "start", staticmethod(start))
    monkeypatch.setattr(runner.procs, "pin_self", lambda cpu: None)
    monkeypatch.setattr(runner.procs, "available_cpus", lambda: [0, 1])
    monkeypatch.setattr(contenders.Contender, "missing", lambda self: None)

    def boom(*args, **kwargs):
        raise RuntimeError("round failed")

    monkeypatch.setattr(runner, "run_contender", boom)
    recorder = runner.Recorder(str(tmp_path / "r.jsonl"))
    with pytest.raises(RuntimeError, match="round failed"):
        runner.run_suite([contenders.BY_NAME["slipstream-cpp-bookstore"]], [workloads.WORKLOADS["bk-book"]],
                         runner.Settings(database_cpus="server"), str(tmp_path), recorder, log=lambda line: None)
    assert started == [[0]] and db.closed
    assert recorder.records[-1] == {"type": "database", "version": "PostgreSQL 15.18", "placement": "server",
                                    "cpus": "1"}


def test_without_a_database_its_workloads_fail_with_the_reason(tmp_path):
    recorder = runner.Recorder(str(tmp_path / "r.jsonl"))
    suite = runner.SuiteContext(fd_limit=65536, cpus=[0, 1], database_error="PostgreSQL's server is not installed")
    runner.run_start(contenders.BY_NAME["fastapi-asyncpg"], [workloads.WORKLOADS["bk-stats"]], runner.Settings(), 0,
                     str(tmp_path), suite, recorder)
    assert recorder.records == [{"type": "failure", "round": 0, "contender": "fastapi-asyncpg", "workload": "bk-stats",
                                 "reason": "no database: PostgreSQL's server is not installed"}]


def test_database_figures_are_per_response_and_absent_without_a_database():
    ticks = cpu.CLOCK_TICKS
    spent = cpu.CpuTimes(user=ticks, system=ticks // 2)  # 1.5 s of database CPU
    figures = runner.database_figures(FakeDatabase(), spent, requests=10000, wall_s=3.0)
    assert figures["db_user_us_per_req"] == pytest.approx(100.0)
    assert figures["db_sys_us_per_req"] == pytest.approx(50.0)
    assert figures["db_cpu_cores"] == pytest.approx(0.5)
    assert (figures["db_cpus"], figures["db_ticks"]) == ("1", {"user": ticks, "system": ticks // 2})
    assert runner.database_figures(None, spent, 10000, 3.0) == {}


def test_database_cpu_is_workload_not_foreign_load():
    before = foreign_load.MachineTimes(busy=0, total=0)
    after = foreign_load.MachineTimes(busy=4 * cpu.CLOCK_TICKS, total=0)
    kwargs = {"server_ticks": cpu.CLOCK_TICKS, "client_ticks": cpu.CLOCK_TICKS, "wall_s": 2.0}
    assert foreign_load.foreign_cores(before, after, **kwargs) == pytest.approx(1.0)
    assert foreign_load.foreign_cores(before, after, database_ticks=2 * cpu.CLOCK_TICKS, **kwargs) == 0.0


def _bk(contender, rnd, rps, server_us, db_us, db_cores, client_cores=0.2, db_cpus="1"):
    return measurement(contender, "bk-book", rnd, rps, server_user_us_per_req=server_us, server_sys_us_per_req=0.0,
                       db_user_us_per_req=db_us, db_sys_us_per_req=0.0, db_cpu_cores=db_cores, db_cpus=db_cpus,
                       client_cpus="1", client_cpu_cores=client_cores)


def test_the_table_shows_the_databases_share_and_the_whole_stacks_ratio():
    records = []
    for rnd in range(3):
        records.append(_bk("fastapi-asyncpg", rnd, 1000.0, 200.0, 100.0, 0.1))
        records.append(_bk("slipstream-cpp-bookstore", rnd, 3000.0, 20.0, 130.0 + rnd, 0.8))
    (table,) = report.build_tables(records, [workloads.WORKLOADS["bk-book"]],
                                   ["slipstream-cpp-bookstore", "fastapi-asyncpg"])
    assert table.extra_columns == ["CPU/req vs fastapi-asyncpg", "kernel/req vs fastapi-asyncpg CPU/req",
                                   "DB µs/req", "DB cores", "CPU+DB/req vs fastapi-asyncpg"]
    cpp, peer = table.rows
    assert (cpp.ratio, cpp.extra["CPU/req vs fastapi-asyncpg"]) == (3.0, pytest.approx(0.1))
    assert (cpp.extra["DB µs/req"], cpp.extra["DB cores"]) == (131.0, 0.8)
    assert cpp.extra["CPU+DB/req vs fastapi-asyncpg"] == pytest.approx(151.0 / 300.0)
    assert cpp.flags == ["client+DB-bound"] and peer.flags == []
    rendered = ledger.render_table(table)
    assert "| DB µs/req | DB cores | CPU+DB/req vs fastapi-asyncpg |" in rendered
    assert "| 131.0 | 0.80 | 0.50× |" in rendered


def test_a_database_on_the_servers_cpu_flags_the_server_side():
    records = [_bk("slipstream-cpp-bookstore", 0, 8000.0, 20.0, 100.0, 0.8, client_cores=0.5, db_cpus="0")]
    records[0].update(server_cpus="0", server_cpu_cores=0.15, server_cpu_count=1)
    (table,) = report.build_tables(records, [workloads.WORKLOADS["bk-book"]], ["slipstream-cpp-bookstore"])
    assert table.rows[0].flags == ["server+DB-bound"]
    records[0].update(db_cpu_cores=0.7)
    (table,) = report.build_tables(records, [workloads.WORKLOADS["bk-book"]], ["slipstream-cpp-bookstore"])
    assert table.rows[0].flags == []


def test_no_client_db_flag_when_the_database_has_its_own_cpus():
    records = [_bk("fastapi-asyncpg", 0, 1000.0, 200.0, 100.0, 0.9, client_cores=0.5, db_cpus="0,1")]
    (table,) = report.build_tables(records, [workloads.WORKLOADS["bk-book"]], ["fastapi-asyncpg"])
    assert table.rows[0].flags == []
    assert table.extra_columns == ["DB µs/req", "DB cores"]


def test_hello_tables_have_no_database_columns():
    records = [measurement("nginx", "hello", 0, 1000.0), measurement("fastapi", "hello", 0, 500.0)]
    (table,) = report.build_tables(records, [workloads.WORKLOADS["hello"]], ["nginx", "fastapi"])
    assert "DB µs/req" not in table.extra_columns


def test_the_ledger_names_the_database_and_where_it_ran():
    records = [{"type": "database", "version": "PostgreSQL 15.18", "placement": "client", "cpus": "1"}]
    line = run.meta_database(records)
    assert line == ("PostgreSQL 15.18, throwaway cluster (tests/pg_cluster.py, Unix socket, fsync off), "
                    "examples/bookstore/schema.sql; postmaster and backends on CPU 1 (client)")
    assert run.meta_database([{"type": "database", "error": "initdb failed"}]) == \
        "PostgreSQL did not start: initdb failed"
    assert run.meta_database([]) is None
    section = ledger.render_section(dict(META, database=line), SETTINGS, [], invocation="bench/run.py",
                                    results_path="r.jsonl", chart_paths={}, commands={}, contender_lines=[],
                                    caveats=[])
    assert f"\n- Database: {line}\n- Tools: " in section
    assert "- Database:" not in ledger.render_section(META, SETTINGS, [], invocation="x", results_path="r",
                                                      chart_paths={}, commands={}, contender_lines=[], caveats=[])


@pytest.mark.parametrize("placement, where", [
    ("client", "PostgreSQL pinned with the load generator to its CPU"),
    ("server", "PostgreSQL pinned to the server's CPU"),
    ("all", "PostgreSQL unpinned")])
def test_the_caveat_says_where_postgres_ran(placement, where):
    settings = run.settings_from(run.parse_args(["--database-cpus", placement]))
    assert settings.database_cpus == placement
    notes = run.caveats(settings, [report.Table(workloads.WORKLOADS["bk-list"], "fastapi-asyncpg", [])])
    (note,) = [n for n in notes if n.startswith("Bookstore (bk-*)")]
    assert where in note
    assert not any(n.startswith("Bookstore") for n in run.caveats(settings, [
        report.Table(workloads.WORKLOADS["hello"], "nginx", [])]))


def test_the_default_placement_is_with_the_client():
    assert run.settings_from(run.parse_args([])).database_cpus == "client" == database.DEFAULT_PLACEMENT
