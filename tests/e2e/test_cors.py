"""CORS in the engine (--cors-* flags): preflights and actual responses over every protocol (h1,
h1 over TLS, h2c, h2), exact fields.

Expected values are Starlette's CORSMiddleware's for the same options (the engine answers as it does).
"""
import gzip
import json
import subprocess

import pytest

from tests.conftest import example_binary
from tests.e2e.helpers import Protocol

PREFLIGHT_VARY = ("Origin, Access-Control-Request-Method, Access-Control-Request-Headers, "
                  "Access-Control-Request-Private-Network")
SAFELISTED = "Accept, Accept-Language, Content-Language, Content-Type"
APP = "https://app.example"
LISTED_FLAGS = (
    "--cors-allow-origins", f"{APP}, https://other.example",
    "--cors-allow-origin-regex", r"https://[a-z0-9-]+\.preview\.example",
    "--cors-allow-methods", "GET,POST",
    "--cors-allow-headers", "X-Trace",
    "--cors-expose-headers", "X-Request-ID,X-Total",
    "--cors-max-age", "120",
    "--handler-timeout", "300ms",
)
BIG = json.dumps([{"id": i, "name": f"item {i}"} for i in range(300)]).encode()


@pytest.fixture
def listed(serve):
    """Two origins and a regex; GET and POST; one extra header; exposed headers; a 300 ms handler deadline."""
    return serve(*LISTED_FLAGS)


@pytest.fixture
def wildcard_credentials(serve):
    return serve("--cors-allow-origins", "*", "--cors-allow-credentials")


@pytest.fixture
def wildcard(serve):
    return serve("--cors-allow-origins", "*", "--cors-allow-methods", "*", "--cors-allow-headers", "*")


@pytest.fixture
def plain(serve):
    return serve()


# ---- preflights ----

def test_allowed_preflight_is_answered_by_the_engine(listed):
    a = listed.request("OPTIONS", "/echo", [("Origin", APP), ("Access-Control-Request-Method", "POST"),
                                          ("Access-Control-Request-Headers", "x-trace, Content-Type")])
    assert (a.status, a.body) == (200, b"OK")
    assert a.one("content-type") == "text/plain; charset=utf-8"
    assert a.one("vary") == PREFLIGHT_VARY
    assert a.cors() == {
        "access-control-allow-origin": APP,
        "access-control-allow-methods": "GET, POST",
        "access-control-allow-headers": f"{SAFELISTED}, X-Trace",
        "access-control-max-age": "120",
    }


def test_preflight_needs_no_route(listed):
    a = listed.request("OPTIONS", "/no/such/route", [("Origin", "https://pr-7.preview.example"),
                                                   ("Access-Control-Request-Method", "GET")])
    assert (a.status, a.body) == (200, b"OK")
    assert a.cors()["access-control-allow-origin"] == "https://pr-7.preview.example"


@pytest.mark.parametrize(("origin", "method", "asked", "text"), [
    ("https://evil.example", "GET", None, "Disallowed CORS origin"),
    (APP, "DELETE", None, "Disallowed CORS method"),
    (APP, "GET", "X-Trace, X-Other", "Disallowed CORS headers"),
    ("https://evil.example", "PUT", "X-Other", "Disallowed CORS origin, method, headers"),
    ("https://pr-7.preview.example.evil", "GET", None, "Disallowed CORS origin"),  # the regex matches in full
])
def test_refused_preflight_is_400_naming_what(listed, origin, method, asked, text):
    headers = [("Origin", origin), ("Access-Control-Request-Method", method)]
    if asked is not None:
        headers.append(("Access-Control-Request-Headers", asked))
    a = listed.request("OPTIONS", "/hello", headers)
    assert (a.status, a.body.decode()) == (400, text)
    assert a.one("content-type") == "text/plain; charset=utf-8"
    allowed = origin in (APP,)
    assert ("access-control-allow-origin" in a.cors()) == allowed
    assert a.cors()["access-control-allow-methods"] == "GET, POST"


