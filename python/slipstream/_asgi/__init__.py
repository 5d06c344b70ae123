"""The ASGI bridge: an ASGI app's `http` and `websocket` cycles over the engine's replies and WebSockets, shared by
AsgiServer (`slipstream asgi`, asgi/) and `App.mount` of an ASGI or WSGI app (mount.py)."""
