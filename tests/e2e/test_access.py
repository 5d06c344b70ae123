"""Authentication (--auth, API keys, JWTs) and per-principal rate limits (--rate-limit) in the engine, end to end
over every protocol (h1, h1 over TLS, h2c, h2): exact statuses, fields and bodies, the principal handed to the
handler, public routes, metrics, and start-up errors for bad files."""
import base64
import hashlib
import hmac
import json
import subprocess
import time

import pytest

from tests.conftest import example_binary

ALICE_KEY = "alice-key-0123456789abcdef"
BOB_KEY = "bob-key-0123456789abcdef00"
SECRET = "s" * 32 + "-jwt-secret-for-the-e2e-suite"


def request(client, path, headers=None, method="GET"):
    """(status, fields by lower-case name, body) of one request over the client's protocol."""
    r = client.request(method, path, list((headers or {}).items()))
    return r.status, r.headers, r.body


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def hs256(claims: dict, secret: str = SECRET) -> str:
    signing_input = b64url(json.dumps({"alg": "HS256", "typ": "JWT"}).encode()) + "." + b64url(
        json.dumps(claims).encode())
    mac = hmac.new(secret.encode(), signing_input.encode(), hashlib.sha256).digest()
    return signing_input + "." + b64url(mac)


@pytest.fixture(scope="module")
def key_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("auth") / "keys.txt"
    path.write_text(f"# principal key [rate]\nalice {ALICE_KEY}\nbob {BOB_KEY} 2/m\n")
    return path


@pytest.fixture(scope="module")
def secret_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("jwt") / "secret"
    path.write_text(SECRET + "\n")  # the trailing newline is not part of the secret
    return path


@pytest.fixture
def keyed(serve, key_file):
    return serve("--auth", "required", "--api-keys-file", str(key_file), "--auth-public-paths", "/hello")


@pytest.fixture
def jwt_server(serve, secret_file):
    return serve("--auth", "required", "--jwt-secret-file", str(secret_file), "--jwt-issuer", "https://issuer.example",
                 "--jwt-audience", "slipstream-e2e", "--jwt-leeway", "0s")


def test_required_auth_refuses_a_request_without_credentials(keyed):
    status, headers, body = request(keyed, "/whoami")
    assert status == 401
    assert headers["www-authenticate"] == "Bearer"
    assert headers["content-type"] == "application/problem+json"
    assert json.loads(body) == {"type": "about:blank", "title": "Unauthorized", "status": 401,
                                "detail": "Not authenticated"}


@pytest.mark.parametrize("headers", [{"X-API-Key": ALICE_KEY}, {"Authorization": f"Bearer {ALICE_KEY}"},
                                     {"authorization": f"bearer {ALICE_KEY}"}, {"x-api-key": ALICE_KEY}])
def test_an_api_key_authenticates_its_principal(keyed, headers):
    status, _, body = request(keyed, "/whoami", headers)
    assert (status, json.loads(body)) == (200, {"principal": "alice"})


@pytest.mark.parametrize("headers,detail", [
    ({"X-API-Key": "not-a-key-0123456789"}, "Invalid API key"),
    ({"Authorization": "Basic YWxpY2U6cHc="}, "Malformed credentials"),
    ({"Authorization": f"Bearer {ALICE_KEY}", "X-API-Key": ALICE_KEY}, "Malformed credentials"),
])
def test_bad_credentials_are_refused_with_the_reason(keyed, headers, detail):
    status, fields, body = request(keyed, "/whoami", headers)
    assert status == 401
    assert fields["www-authenticate"] == 'Bearer error="invalid_token"'
    assert json.loads(body)["detail"] == detail


def test_public_routes_need_no_credentials(keyed):
    assert request(keyed, "/hello")[0] == 200           # --auth-public-paths
    assert request(keyed, "/health")[0] == 200          # the engine's probes are always public
    assert request(keyed, "/readyz")[0] == 200
    assert request(keyed, "/metrics")[0] == 200


def test_optional_auth_serves_anonymous_requests_and_still_refuses_bad_keys(serve, key_file):
    client = serve("--auth", "optional", "--api-keys-file", str(key_file), fresh=True)
    status, _, body = request(client, "/whoami")
    assert (status, json.loads(body)) == (200, {"principal": None})
    status, _, body = request(client, "/whoami", {"X-API-Key": BOB_KEY})
    assert (status, json.loads(body)) == (200, {"principal": "bob"})
    assert request(client, "/whoami", {"X-API-Key": "wrong-key-0123456789"})[0] == 401


