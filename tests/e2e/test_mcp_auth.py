"""The Authorization pieces of the MCP spec (2025-06-18, 2025-11-25) on examples/mcp_server.cpp: OAuth 2.0 Protected
Resource Metadata (RFC 9728) at the well-known URIs without credentials, and the engine's 401 naming it in
WWW-Authenticate; read with the official SDK's own parsers."""
import subprocess

import httpx
import pytest
from mcp.client.auth.utils import extract_field_from_www_auth, extract_resource_metadata_from_www_auth
from mcp.shared.auth import ProtectedResourceMetadata

from tests.conftest import example_binary
from tests.e2e.mcp_http import McpHttp, request

KEY = "alice-mcp-key-0123456789abcdef"
RESOURCE = "https://mcp.example.com/mcp"
METADATA_URL = "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
DOCUMENT = {"resource": RESOURCE, "authorization_servers": ["https://auth.example.com"],
            "scopes_supported": ["mcp:tools", "mcp:resources"], "bearer_methods_supported": ["header"]}


@pytest.fixture
def server(start_server, tmp_path):
    keys = tmp_path / "keys.txt"
    keys.write_text(f"alice {KEY}\n")
    return start_server("--threads", "1", "--auth", "required", "--api-keys-file", str(keys), "--resource", RESOURCE,
                        "--authorization-server", "https://auth.example.com", "--scope", "mcp:tools", "--scope",
                        "mcp:resources", binary="mcp_server")


def test_metadata_is_served_at_both_well_known_uris_without_credentials(server):
    for path in ("/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"):
        r = httpx.get(server.url + path)
        assert r.status_code == 200, path
        assert r.headers["content-type"] == "application/json"
        assert r.json() == DOCUMENT
        parsed = ProtectedResourceMetadata.model_validate_json(r.content)
        assert str(parsed.resource) == RESOURCE
    # Only those are public: the endpoint itself still needs credentials.
    assert httpx.get(server.url + "/mcp", headers={"Accept": "text/event-stream"}).status_code == 401


def test_a_401_names_the_metadata(server):
    c = McpHttp(server)
    r = c.post(request(1, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                         "clientInfo": {"name": "e2e", "version": "1"}}), session=False)
    assert r.status_code == 401
    assert r.headers["www-authenticate"] == f'Bearer resource_metadata="{METADATA_URL}"'
    assert extract_resource_metadata_from_www_auth(r) == METADATA_URL
    wrong = c.post(request(1, "ping"), {"Authorization": "Bearer not-the-key-0123456789abcdef"}, session=False)
    assert wrong.status_code == 401
    assert extract_resource_metadata_from_www_auth(wrong) == METADATA_URL
    assert extract_field_from_www_auth(wrong, "error") == "invalid_token"
    c.close()
    # With the key the endpoint serves as before.
    ok = McpHttp(server, headers={"Authorization": f"Bearer {KEY}"})
    ok.initialize()
    answer, _ = ok.call(2, "tools/call", {"name": "add", "arguments": {"a": 1, "b": 2}})
    assert answer["result"]["structuredContent"] == {"result": 3}
    ok.close()


def test_without_resource_nothing_is_served(start_server):
    server = start_server("--threads", "1", binary="mcp_server")
    assert httpx.get(server.url + "/.well-known/oauth-protected-resource").status_code == 404


@pytest.mark.parametrize("flags,message", [
    (["--resource", RESOURCE], "authorization_servers: at least one is required with resource"),
    (["--resource", "mcp.example.com", "--authorization-server", "https://a"],
     "resource: must be an absolute http or https URL"),
    (["--resource", RESOURCE, "--authorization-server", "https://a", "--scope", "two words"],
     "scopes_supported: 'two words' is not a scope token"),
])
def test_invalid_settings_stop_the_start(flags, message):
    out = subprocess.run([example_binary("mcp_server"), "--port", "0", *flags], capture_output=True, text=True,
                         timeout=30, check=False)
    assert out.returncode == 1
    assert out.stderr.startswith("mcp_server: " + message), out.stderr
