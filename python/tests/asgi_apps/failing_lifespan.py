"""An ASGI app whose lifespan startup fails: the server must stop with its message."""


async def app(scope, receive, send):
    if scope["type"] == "lifespan":
        await receive()
        await send({"type": "lifespan.startup.failed", "message": "the database is unreachable"})
        return
    raise RuntimeError("never served")
