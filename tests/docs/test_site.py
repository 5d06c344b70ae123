"""The documentation site: built by scripts/build_docs.sh (make docs) with --strict, its pages opened in headless
Chromium from a local HTTP server (the Material theme's scripts run, the generated reference and ledger pages are
there, every chart the ledger shows loads), a broken link failing the build, and the tutorial's examples passing
their tests. The first run installs MkDocs into build/tools/docs-venv from PyPI; then a build takes seconds."""

from __future__ import annotations

import functools
import html
import http.server
import os
import pathlib
import re
import shutil
import subprocess
import sys
import threading
import urllib.request
from collections.abc import Iterator

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
# make test runs tests/ a second time on io_uring (SLIPSTREAM_IO_URING=1): the site does not depend on the backend.
pytestmark = pytest.mark.skipif(
    os.environ.get("SLIPSTREAM_IO_URING", "") not in ("", "0"), reason="checked once, in the epoll pass of make test"
)


BROWSER = next(filter(None, map(shutil.which, ("chromium", "chromium-browser", "google-chrome"))), None)


def build(out: pathlib.Path, *, config: pathlib.Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, **({"SLIPSTREAM_DOCS_CONFIG": str(config)} if config else {})}
    return subprocess.run(
        ["bash", str(ROOT / "scripts" / "build_docs.sh"), str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=env,
        timeout=900,
        check=False,
    )


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    out = tmp_path_factory.mktemp("site")
    built = build(out)
    assert built.returncode == 0, built.stdout + built.stderr
    return out


@pytest.fixture(scope="module")
def served(site: pathlib.Path) -> Iterator[str]:
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def dom(url: str, profile: pathlib.Path) -> str:
    assert BROWSER is not None
    command = [
        BROWSER,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--no-first-run",
        "--disable-extensions",
        f"--user-data-dir={profile}",
        "--virtual-time-budget=10000",
        "--dump-dom",
        url,
    ]
    env = {**{k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}, "HOME": str(profile)}
    result = subprocess.run(command, capture_output=True, text=True, timeout=120, env=env, check=False)
    assert "</html>" in result.stdout, result.stderr[-2000:]
    return result.stdout


@pytest.mark.skipif(BROWSER is None, reason="no Chromium (install the Debian package 'chromium')")
@pytest.mark.parametrize(
    ("page", "expected"),
    [
        ("", ["Where to go next", "slipstream run main:app --reload"]),
        ("tutorial/validation/", ["def create_item(item: Item) -> StoredItem:", "string_too_short"]),
        ("reference/python/", ["A route answered by the I/O threads with fixed bytes", "dependency_overrides"]),
        ("reference/cli/", ["usage: slipstream run [-h]", "usage: slipstream new [-h]", "--drain-timeout"]),
        ("sessions/", ["Idempotency-Key", "--session-durability"]),
        ("mcp/", ["README (src/agent/mcp/README.md)"]),
        ("benchmarks/", ["Slipstream benchmark ledger", "2026-11-30 08:16 UTC"]),
    ],
)
def test_pages_render_in_a_browser(served: str, page: str, expected: list[str], tmp_path: pathlib.Path) -> None:
    markup = dom(f"{served}/{page}", tmp_path / "profile")
    text = html.unescape(re.sub(r"<[^>]+>", "", markup))  # code blocks are split into highlighted tokens
    for piece in expected:
        assert piece in text, piece
    # The theme's scripts ran in the browser: they add a copy button to each code block.
    if "<pre" in markup:
        assert markup.count('data-md-type="copy"') == markup.count("<pre")
    assert "First app" in text and "Command line" in text  # the navigation


def test_every_chart_and_raw_result_the_ledger_links_is_served(site: pathlib.Path, served: str) -> None:
    html = (site / "benchmarks" / "index.html").read_text()
    targets = sorted(set(re.findall(r'(?:src|href)="(\.\./bench-results/[^"]+)"', html)))
    assert len([t for t in targets if t.endswith(".png")]) >= 10 and any(t.endswith(".jsonl") for t in targets)
    for target in targets:
        with urllib.request.urlopen(f"{served}/benchmarks/{target}", timeout=10) as response:
            assert response.status == 200 and len(response.read()) > 0, target


def test_a_broken_link_fails_the_build(tmp_path: pathlib.Path) -> None:
    docs = tmp_path / "docs"
    shutil.copytree(ROOT / "docs", docs, ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache"))
    (docs / "index.md").write_text((docs / "index.md").read_text() + "\n[a page](tutorial/no-such-page.md)\n")
    config = tmp_path / "mkdocs.yml"
    text = (ROOT / "mkdocs.yml").read_text().replace("docs_dir: docs", f"docs_dir: {docs}")
    text = text.replace("paths: [python]", f"paths: [{ROOT / 'python'}]")
    config.write_text(text.replace("scripts/mkdocs_hooks.py", str(ROOT / "scripts" / "mkdocs_hooks.py")))
    built = build(tmp_path / "site", config=config)
    assert built.returncode != 0
    assert "tutorial/no-such-page.md" in built.stdout + built.stderr


def test_the_tutorial_examples_pass_their_tests() -> None:
    ran = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "docs/tutorial/examples"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert ran.returncode == 0 and "3 passed" in ran.stdout, ran.stdout + ran.stderr