def test_jwt_subject_is_the_principal(jwt_server):
    now = int(time.time())
    token = hs256({"sub": "carol", "iss": "https://issuer.example", "aud": ["other", "slipstream-e2e"],
                   "exp": now + 300})
    status, _, body = request(jwt_server, "/whoami", {"Authorization": f"Bearer {token}"})
    assert (status, json.loads(body)) == (200, {"principal": "carol"})


@pytest.mark.parametrize("claims,secret,detail", [
    ({"sub": "carol", "exp": -60}, SECRET, "Token has expired"),
    ({"sub": "carol", "exp": 300}, "x" * 40, "Invalid token signature"),
    ({"sub": "carol", "exp": 300, "iss": "https://evil.example"}, SECRET, "Token issuer is not accepted"),
    ({"sub": "carol", "exp": 300, "aud": "someone-else"}, SECRET, "Token audience is not accepted"),
])
def test_bad_tokens_are_refused(jwt_server, claims, secret, detail):
    now = int(time.time())
    full = {"iss": "https://issuer.example", "aud": "slipstream-e2e", **claims, "exp": now + claims["exp"]}
    status, fields, body = request(jwt_server, "/whoami", {"Authorization": f"Bearer {hs256(full, secret)}"})
    assert status == 401
    assert fields["www-authenticate"] == 'Bearer error="invalid_token"'
    assert json.loads(body)["detail"] == detail


def test_rate_limit_per_client_address_with_retry_after(serve):
    client = serve("--rate-limit", "3/m", fresh=True)
    assert [request(client, "/hello")[0] for _ in range(3)] == [200, 200, 200]
    status, fields, body = request(client, "/hello")
    assert status == 429
    assert 1 <= int(fields["retry-after"]) <= 20  # one request every 20 s
    assert fields["ratelimit-limit"] == "3"
    assert fields["ratelimit-remaining"] == "0"
    assert json.loads(body)["detail"] == "rate limit exceeded"
    assert request(client, "/health")[0] == 200  # probes are not limited
    metrics = request(client, "/metrics")[2].decode()
    assert "slipstream_rate_limited_total 1" in metrics


def test_rate_limit_per_principal_with_a_key_of_its_own_rate(serve, key_file):
    client = serve("--auth", "required", "--api-keys-file", str(key_file), "--rate-limit", "4/m", fresh=True)
    alice, bob = {"X-API-Key": ALICE_KEY}, {"X-API-Key": BOB_KEY}
    # bob's key file line gives him 2/m; alice has the default 4/m; each principal has its own bucket.
    assert [request(client, "/whoami", bob)[0] for _ in range(3)] == [200, 200, 429]
    assert [request(client, "/whoami", alice)[0] for _ in range(5)] == [200, 200, 200, 200, 429]
    refused = request(client, "/whoami", bob)
    assert refused[0] == 429 and refused[1]["ratelimit-limit"] == "2"


def test_refusals_are_counted_by_reason(serve, key_file):
    client = serve("--auth", "required", "--api-keys-file", str(key_file), fresh=True)
    request(client, "/whoami")
    request(client, "/whoami", {"X-API-Key": "wrong-key-0123456789"})
    request(client, "/whoami", {"X-API-Key": "wrong-key-0123456789"})
    metrics = request(client, "/metrics")[2].decode()
    assert 'slipstream_auth_refused_total{reason="missing_credentials"} 1' in metrics
    assert 'slipstream_auth_refused_total{reason="invalid_api_key"} 2' in metrics


@pytest.mark.parametrize("flags,message", [
    (("--auth", "required"), "needs api-keys-file, jwt-secret-file or jwt-public-key-file"),
    (("--rate-limit", "10/fortnight"), "unknown period unit"),
    (("--auth", "sometimes"), "sometimes"),
])
def test_bad_options_stop_the_start_with_a_precise_message(flags, message):
    out = subprocess.run([example_binary("hello"), "--port", "0", *flags], check=False, capture_output=True, text=True,
                         timeout=10)
    assert out.returncode != 0
    assert message in out.stderr


def test_a_bad_key_file_line_is_named_at_start(tmp_path):
    path = tmp_path / "keys.txt"
    path.write_text(f"alice {ALICE_KEY}\nbob short\n")
    out = subprocess.run([example_binary("hello"), "--port", "0", "--auth", "required", "--api-keys-file", str(path)],
                         check=False, capture_output=True, text=True, timeout=10)
    assert out.returncode != 0
    assert f"{path}:2:" in out.stderr
    assert ALICE_KEY not in out.stderr
