"""`slipstream new NAME`: a project whose tests pass and whose app compiles, and refusals of bad names and
existing folders."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def _slipstream(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "slipstream", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=120, check=False)


def test_a_new_project_passes_its_tests_and_compiles(tmp_path: Path) -> None:
    made = _slipstream("new", "shop-api", "--dir", str(tmp_path), cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    root = tmp_path / "shop-api"
    assert sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()) == [
        "README.md", "shop_api_app/__init__.py", "shop_api_app/app.py", "tests/__init__.py", "tests/test_app.py"]
    tests = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"], capture_output=True,
                           text=True, cwd=root, timeout=120, check=False)
    assert tests.returncode == 0, tests.stdout + tests.stderr
    check = _slipstream("check", "shop_api_app.app:app", cwd=root)
    assert check.returncode == 0 and "2 operations compiled" in check.stdout


def test_bad_names_and_existing_folders_are_refused(tmp_path: Path) -> None:
    bad = _slipstream("new", "1st app", "--dir", str(tmp_path), cwd=tmp_path)
    assert bad.returncode == 2 and "a name starts with a letter" in bad.stderr
    (tmp_path / "taken").mkdir()
    taken = _slipstream("new", "taken", "--dir", str(tmp_path), cwd=tmp_path)
    assert taken.returncode == 1 and "exists already" in taken.stderr
