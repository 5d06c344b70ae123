"""End-to-end tests of the MCP server over stdio (examples/mcp_server.cpp --stdio): newline-delimited JSON-RPC,
one message per line, nothing but messages on stdout, a clean exit at the end of input."""
import json
import queue
import subprocess
import threading

import pytest

from tests.conftest import example_binary
from tests.e2e.helpers import poll


class StdioServer:
    def __init__(self, *flags):
        self.proc = subprocess.Popen([example_binary("mcp_server"), "--stdio", *flags], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.lines = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self):
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def send(self, message):
        self.proc.stdin.write((message if isinstance(message, str) else json.dumps(message)) + "\n")
        self.proc.stdin.flush()

    def read(self, timeout=10):
        line = self.lines.get(timeout=timeout)
        assert line is not None, "stdout closed"
        assert line.endswith("\n")
        return json.loads(line)

    def request(self, id_, method, params=None):
        self.send({"jsonrpc": "2.0", "id": id_, "method": method, **({"params": params} if params else {})})
        return self.read()

    def initialize(self, version="2025-06-18"):
        answer = self.request(0, "initialize", {"protocolVersion": version, "capabilities": {},
                                                "clientInfo": {"name": "t", "version": "1"}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return answer

    def close(self):
        if self.proc.poll() is None:
            self.proc.stdin.close()
            self.proc.wait(timeout=10)
        return self.proc.returncode


@pytest.fixture
def stdio():
    servers = []

    def start(*flags):
        servers.append(StdioServer(*flags))
        return servers[-1]

    yield start
    for s in servers:
        if s.proc.poll() is None:
            s.proc.kill()
            s.proc.wait()


def test_handshake_and_tool_call(stdio):
    s = stdio()
    assert s.initialize()["result"]["protocolVersion"] == "2025-06-18"
    add = s.request(1, "tools/call", {"name": "add", "arguments": {"a": 40, "b": 2}})
    assert add == {"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": '{"result":42}'}],
                                                          "structuredContent": {"result": 42}, "isError": False}}
    big = s.request(2, "tools/call", {"name": "big", "arguments": {}})
    assert len(big["result"]["structuredContent"]["items"]) == 100
    assert s.close() == 0


def test_progress_and_logs_arrive_before_the_answer(stdio):
    s = stdio()
    s.initialize()
    s.send({"jsonrpc": "2.0", "id": 5, "method": "tools/call",
            "params": {"name": "slow", "arguments": {"ms": 20, "steps": 2}, "_meta": {"progressToken": "p"}}})
    messages = [s.read() for _ in range(4)]
    assert [m.get("method") for m in messages] == ["notifications/message", "notifications/progress",
                                                    "notifications/progress", None]
    assert messages[3]["id"] == 5


def test_bad_lines_get_errors_and_the_loop_goes_on(stdio):
    s = stdio()
    s.send("{nope")
    assert s.read()["error"]["code"] == -32700
    s.send("   ")  # blank lines are skipped
    assert s.request(1, "tools/list")["error"] == {"code": -32600,
                                                   "message": "Invalid Request: the session is not initialized"}
    s.initialize("2025-03-26")
    s.send(json.dumps([{"jsonrpc": "2.0", "id": 2, "method": "ping"}, {"jsonrpc": "2.0", "id": 3, "method": "x"}]))
    batch = s.read()
    assert [a["id"] for a in batch] == [2, 3]
    assert s.close() == 0


def test_oversized_line_is_refused(stdio):
    s = stdio("--max-message-bytes", "1000")
    s.initialize()
    s.send(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                       "params": {"name": "echo", "arguments": {"text": "x" * 5000}}}))
    assert s.read()["error"] == {"code": -32600, "message": "Invalid Request: message too large"}
    assert s.request(2, "ping")["result"] == {}


def test_cancellation_and_nothing_but_messages_on_stdout(stdio):
    s = stdio()
    s.initialize()
    s.send({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "slow", "arguments": {"ms": 20000}}})
    assert s.read()["method"] == "notifications/message"  # the call is running
    s.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 7}})
    assert s.request(8, "ping") == {"jsonrpc": "2.0", "id": 8, "result": {}}
    poll(lambda: s.request(9, "tools/call", {"name": "stats"})["result"]["structuredContent"]["slow_cancelled"],
         lambda n: n == 1, "the slow tool to stop")
    assert s.close() == 0
    assert s.lines.get(timeout=5) is None  # no answer to the cancelled request, nothing else on stdout
    assert "slow: cancelled" in s.proc.stderr.read()