def test_options_without_request_method_is_not_a_preflight(listed):
    a = listed.request("OPTIONS", "/hello", [("Origin", APP)])
    assert a.status == 204  # the router's own OPTIONS answer
    assert a.one("allow") == "GET, HEAD, OPTIONS"
    assert a.cors() == {"access-control-allow-origin": APP, "access-control-expose-headers": "X-Request-ID, X-Total"}
    assert a.one("vary") == "Origin"


def test_wildcard_preflight_mirrors_the_asked_headers(wildcard):
    a = wildcard.request("OPTIONS", "/hello", [("Origin", "https://any.example"),
                                             ("Access-Control-Request-Method", "PATCH"),
                                             ("Access-Control-Request-Headers", "X-A, X-B")])
    assert (a.status, a.body) == (200, b"OK")
    assert a.cors() == {
        "access-control-allow-origin": "*",
        "access-control-allow-methods": "DELETE, GET, HEAD, OPTIONS, PATCH, POST, PUT, QUERY",
        "access-control-allow-headers": "X-A, X-B",
        "access-control-max-age": "600",
    }


def test_credentials_with_wildcard_name_the_origin(wildcard_credentials):
    origin = "https://x.example"
    a = wildcard_credentials.request("OPTIONS", "/hello", [("Origin", origin), ("Access-Control-Request-Method", "GET")])
    assert (a.status, a.body) == (200, b"OK")
    assert a.cors() == {
        "access-control-allow-origin": origin,
        "access-control-allow-credentials": "true",
        "access-control-allow-methods": "GET",
        "access-control-allow-headers": SAFELISTED,
        "access-control-max-age": "600",
    }
    a = wildcard_credentials.request("GET", "/hello", [("Origin", origin)])
    assert a.status == 200
    assert a.cors() == {"access-control-allow-origin": origin, "access-control-allow-credentials": "true"}
    assert a.one("vary") == "Origin"


# ---- actual responses ----

def test_allowed_origin_is_named_on_a_handler_answer(listed):
    a = listed.request("GET", "/hello", [("Origin", APP)])
    assert (a.status, json.loads(a.body)) == (200, {"message": "hello"})
    assert a.cors() == {"access-control-allow-origin": APP, "access-control-expose-headers": "X-Request-ID, X-Total"}
    assert a.one("vary") == "Origin"


def test_regex_origin(listed):
    a = listed.request("GET", "/hello", [("Origin", "https://pr-42.preview.example")])
    assert a.cors()["access-control-allow-origin"] == "https://pr-42.preview.example"


def test_refused_origin_gets_no_allow_origin(listed):
    a = listed.request("GET", "/hello", [("Origin", "http://app.example")])  # another scheme: another origin
    assert a.status == 200
    assert a.cors() == {"access-control-expose-headers": "X-Request-ID, X-Total"}
    assert a.one("vary") == "Origin"


def test_without_origin_no_cors_fields(listed):
    a = listed.request("GET", "/hello")
    assert a.status == 200
    assert a.cors() == {}
    assert a.one("vary") == "Origin"  # the answer depends on Origin: caches must know


def test_wildcard_answers_star(wildcard):
    a = wildcard.request("GET", "/hello", [("Origin", "https://any.example")])
    assert a.cors() == {"access-control-allow-origin": "*"}
    assert a.one("vary") == "Origin"


def test_vary_is_merged_with_compression(listed):
    a = listed.request("POST", "/echo", [("Origin", APP), ("Content-Type", "application/json"),
                                       ("Accept-Encoding", "gzip")], BIG)
    assert a.status == 200
    assert a.one("content-encoding") == "gzip"
    assert json.loads(gzip.decompress(a.body)) == json.loads(BIG)
    assert a.one("vary") == "Accept-Encoding, Origin"
    assert a.cors()["access-control-allow-origin"] == APP


