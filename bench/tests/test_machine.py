"""The commit a run records: dirty only when code changed, not when the ledger or raw results did."""
import subprocess

from harness import machine


def _git(repo, *args):
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


def test_ledger_writes_do_not_mark_the_commit_dirty(tmp_path, monkeypatch):
    _git(tmp_path, "init", "-q")
    (tmp_path / "BENCHMARKS.md").write_text("# ledger\n")
    (tmp_path / "bench" / "results").mkdir(parents=True)
    (tmp_path / "bench" / "results" / "a.jsonl").write_text("{}\n")
    (tmp_path / "code.py").write_text("x = 1\n")
    _git(tmp_path, "add", "-A")
    _git(tmp_path, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init")
    monkeypatch.setattr(machine, "REPO_DIR", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    assert "uncommitted" not in machine.commit()
    (tmp_path / "BENCHMARKS.md").write_text("# ledger\n\n## entry\n")
    (tmp_path / "bench" / "results" / "a.jsonl").write_text("{}\n{}\n")
    assert "uncommitted" not in machine.commit()
    (tmp_path / "code.py").write_text("x = 2\n")
    assert machine.commit().endswith(" (with uncommitted changes)")
