"""bench/harness/fsync_latency.py: the disk's write + fdatasync latency, measured on a real file."""

import os

import pytest

from bench.harness import fsync_latency


def test_measures_ordered_latencies_and_removes_its_file(tmp_path):
    r = fsync_latency.measure(str(tmp_path), count=20, size=512)
    assert r["count"] == 20 and r["bytes"] == 512
    assert 0 < r["p50_ms"] <= r["p99_ms"] <= r["max_ms"]
    assert os.listdir(tmp_path) == []
    assert "p99" in fsync_latency.describe(r, str(tmp_path))


def test_refuses_an_empty_loop(tmp_path):
    with pytest.raises(ValueError):
        fsync_latency.measure(str(tmp_path), count=0)


def test_cli_names_a_missing_folder(tmp_path, capsys):
    assert fsync_latency.main(["--dir", str(tmp_path / "missing"), "--count", "3"]) == 2
    assert "fsync_latency" in capsys.readouterr().err
