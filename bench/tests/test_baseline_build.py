"""--baseline-build: earlier-commit twins of the Python contenders and their CPU column against this commit."""

import os
import subprocess
import sys

import pytest
from harness import baseline, contenders, report, workloads
from helpers import measurement

HELLO = workloads.WORKLOADS["hello"]


def _runs(contender, cpus):
    return [
        measurement(contender, "hello", rnd, 1000.0, server_user_us_per_req=cpu, server_sys_us_per_req=0.0)
        for rnd, cpu in enumerate(cpus)
    ]


def test_earlier_rows_get_their_cpu_over_the_current_rows_of_the_same_round():
    records = (
        _runs("nginx", [1.0, 1.0, 1.0])
        + _runs("slipstream-py-def", [10.0, 20.0, 10.0])
        + _runs("slipstream-py-def@abc", [10.5, 20.0, 12.0])
    )
    table = report.build_tables(
        records,
        [HELLO],
        ["nginx", "slipstream-py-def", "slipstream-py-def@abc"],
        earlier={"slipstream-py-def@abc": "slipstream-py-def"},
    )[0]
    assert table.extra_columns[-1] == report.EARLIER_CPU
    nginx, current, before = table.rows
    assert nginx.extra.get(report.EARLIER_CPU) is None
    assert current.extra[report.EARLIER_CPU] == 1.0
    assert before.extra[report.EARLIER_CPU] == pytest.approx(1.05)  # median of 1.05, 1.0, 1.2


def test_no_column_without_earlier_rows():
    table = report.build_tables(_runs("slipstream-py-def", [10.0]), [HELLO], ["slipstream-py-def"])[0]
    assert report.EARLIER_CPU not in table.extra_columns


def test_a_folder_without_the_extension_is_refused(tmp_path):
    with pytest.raises(ValueError, match="_native"):
        baseline.find(str(tmp_path))


def _fake_build(tmp_path):
    checkout = tmp_path / "checkout"
    (checkout / "python" / "slipstream").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(checkout)], check=True)
    subprocess.run(
        [
            "git",
            "-C",
            str(checkout),
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "commit",
            "-q",
            "--allow-empty",
            "-m",
            "x",
        ],
        check=True,
    )
    bindings = checkout / "build" / "python" / "bindings"
    bindings.mkdir(parents=True)
    (bindings / "_native.cpython-311-x86_64-linux-gnu.so").write_bytes(b"")
    return checkout


def test_twins_follow_the_python_script_contenders_only(tmp_path):
    checkout = _fake_build(tmp_path)
    build = baseline.find(str(checkout / "build"))
    assert build.checkout == str(checkout) and len(build.commit) >= 7
    chosen = baseline.add(
        contenders.select(["fastapi", "slipstream-py-def", "slipstream-py-w2"]), [str(checkout / "build")]
    )
    assert [c.name for c in chosen] == [
        "fastapi",
        "slipstream-py-def",
        f"slipstream-py-def@{build.commit}",
        "slipstream-py-w2",
    ]
    ctx = contenders.LaunchContext(port=1, h2_port=2, workdir=str(tmp_path), fd_limit=1024)
    launch = chosen[2].build(chosen[2], ctx)
    assert launch.argv[:4] == [sys.executable, baseline.BOOT, str(checkout), build.extension]
    assert os.path.basename(launch.argv[4]) == "slipstream_app.py" and launch.argv[5:] == ["--style", "def"]
