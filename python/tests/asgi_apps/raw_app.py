"""A bare ASGI 3 app for the spec's edge cases (python/tests/test_asgi_edges.py and the differential test)."""

from __future__ import annotations

import asyncio
import json
import pathlib

STATIC = pathlib.Path(__file__).parent / "static"
EVENTS: dict[str, list[str]] = {}
SEEN: dict[str, asyncio.Event] = {}


async def _json(send, status, value, extra=()):
    body = json.dumps(value).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), *extra]})
    await send({"type": "http.response.body", "body": body})


async def lifespan(receive, send, scope):
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            scope["state"]["boot"] = "ok"
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})
            return


async def app(scope, receive, send):
    if scope["type"] == "lifespan":
        return await lifespan(receive, send, scope)
    if scope["type"] == "websocket":
        return await websocket(scope, receive, send)
    path = scope["path"][len(scope["root_path"]):]  # the route path, as Starlette reads it
    if path.startswith("/scope"):
        keep = {k: scope[k] for k in ("type", "http_version", "method", "scheme", "path", "root_path")}
        keep["raw_path"] = scope["raw_path"].decode("latin-1")
        keep["query_string"] = scope["query_string"].decode("latin-1")
        keep["headers"] = [[k.decode("latin-1"), v.decode("latin-1")] for k, v in scope["headers"]
                           if k not in (b"accept-encoding", b"user-agent", b"connection")]
        keep["client_host"] = scope["client"][0]
        keep["asgi_version"] = scope["asgi"]["version"]
        keep["state"] = scope["state"]
        return await _json(send, 200, keep)
    if path == "/later":  # answers after really awaiting: from a loop callback, not from the engine's batch
        await asyncio.sleep(0.01)
        return await _json(send, 200, scope["query_string"].decode())
    if path == "/loop":  # the event loop the app runs on (`--loop`)
        loop = type(asyncio.get_running_loop())
        return await _json(send, 200, f"{loop.__module__}.{loop.__qualname__}")
    if path == "/echo":
        chunks = []
        while True:
            message = await receive()
            chunks.append(message.get("body", b""))
            if not message.get("more_body"):
                break
        body = b"".join(chunks)
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/plain")]})
        await send({"type": "http.response.body", "body": body})
        return
    if path == "/pathsend":
        if "http.response.pathsend" not in scope.get("extensions", {}):
            return await _json(send, 501, "no pathsend")
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/plain")]})
        await send({"type": "http.response.pathsend", "path": str(STATIC / "hello.txt")})
        return
    if path == "/raise-before":
        raise RuntimeError("before the response started")
    if path == "/raise-after-start":
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/plain")]})
        raise RuntimeError("after the head")
    if path == "/raise-mid-body":
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/plain")]})
        await send({"type": "http.response.body", "body": b"partial", "more_body": True})
        raise RuntimeError("in the middle of the body")
    if path == "/no-response":
        return
    if path == "/send-twice":
        await _json(send, 200, {"first": True})
        try:
            await send({"type": "http.response.body", "body": b"again"})
        except RuntimeError as exc:
            EVENTS.setdefault("send-twice", []).append(type(exc).__name__)
        return
    if path == "/send-twice-result":
        return await _json(send, 200, EVENTS.get("send-twice", []))
    if path == "/chunks":
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-type", b"text/plain"), (b"x-multi", b"1"), (b"x-multi", b"2")]})
        for i in range(3):
            await send({"type": "http.response.body", "body": b"part%d;" % i, "more_body": True})
        await send({"type": "http.response.body", "body": b"", "more_body": False})
        return
    if path == "/big":  # 256 MiB in 64 KiB chunks; /big-count: how many chunks send() took so far
        EVENTS["big"] = [0]
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/plain")]})
        for _ in range(4096):
            await send({"type": "http.response.body", "body": b"x" * 65536, "more_body": True})
            EVENTS["big"][0] += 1
        await send({"type": "http.response.body", "body": b""})
        return
    if path == "/big-count":
        return await _json(send, 200, EVENTS.get("big", [0])[0])
    if path == "/forever":
        key = scope["query_string"].decode()
        SEEN[key] = asyncio.Event()
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/plain")]})
        disconnected = asyncio.Event()

        async def watch():
            while (await receive())["type"] != "http.disconnect":
                pass
            disconnected.set()

        watcher = asyncio.ensure_future(watch())
        sent = 0
        while not disconnected.is_set() and sent < 100_000:
            await send({"type": "http.response.body", "body": b"x" * 1024, "more_body": True})
            sent += 1
            await asyncio.sleep(0)
        watcher.cancel()
        EVENTS[key] = ["disconnected" if disconnected.is_set() else "not disconnected"]
        SEEN[key].set()
        return
    if path == "/forever-result":
        key = scope["query_string"].decode()
        await asyncio.wait_for(SEEN[key].wait(), 10)
        return await _json(send, 200, EVENTS[key])
    return await _json(send, 404, {"missing": path})


async def websocket(scope, receive, send):
    assert (await receive())["type"] == "websocket.connect"
    path = scope["path"]
    if path == "/ws/deny":
        await send({"type": "websocket.http.response.start", "status": 401,
                    "headers": [(b"content-type", b"text/plain")]})
        await send({"type": "websocket.http.response.body", "body": b"no entry"})
        return
    if path == "/ws/raise":
        raise RuntimeError("websocket app failed")
    if path == "/ws/scope":
        await send({"type": "websocket.accept", "subprotocol": scope["subprotocols"][-1]})
        keep = {k: scope[k] for k in ("type", "scheme", "path", "root_path", "subprotocols", "state")}
        keep["query_string"] = scope["query_string"].decode()
        keep["raw_path"] = scope["raw_path"].decode()
        await send({"type": "websocket.send", "text": json.dumps(keep)})
        await send({"type": "websocket.close", "code": 1000})
        return
    await send({"type": "websocket.accept", "subprotocol": None, "headers": [(b"x-accepted", b"1")]})
    while True:
        message = await receive()
        if message["type"] == "websocket.disconnect":
            return
        text = message.get("text")
        if text == "close":
            await send({"type": "websocket.close", "code": 4000, "reason": "asked"})
            return
        await send({"type": "websocket.send", "text": f"{path}:{text}"})


