"""`slipstream new NAME`: a project whose tests pass and whose app compiles, whose Dockerfile passes hadolint and
whose Helm values render with the repository's chart (when make lint has installed hadolint and helm in
build/tools), and refusals of bad names and existing folders."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
TOOLS = REPO / "build" / "tools"
HADOLINT = TOOLS / "deploy-venv" / "bin" / "hadolint"
HELM = TOOLS / "bin" / "helm"
YAML_PYTHON = TOOLS / "deploy-venv" / "bin" / "python"  # kubernetes-validate's environment has PyYAML


def _run(argv: list[str], cwd: Path | None = None, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    """`argv` with its output captured as text; the caller checks the exit status."""
    return subprocess.run(argv, input=stdin, capture_output=True, text=True, cwd=cwd, timeout=120, check=False)


def _slipstream(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return _run([sys.executable, "-m", "slipstream", *args], cwd=cwd)


def test_a_new_project_passes_its_tests_and_compiles(tmp_path: Path) -> None:
    made = _slipstream("new", "shop-api", "--dir", str(tmp_path), cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    root = tmp_path / "shop-api"
    assert sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()) == [
        ".dockerignore",
        "Dockerfile",
        "README.md",
        "deploy/values.yaml",
        "requirements.txt",
        "shop_api_app/__init__.py",
        "shop_api_app/app.py",
        "tests/__init__.py",
        "tests/test_app.py",
        "wheels/README.md",
    ]
    tests = _run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"], cwd=root)
    assert tests.returncode == 0 and "2 passed" in tests.stdout, tests.stdout + tests.stderr
    check = _slipstream("check", "shop_api_app.app:app", cwd=root)
    assert check.returncode == 0 and "2 operations compiled" in check.stdout


def test_bad_names_and_existing_folders_are_refused(tmp_path: Path) -> None:
    bad = _slipstream("new", "1st app", "--dir", str(tmp_path), cwd=tmp_path)
    assert bad.returncode == 2 and "a name starts with a letter" in bad.stderr
    (tmp_path / "taken").mkdir()
    taken = _slipstream("new", "taken", "--dir", str(tmp_path), cwd=tmp_path)
    assert taken.returncode == 1 and "exists already" in taken.stderr


def test_the_dockerfile_serves_the_new_app_as_a_non_root_user(tmp_path: Path) -> None:
    """No container engine runs here: the Dockerfile's instructions are read, and hadolint checks it."""
    assert _slipstream("new", "Shop_API", "--dir", str(tmp_path), cwd=tmp_path).returncode == 0
    root = tmp_path / "Shop_API"
    dockerfile = (root / "Dockerfile").read_text()
    python = f"{sys.version_info.major}.{sys.version_info.minor}"
    assert f"ARG PYTHON_VERSION={python}\n" in dockerfile
    assert re.findall(r"^FROM (\S+) AS (\w+)$", dockerfile, flags=re.MULTILINE) == [
        ("python:${PYTHON_VERSION}-slim", "build"),
        ("python:${PYTHON_VERSION}-slim", "runtime"),
    ]
    runtime = dockerfile.split(" AS runtime\n")[1]
    assert "USER 10001:10001\n" in runtime and "useradd --system --uid 10001" in runtime
    assert "SLIPSTREAM_APP=shop_api_app.app:app" in runtime and "SLIPSTREAM_HOST=0.0.0.0" in runtime
    assert "/livez" in runtime.split("HEALTHCHECK", 1)[1]
    assert 'ENTRYPOINT ["slipstream", "run"]' in runtime
    assert "COPY shop_api_app/ /app/shop_api_app/" in dockerfile
    assert "docker build -t shop-api ." in dockerfile  # image names are lower case
    from slipstream import __version__

    assert f"slipstream=={__version__}" in (root / "requirements.txt").read_text().splitlines()
    if not HADOLINT.exists():
        pytest.skip("hadolint is installed into build/tools by make lint (scripts/setup_deploy_linters.sh)")
    linted = _run([str(HADOLINT), "--no-color", "--failure-threshold", "info", "Dockerfile"], cwd=root)
    assert linted.returncode == 0, linted.stdout + linted.stderr


@pytest.mark.skipif(
    not (HELM.exists() and YAML_PYTHON.exists()),
    reason="helm is installed into build/tools by make lint (scripts/setup_deploy_linters.sh)",
)
def test_the_helm_values_render_with_the_repository_chart(tmp_path: Path) -> None:
    assert _slipstream("new", "shop-api", "--dir", str(tmp_path), cwd=tmp_path).returncode == 0
    values = tmp_path / "shop-api" / "deploy" / "values.yaml"
    chart = REPO / "deploy" / "helm" / "slipstream"
    linted = _run([str(HELM), "lint", "--strict", str(chart), "-f", str(values)])
    assert linted.returncode == 0, linted.stdout + linted.stderr
    rendered = _run([str(HELM), "template", "shop-api", str(chart), "-f", str(values)])
    assert rendered.returncode == 0, rendered.stderr
    to_json = "import json, sys, yaml; print(json.dumps([d for d in yaml.safe_load_all(sys.stdin) if d]))"
    manifests = json.loads(_run([str(YAML_PYTHON), "-c", to_json], stdin=rendered.stdout).stdout)
    (deployment,) = [m for m in manifests if m["kind"] == "Deployment"]
    (container,) = deployment["spec"]["template"]["spec"]["containers"]
    assert container["image"] == "shop-api:0.1.0"
    assert container["args"] == ["shop_api_app.app:app"]
    assert container["livenessProbe"]["httpGet"]["path"] == "/livez"
    assert container["readinessProbe"]["httpGet"]["path"] == "/readyz"
    assert container["resources"]["limits"] == {"cpu": "1", "memory": "256Mi"}
    assert deployment["spec"]["template"]["spec"]["terminationGracePeriodSeconds"] == 40
