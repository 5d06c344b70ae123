"""An ASGI app without lifespan support (it raises on that scope), as many small apps are."""


async def app(scope, receive, send):
    if scope["type"] != "http":
        raise ValueError(f"unsupported scope {scope['type']!r}")
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/plain")]})
    await send({"type": "http.response.body", "body": b"no lifespan here"})
