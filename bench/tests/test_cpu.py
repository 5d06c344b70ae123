"""CPU and memory accounting from /proc: synthetic stat lines, a fake /proc tree, and real processes burning CPU."""
import os
import subprocess
import sys
import time

import pytest
from harness import cpu, foreign_load

# A real-looking stat line whose command name holds spaces and parentheses.
STAT_LINE = ("4242 (my (odd) server) S 4000 4242 4242 0 -1 4194560 1234 0 0 0 "
             "150 37 12 5 20 0 3 0 987654 123456789 4321 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0")


def test_parse_stat_fields():
    stat = cpu.parse_stat(STAT_LINE)
    assert (stat.pid, stat.comm, stat.state, stat.ppid) == (4242, "my (odd) server", "S", 4000)
    assert (stat.utime, stat.stime, stat.cutime, stat.cstime) == (150, 37, 12, 5)


def _fake_proc(tmp_path, entries):
    for pid, ppid, utime, stime in entries:
        d = tmp_path / str(pid)
        d.mkdir()
        (d / "stat").write_text(f"{pid} (p{pid}) S {ppid} 0 0 0 -1 0 0 0 0 0 {utime} {stime} 0 0 20 0 1 0 0 0 0\n")
    (tmp_path / "self").mkdir()  # non-numeric entries are ignored
    return str(tmp_path)


def test_tree_times_sums_descendants_only(tmp_path):
    # 10 is the server; 11 and 12 its workers; 13 a grandchild; 20 an unrelated process.
    proc = _fake_proc(tmp_path, [(10, 1, 5, 1), (11, 10, 100, 40), (12, 10, 50, 20), (13, 11, 7, 3), (20, 1, 999, 999)])
    stats = cpu.all_stats(proc)
    assert cpu.tree_pids(10, stats) == [10, 11, 12, 13]
    assert cpu.tree_times(10, proc) == cpu.CpuTimes(user=162, system=64)
    assert cpu.tree_times(99, proc) == cpu.CpuTimes(0, 0)


def test_us_per_request_splits_user_and_kernel():
    ticks = cpu.CpuTimes(user=cpu.CLOCK_TICKS * 2, system=cpu.CLOCK_TICKS * 9)  # 2 s user, 9 s kernel
    user_us, sys_us = ticks.us_per_request(1_000_000)
    assert user_us == pytest.approx(2.0)
    assert sys_us == pytest.approx(9.0)
    assert ticks.us_per_request(0) == (0.0, 0.0)
    assert (ticks - cpu.CpuTimes(1, 1)) == cpu.CpuTimes(ticks.user - 1, ticks.system - 1)


BURNER = """
import os, sys, time
mode = sys.argv[1]
def burn_user(seconds):
    end = time.process_time() + seconds
    x = 0
    while time.process_time() < end:
        for i in range(20000):
            x += i
def burn_kernel(seconds):
    fd = os.open("/dev/zero", os.O_RDONLY)
    end = time.process_time() + seconds
    while time.process_time() < end:
        for _ in range(20):
            os.read(fd, 1 << 20)
if mode == "parent-of-burner":
    import subprocess
    child = subprocess.Popen([sys.executable, sys.argv[2], "user", sys.argv[2]],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    child.stdout.readline()
    print("ready", flush=True)
    sys.stdin.readline()
    child.stdin.write(b"go\\n"); child.stdin.flush()
    print(child.stdout.readline().decode().strip(), flush=True)
    sys.stdin.readline()
    child.stdin.close(); child.wait()
    sys.exit(0)
print("ready", flush=True)
sys.stdin.readline()
(burn_user if mode == "user" else burn_kernel)(0.3)
print("done", flush=True)
sys.stdin.readline()
"""


@pytest.fixture
def burner(tmp_path):
    path = tmp_path / "burner.py"
    path.write_text(BURNER)
    procs = []

    def start(mode):
        p = subprocess.Popen([sys.executable, str(path), mode, str(path)], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True)
        procs.append(p)
        assert p.stdout.readline().strip() == "ready"
        return p
    yield start
    for p in procs:
        p.kill()
        p.wait()


def _burn(p):
    p.stdin.write("go\n")
    p.stdin.flush()
    assert p.stdout.readline().strip() == "done"


@pytest.mark.parametrize("mode, field", [("user", "user"), ("kernel", "system")])
def test_real_process_cpu_is_counted(burner, mode, field):
    p = burner(mode)
    before = cpu.tree_times(p.pid)
    _burn(p)
    delta = cpu.tree_times(p.pid) - before
    assert getattr(delta, field) >= 0.15 * cpu.CLOCK_TICKS  # burned 0.3 s of CPU time
    assert delta.total <= 0.6 * cpu.CLOCK_TICKS


def test_grandchild_cpu_is_counted_in_the_tree(burner):
    p = burner("parent-of-burner")
    before = cpu.tree_times(p.pid)
    _burn(p)
    delta = cpu.tree_times(p.pid) - before
    assert delta.user >= 0.15 * cpu.CLOCK_TICKS
    own = cpu.read_stat(p.pid)
    assert own.utime < 0.15 * cpu.CLOCK_TICKS + before.user  # the time is the child's, not the parent's


def test_memory_of_a_real_process(burner):
    p = burner("user")
    assert cpu.reset_peak_rss(p.pid) in (True, False)
    peak, rss = cpu.tree_memory_kib(p.pid)
    assert peak >= rss > 1000  # a Python interpreter holds more than 1 MiB


PROC_STAT = "cpu  100 5 50 1000 7 3 2 1 4 0\ncpu0 50 2 25 500 3 1 1 0 2 0\nintr 1\n"


def test_machine_busy_excludes_idle_iowait_and_guest():
    times = foreign_load.parse_proc_stat(PROC_STAT)
    assert times.busy == 100 + 5 + 50 + 3 + 2 + 1
    assert times.total == 100 + 5 + 50 + 1000 + 7 + 3 + 2 + 1


def test_foreign_cores_is_machine_minus_server_and_client():
    before = foreign_load.MachineTimes(busy=1000, total=0)
    after = foreign_load.MachineTimes(busy=1000 + 4 * cpu.CLOCK_TICKS, total=0)  # 4 CPU-seconds in 2 s
    cores = foreign_load.foreign_cores(before, after, server_ticks=2 * cpu.CLOCK_TICKS,
                                       client_ticks=1.5 * cpu.CLOCK_TICKS, wall_s=2.0)
    assert cores == pytest.approx(0.25)
    assert foreign_load.disturbed(cores)
    assert not foreign_load.disturbed(0.2)
    assert foreign_load.foreign_cores(before, before, 10, 10, 1.0) == 0.0  # clamped
    assert foreign_load.foreign_cores(before, after, 0, 0, 0.0) == 0.0


def test_real_machine_counters_advance():
    before = foreign_load.read_machine()
    end = time.process_time() + 0.05
    while time.process_time() < end:
        pass
    after = foreign_load.read_machine()
    assert after.busy >= before.busy and after.total > before.total
    assert os.sysconf("SC_CLK_TCK") == cpu.CLOCK_TICKS
