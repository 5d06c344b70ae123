"""An app with a request that never finishes by itself, for the drain deadline test (test_cli.py)."""

import asyncio

from slipstream import App

app = App()


@app.get("/hang")
async def hang() -> dict[str, str]:
    await asyncio.sleep(3600)
    return {"done": "never"}
