"""`slipstream routes`, `openapi` and `check`: an app looked at from the command line without serving it."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

APP = textwrap.dedent("""
    from pydantic import BaseModel
    from slipstream import App

    class Item(BaseModel):
        name: str

    app = App(title="Shop")

    @app.get("/items/{item_id}")
    def read(item_id: int, q: str | None = None) -> Item:
        return Item(name="x")

    @app.post("/items", status_code=201)
    async def create(item: Item) -> list[Item]:
        return [item]

    @app.websocket("/ws")
    async def ws(websocket):
        await websocket.close()
""")


def _cli(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "slipstream", *args, "--app-dir", str(tmp_path)],
                          capture_output=True, text=True, timeout=60, check=False)


def test_routes_lists_methods_paths_parameters_bodies_and_responses(tmp_path: Path) -> None:
    (tmp_path / "shop.py").write_text(APP)
    out = _cli(tmp_path, "routes", "shop:app")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].split() == ["METHODS", "PATH", "PARAMETERS", "BODY", "RESPONSE"]
    assert lines[1].split() == ["GET", "/items/{item_id}", "item_id", "(path),", "q", "(query,", "optional)", "200",
                                "Item", "application/json"]
    assert lines[2].split() == ["POST", "/items", "Item", "(application/json)", "201", "list[Item]",
                                "application/json"]
    assert lines[3].split() == ["WEBSOCKET", "/ws"]


def test_openapi_prints_or_writes_the_document(tmp_path: Path) -> None:
    (tmp_path / "shop.py").write_text(APP)
    printed = _cli(tmp_path, "openapi", "shop:app")
    assert printed.returncode == 0, printed.stderr
    document = json.loads(printed.stdout)
    assert document["info"]["title"] == "Shop" and set(document["paths"]) == {"/items/{item_id}", "/items"}
    target = tmp_path / "openapi.json"
    assert _cli(tmp_path, "openapi", "shop:app", "-o", str(target), "--indent", "0").returncode == 0
    assert json.loads(target.read_text()) == document


def test_check_compiles_the_app_or_says_why_not(tmp_path: Path) -> None:
    (tmp_path / "shop.py").write_text(APP)
    ok = _cli(tmp_path, "check", "shop:app")
    assert (ok.returncode, ok.stdout) == (0, "ok: shop:app: 2 operations compiled, OpenAPI document built\n")
    (tmp_path / "broken.py").write_text("import nowhere_to_be_found\n")
    bad = _cli(tmp_path, "check", "broken:app")
    assert bad.returncode == 1
    assert "error: importing broken:app failed" in bad.stderr and "nowhere_to_be_found" in bad.stderr
    missing = _cli(tmp_path, "routes", "shop:nothing")
    assert missing.returncode != 0 and "has no attribute 'nothing'" in missing.stderr
