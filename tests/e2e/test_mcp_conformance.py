"""The MCP conformance suite (@modelcontextprotocol/conformance, installed by scripts/setup_mcp_conformance.sh) run
against examples/mcp_conformance_server.cpp: every server scenario of every protocol version it covers (`--suite
all`). A failing check fails the test, naming each scenario and its reason; warnings (SHOULDs) are listed."""
import json
import os
import pathlib
import shutil
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
TOOLS = ROOT / "build" / "tools"


def suite_script() -> pathlib.Path | None:
    env = os.environ.get("SLIPSTREAM_MCP_CONFORMANCE")
    path = pathlib.Path(env) if env else TOOLS / "mcp-conformance/node_modules/@modelcontextprotocol/conformance/dist/index.js"
    return path if path.is_file() else None


def node_binary() -> str | None:
    """A Node of version 22 or later: $SLIPSTREAM_NODE, build/tools/node22, or the system's."""
    for candidate in (os.environ.get("SLIPSTREAM_NODE"), str(TOOLS / "node22/node_modules/.bin/node"), shutil.which("node")):
        if candidate and os.access(candidate, os.X_OK):
            version = subprocess.run([candidate, "--version"], capture_output=True, text=True, check=False).stdout
            if version.startswith("v") and int(version[1:].split(".")[0]) >= 22:
                return candidate
    return None


def checks_of(results: pathlib.Path) -> dict[str, list[dict]]:
    """scenario -> its checks, from the suite's output directory (one checks.json per scenario)."""
    out = {}
    for checks in sorted(results.rglob("checks.json")):
        out[checks.parent.name] = json.loads(checks.read_text())
    return out


def test_every_server_scenario_passes(start_server, tmp_path):
    script, node = suite_script(), node_binary()
    if script is None or node is None:
        pytest.skip("the MCP conformance suite or Node 22 is not installed: run scripts/setup_mcp_conformance.sh")
    server = start_server("--threads", "2", binary="mcp_conformance_server")
    url = f"http://localhost:{server.port}/mcp"  # the DNS rebinding scenario needs a localhost URL
    proc = subprocess.run([node, str(script), "server", "--url", url, "--suite", "all", "-o", str(tmp_path / "out")],
                          capture_output=True, text=True, timeout=600, cwd=tmp_path, check=False)
    summary = proc.stdout[proc.stdout.find("=== SUMMARY ==="):]
    print(summary)
    scenarios = checks_of(tmp_path / "out")
    assert len(scenarios) >= 30, f"the suite ran {len(scenarios)} scenarios:\n{proc.stdout[-3000:]}\n{proc.stderr[-2000:]}"
    failures, warnings = [], []
    for scenario, checks in scenarios.items():
        for c in checks:
            line = f"{scenario}: {c.get('id')}: {c.get('errorMessage') or c.get('description')}"
            if c.get("status") == "FAILURE":
                failures.append(line)
            elif c.get("status") == "WARNING":
                warnings.append(line)
    if warnings:
        print("warnings (SHOULDs not met):\n  " + "\n  ".join(warnings))
    assert not failures, "failing conformance checks:\n  " + "\n  ".join(failures)
    assert proc.returncode == 0, summary
