"""The ASGI bridge, both ways: an ASGI app's `http` and `websocket` cycles over the engine's replies and
WebSockets, shared by AsgiServer (`slipstream asgi`, asgi/) and `App.mount` of an ASGI or WSGI app (mount.py); and
an App called as an ASGI app, relayed to its own engine (call.py, entry.py)."""
