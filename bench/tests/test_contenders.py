"""Contenders: missing ones are reported with a reason, configs render, every app file exists."""
import os
import signal
from string import Template

import pytest
from harness import contenders, workloads
from harness.contenders import Contender, LaunchContext


def _contender(*requires):
    return Contender("x", "python", "d", "fastapi_app.py", requires, lambda c, ctx: None)


@pytest.mark.parametrize("requires, reason", [
    (("bin:definitely-not-installed-xyz",), "`definitely-not-installed-xyz` not installed (run bench/setup.sh)"),
    (("module:definitely_not_a_module_xyz",), "Python module `definitely_not_a_module_xyz` not importable"),
    ((f"file:{contenders.REPO_DIR}/build/nope/hello",), "build/nope/hello not built"),
    (("bin:sh", "module:os"), None),
])
def test_missing_reports_why(requires, reason):
    assert _contender(*requires).missing() == reason


def test_every_contender_has_an_app_file_and_known_workloads():
    for c in contenders.CONTENDERS:
        assert os.path.exists(os.path.join(contenders.REPO_DIR, c.app_path)), c.name
        assert set(c.unsupported) <= set(workloads.WORKLOADS), c.name


def test_static_servers_cannot_serve_dynamic_workloads():
    dynamic = {"echo", "validated", "params", "ws", *workloads.BOOKSTORE_WORKLOADS}
    for name in ("nginx", "h2o"):
        c = contenders.BY_NAME[name]
        assert {w for w in workloads.WORKLOADS if c.na_reason(w, 65536, 10000, 64)} == dynamic
    lighttpd = contenders.BY_NAME["lighttpd"]
    assert {w for w in workloads.WORKLOADS if lighttpd.na_reason(w, 65536, 10000, 64)} == dynamic | {"tls", "h2tls"}


def test_lighttpd_idle_depends_on_the_fd_limit():
    c = contenders.BY_NAME["lighttpd"]
    assert c.na_reason("idle", 20000, 10000, 64).startswith("lighttpd allows at most RLIMIT_NOFILE/2 = 10000")
    assert c.na_reason("idle", 65536, 10000, 64) is None


@pytest.mark.parametrize("name", ["nginx", "h2o", "lighttpd"])
def test_static_configs_render_with_the_served_bytes(tmp_path, name):
    c = contenders.BY_NAME[name]
    launch = c.build(c, LaunchContext(port=1234, h2_port=1235, workdir=str(tmp_path), fd_limit=20000))
    conf = next(a for a in launch.argv if a.endswith(".conf"))
    with open(conf) as f:
        text = f.read()
    assert "1234" in text and "$" not in text.replace("$$", "").split("rewrite")[0].replace("^/", "")
    assert (tmp_path / "www" / "hello.json").read_bytes() == workloads.payloads.HELLO
    assert (tmp_path / "www" / "large.json").read_bytes() == workloads.payloads.LARGE


def test_python_contenders_run_one_worker():
    ctx = LaunchContext(port=1234, h2_port=1235, workdir="/tmp", fd_limit=20000)
    for name in ("fastapi", "blacksheep", "granian"):
        c = contenders.BY_NAME[name]
        argv = c.build(c, ctx).argv
        assert argv[argv.index("--workers") + 1] == "1", name
    for name, count in (("fastapi-w2", "2"), ("granian-w2", "2"), ("slipstream-py-w2", "2")):
        c = contenders.BY_NAME[name]
        argv = c.build(c, ctx).argv
        assert argv[argv.index("--workers") + 1] == count, name
    robyn = contenders.BY_NAME["robyn"]
    assert robyn.build(robyn, ctx).argv[2:6] == ["--processes", "1", "--workers", "1"]
    assert robyn.stop_signal == signal.SIGKILL


def test_payloads_are_exact():
    p = workloads.payloads
    assert len(p.LARGE) == 64 * 1024
    assert p.compact({"message": "hello"}) == p.HELLO
    import json
    assert p.compact(json.loads(p.ECHO_BODY)) == p.ECHO_BODY
    assert p.compact(json.loads(p.VALID_ITEM)) == p.VALID_ITEM


def test_template_placeholders_are_all_known():
    known = {"workdir", "port", "h2_port", "max_fds", "max_conns", "user_line", "tls_cert", "tls_key"}
    for name in ("nginx.conf", "h2o.conf", "lighttpd.conf", "nginx_tls.conf", "h2o_tls.conf"):
        with open(os.path.join(workloads.APPS_DIR, name)) as f:
            template = Template(f.read())
        assert set(template.get_identifiers()) <= known, name
