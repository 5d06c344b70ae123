"""The app the container serves when it is built without APP_DIR: one route, and the engine's probes."""

from __future__ import annotations

import os

from slipstream import App

app = App(title="slipstream-container")


@app.get("/")
def hello() -> dict[str, str]:
    return {"message": "Hello from Slipstream", "host": os.uname().nodename}
