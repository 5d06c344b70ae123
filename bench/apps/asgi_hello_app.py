"""A bare ASGI 3 app answering every request with {"message":"hello"}: the server's own cost per request, without
a framework's (bench/asgi_servers.py, the `bare` workload)."""

BODY = b'{"message":"hello"}'
START = {"type": "http.response.start", "status": 200,
         "headers": [(b"content-type", b"application/json"), (b"content-length", b"19")]}
END = {"type": "http.response.body", "body": BODY}


async def app(scope, receive, send):
    if scope["type"] == "lifespan":
        while True:
            message = await receive()
            await send({"type": message["type"] + ".complete"})
            if message["type"] == "lifespan.shutdown":
                return
    await send(START)
    await send(END)
