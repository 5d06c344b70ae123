"""A program that uses TestClient and exits prints nothing on stderr: no drain notice for a programmatic stop,
no nanobind leak report (a SIGTERM's drain is still logged: tests/e2e/test_hostile_h1.py)."""

from __future__ import annotations

import subprocess
import sys
import textwrap


def test_a_test_client_program_exits_quietly() -> None:
    program = textwrap.dedent("""
        from pydantic import BaseModel
        from slipstream import App, TestClient

        class Item(BaseModel):
            name: str

        app = App()

        @app.post("/items")
        async def create(item: Item) -> Item:
            return item

        with TestClient(app) as client:
            assert client.post("/items", json={"name": "a"}).json() == {"name": "a"}
        client = TestClient(app)
        assert client.post("/items", json={}).status_code == 422
        print("done")
    """)
    out = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=60, check=False)
    assert (out.returncode, out.stdout, out.stderr) == (0, "done\n", "")
