"""The run's TLS certificate, h2load's TLS summary, and the TLS starts of the contenders."""
import shutil
import subprocess

import pytest
from harness import contenders, h2load, tls
from harness.contenders import LaunchContext


def test_certificate_is_p256_for_the_loopback_address(tmp_path):
    if shutil.which("openssl") is None:
        pytest.skip("openssl not installed")
    cert = tls.make_certificate(str(tmp_path))
    text = subprocess.run(["openssl", "x509", "-in", cert.cert, "-noout", "-text"], capture_output=True, text=True,
                          check=True).stdout
    assert "ASN1 OID: prime256v1" in text and "IP Address:127.0.0.1" in text
    with open(cert.key) as f:
        assert f.read().startswith("-----BEGIN PRIVATE KEY-----")  # PKCS#8
    assert tls.make_certificate(str(tmp_path)) == cert  # reused


def test_certificate_failure_is_reported(tmp_path, monkeypatch):
    monkeypatch.setattr(tls, "command", lambda cert, key: ["openssl", "req", "-no-such-option"])
    with pytest.raises(RuntimeError, match="openssl failed"):
        tls.make_certificate(str(tmp_path))


def test_h2load_tls_session(fixture_text):
    assert h2load.tls_session(fixture_text("h2load_h2tls_nginx.txt")) == "TLSv1.3 TLS_AES_128_GCM_SHA256 X25519 h2"
    assert h2load.tls_session(fixture_text("h2load_hello_nginx.txt")) is None
    result = h2load.parse(fixture_text("h2load_h2tls_nginx.txt"), "", 64)
    assert (result.requests, result.non_2xx, result.requests_per_s) == (816, 0, 816.0)


def _ctx(tmp_path):
    return LaunchContext(port=1234, h2_port=1235, workdir=str(tmp_path), fd_limit=20000,
                         tls_cert="/c/cert.pem", tls_key="/c/key.pem")


@pytest.mark.parametrize("name, template", [("nginx", "nginx_tls.conf"), ("h2o", "h2o_tls.conf")])
def test_static_servers_render_a_tls_config(tmp_path, name, template):
    c = contenders.BY_NAME[name]
    launch = c.build(c, _ctx(tmp_path))
    conf = next(a for a in launch.argv if a.endswith(".conf"))
    assert conf.endswith(template) and launch.h2_port is None
    with open(conf) as f:
        text = f.read()
    assert "1234" in text and "1235" not in text and "/c/cert.pem" in text and "/c/key.pem" in text
    assert "$" not in text


@pytest.mark.parametrize("name, flags", [
    ("slipstream-cpp", ["--tls-cert", "/c/cert.pem", "--tls-key", "/c/key.pem"]),
    ("fastapi", ["--ssl-certfile", "/c/cert.pem", "--ssl-keyfile", "/c/key.pem"]),
    ("granian", ["--ssl-certificate", "/c/cert.pem", "--ssl-keyfile", "/c/key.pem"]),
    ("slipstream-py-w2", ["--tls-cert", "/c/cert.pem", "--tls-key", "/c/key.pem"]),
])
def test_tls_flags(tmp_path, name, flags):
    c = contenders.BY_NAME[name]
    argv = c.build(c, _ctx(tmp_path)).argv
    i = argv.index(flags[0])
    assert argv[i:i + 4] == flags


def test_python_apps_get_the_certificate_in_the_environment(tmp_path):
    c = contenders.BY_NAME["slipstream-py-def"]
    env = c.build(c, _ctx(tmp_path)).env
    assert (env["BENCH_TLS_CERT"], env["BENCH_TLS_KEY"]) == ("/c/cert.pem", "/c/key.pem")
    plain = c.build(c, LaunchContext(port=1, h2_port=2, workdir=str(tmp_path), fd_limit=100)).env
    assert "BENCH_TLS_CERT" not in plain and "BENCH_TLS_KEY" not in plain


def test_who_serves_tls():
    serve = lambda w: {c.name for c in contenders.CONTENDERS if not c.na_reason(w, 65536, 10000, 64)}
    one_worker_py = {"slipstream-py-def", "slipstream-py-async", "slipstream-py-native"}
    assert serve("h2tls") == {"nginx", "h2o", "slipstream-cpp", "slipstream-cpp-noid"} | one_worker_py
    assert serve("tls") == {"nginx", "h2o", "slipstream-cpp", "fastapi", "granian"} | one_worker_py
    assert serve("ws") == {"socketify", "websockets", "slipstream-cpp", "slipstream-py-async"}
