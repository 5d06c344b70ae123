"""A raw Streamable HTTP client for the MCP end-to-end tests: POST/GET/DELETE with httpx, SSE parsing."""

import json

import httpx

ACCEPT_BOTH = "application/json, text/event-stream"
INIT_PARAMS = {"capabilities": {}, "clientInfo": {"name": "e2e", "version": "1"}}


def request(id_, method, params=None):
    message = {"jsonrpc": "2.0", "id": id_, "method": method}
    if params is not None:
        message["params"] = params
    return message


def notification(method, params=None):
    message = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        message["params"] = params
    return message


def sse_events(text):
    """The events of an SSE body as dicts {"id", "data"} (data parsed as JSON when not empty)."""
    events = []
    for block in text.replace("\r\n", "\n").split("\n\n"):
        data, event_id = [], None
        for line in block.split("\n"):
            if line.startswith("data:"):
                data.append(line[5:].lstrip(" "))
            elif line.startswith("id:"):
                event_id = line[3:].strip()
        if data or event_id is not None:
            joined = "\n".join(data)
            events.append({"id": event_id, "data": json.loads(joined) if joined else None})
    return events


def read_events(response, count):
    """The first `count` events of an open SSE response (fewer when it ends before)."""
    events, block = [], []
    for line in response.iter_lines():
        if line == "":
            if block:
                events += sse_events("\n".join(block) + "\n\n")
                block = []
                if len(events) >= count:
                    return events
        else:
            block.append(line)
    return events


class McpHttp:
    """One client of the example server's /mcp endpoint; `session` is set by initialize()."""

    def __init__(self, server, headers=None, timeout=10.0):
        self.url = server.url + "/mcp"
        self.http = httpx.Client(timeout=timeout, headers=headers or {})
        self.session = None
        self.version = None

    def close(self):
        self.http.close()

    def headers(self, extra=None, session=True):
        h = {"Accept": ACCEPT_BOTH, "Content-Type": "application/json"}
        if session and self.session:
            h["Mcp-Session-Id"] = self.session
        if self.version and self.version != "2025-03-26":
            h["MCP-Protocol-Version"] = self.version
        h.update(extra or {})
        return h

    def post(self, body, extra=None, session=True):
        content = body if isinstance(body, (bytes, str)) else json.dumps(body)
        return self.http.post(self.url, content=content, headers=self.headers(extra, session))

    def initialize(self, version="2025-06-18"):
        r = self.post(request(0, "initialize", {"protocolVersion": version, **INIT_PARAMS}), session=False)
        assert r.status_code == 200, r.text
        self.session = r.headers["mcp-session-id"]
        self.version = r.json()["result"]["protocolVersion"]
        assert self.post(notification("notifications/initialized")).status_code == 202
        return r

    def call(self, id_, method, params=None, extra=None):
        """The answer of one request (JSON or the last event of an SSE stream) and the HTTP response."""
        r = self.post(request(id_, method, params), extra)
        if r.headers.get("content-type", "").startswith("text/event-stream"):
            return sse_events(r.text)[-1]["data"], r
        return r.json(), r