@pytest.mark.parametrize(("method", "path", "status"), [
    ("GET", "/no/such/route", 404),
    ("PUT", "/hello", 405),
    ("GET", "/delay/0", 200),  # asynchronous answer
    ("GET", "/stream/3", 200),  # streamed head
    ("GET", "/delay/2000", 504),  # the handler deadline's answer
    ("GET", "/health", 200),  # builtin route
])
def test_every_kind_of_answer_carries_the_fields(listed, method, path, status):
    a = listed.request(method, path, [("Origin", "https://other.example")])
    assert a.status == status
    assert a.cors() == {"access-control-allow-origin": "https://other.example",
                        "access-control-expose-headers": "X-Request-ID, X-Total"}
    if path == "/stream/3":
        assert a.body == b"line 0\nline 1\nline 2\n"
        assert a.one("vary") == "Accept-Encoding, Origin"  # a text stream may be compressed: it varies on both
    else:
        assert a.one("vary") == "Origin"


def test_body_too_large_after_decoding_carries_the_fields(serve):
    c = serve("--cors-allow-origins", APP, "--max-decompressed-body-bytes", "1k")
    a = c.request("POST", "/echo", [("Origin", APP), ("Content-Type", "application/json"),
                                    ("Content-Encoding", "gzip")], gzip.compress(BIG))
    assert a.status == 413
    assert a.cors() == {"access-control-allow-origin": APP}


# ---- configuration ----

def test_cors_off_adds_nothing(plain):
    a = plain.request("GET", "/hello", [("Origin", APP)])
    assert a.status == 200
    assert a.cors() == {}
    assert a.values("vary") == []
    a = plain.request("OPTIONS", "/hello", [("Origin", APP), ("Access-Control-Request-Method", "GET")])
    assert a.status == 204  # not a preflight to the engine: the router's OPTIONS answer
    assert a.cors() == {}


def test_options_from_the_environment(start_server, pki):
    server = start_server("--threads", "1", env={"SLIPSTREAM_CORS_ALLOW_ORIGINS": "https://env.example",
                                                 "SLIPSTREAM_CORS_MAX_AGE": "5"})
    client = Protocol("h1", pki).client(server)
    a = client.request("OPTIONS", "/hello", [("Origin", "https://env.example"), ("Access-Control-Request-Method", "GET")])
    client.close()
    assert a.status == 200
    assert a.cors()["access-control-allow-origin"] == "https://env.example"
    assert a.cors()["access-control-max-age"] == "5"


@pytest.mark.parametrize(("flags", "message"), [
    (("--cors-allow-origin-regex", "https://(?=a).*"),
     "--cors-allow-origin-regex: 'https://(?=a).*' is not a valid RE2 pattern: invalid perl operator: (?="),
    (("--cors-allow-origins", "https://a.example,https://b c"),
     "--cors-allow-origins: 'https://b c' is not an origin (it holds whitespace or control characters)"),
])
def test_bad_options_stop_the_start(flags, message):
    out = subprocess.run([example_binary("hello"), "--port", "0", *flags], capture_output=True, text=True, timeout=10,
                         check=False)
    assert out.returncode != 0
    assert message in out.stderr


def test_help_lists_the_cors_flags():
    out = subprocess.run([example_binary("hello"), "--help"], capture_output=True, text=True, timeout=10, check=True)
    for flag in ("--cors-allow-origins LIST", "--cors-allow-origin-regex REGEX", "--cors-allow-methods LIST",
                 "--cors-allow-headers LIST", "--[no-]cors-allow-credentials", "--cors-expose-headers LIST",
                 "--[no-]cors-allow-private-network", "--cors-max-age SECONDS"):
        assert f"  {flag}" in out.stdout, flag
    assert "env: SLIPSTREAM_CORS_ALLOW_ORIGINS" in out.stdout
