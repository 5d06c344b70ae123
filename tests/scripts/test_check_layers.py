"""scripts/check_layers.py: the layer table holds for this checkout, and an include against it fails the lint."""

import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "check_layers.py"


def run(root):
    proc = subprocess.run(
        [sys.executable, str(SCRIPT), str(root)], check=False, capture_output=True, text=True, timeout=60
    )
    return proc.returncode, proc.stdout.splitlines()


def tree(tmp_path, files):
    for rel, text in files.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    (tmp_path / "include").mkdir(exist_ok=True)
    return tmp_path


def test_this_checkout_is_layered():
    assert run(ROOT) == (0, ["lint: layering ok"])


def test_allowed_includes_pass(tmp_path):
    root = tree(
        tmp_path,
        {
            "src/server/validation/v.cpp": '#include "server/core/request_state.h"\n#include "json/value.h"\n',
            "src/server/core/c.h": '#include "router/route_match.h"\n#include <vector>\n',
            "src/server/w.cpp": '#include "server/h1/h1_session.h"\n#include "policy/cors/cors_policy.h"\n',
            "src/server/h1/u.cpp": '#include "server/h2/h2_session.h"\n#include "server/ws/websocket_session.h"\n',
            "src/policy/auth/a.cpp": '#include "json/parse.h"\n#include "policy/auth/a.h"\n',
        },
    )
    assert run(root) == (0, ["lint: layering ok"])


def test_upward_includes_fail(tmp_path):
    root = tree(
        tmp_path,
        {
            # validation may use server/core only, not the connection layer above it
            "src/server/validation/v.cpp": '#include "server/core/request_state.h"\n#include "server/conn/worker.h"\n',
            # the router sits below the server
            "src/router/r.h": '#include "server/core/problem.h"\n',
            # a policy may not reach the server, nor another policy
            "src/policy/cors/c.cpp": '#  include "server/observe/access_log.h"\n#include "policy/auth/x.h"\n',
            # core is the bottom of the server: no encoder above it
            "src/server/core/k.h": '#include "server/encode/response_encoder.h"\n',
            # HTTP/2 does not see HTTP/1.1 (h1 upgrades to h2, not the other way)
            "src/server/h2/e.cpp": '#include <string>\n#include "server/h1/h1_session.h"\n',
            # the connection layer names no protocol's session
            "src/server/conn/c.cpp": '#include "server/h2/h2_session.h"\n',
        },
    )
    code, lines = run(root)
    assert code == 1
    assert lines == [
        "src/policy/cors/c.cpp:1: policy/cors may not include server/observe/access_log.h (server/observe)",
        "src/policy/cors/c.cpp:2: policy/cors may not include policy/auth/x.h (policy/auth)",
        "src/router/r.h:1: router may not include server/core/problem.h (server/core)",
        "src/server/conn/c.cpp:1: server/conn may not include server/h2/h2_session.h (server/h2)",
        "src/server/core/k.h:1: server/core may not include server/encode/response_encoder.h (server/encode)",
        "src/server/h2/e.cpp:2: server/h2 may not include server/h1/h1_session.h (server/h1)",
        "src/server/validation/v.cpp:2: server/validation may not include server/conn/worker.h (server/conn)",
        "lint: 7 layering violation(s)",
    ]


def test_unknown_folder_fails(tmp_path):
    root = tree(tmp_path, {"src/gadgets/g.cpp": "int g;\n"})
    assert run(root) == (
        1,
        [
            "src/gadgets/g.cpp: folder is not a known layer; add it to scripts/check_layers.py",
            "lint: 1 layering violation(s)",
        ],
    )


def test_upward_link_fails(tmp_path):
    root = tree(
        tmp_path,
        {
            "src/server/core/CMakeLists.txt": "slipstream_module(server_core\n  SOURCES a.cpp\n  DEPS ss_router)\n",
            "src/router/CMakeLists.txt": "slipstream_module(router SOURCES r.cpp DEPS ss_base)\n",
            # validation linking the whole server (the connection layer above it)
            "src/server/validation/CMakeLists.txt": (
                "# validation\nslipstream_module(server_validation\n  SOURCES v.cpp\n"
                "  DEPS ss_server_core ss_base\n  PRIVATE_DEPS ss_server)\n"
            ),
            "src/server/CMakeLists.txt": "slipstream_module(server SOURCES s.cpp DEPS ss_server_validation)\n",
            # a policy linking the router: not one of its allowed modules
            "src/policy/cors/CMakeLists.txt": "slipstream_module(policy_cors SOURCES c.cpp DEPS ss_router)\n",
        },
    )
    assert run(root) == (
        1,
        [
            "src/policy/cors/CMakeLists.txt: policy/cors may not link ss_router (router)",
            "src/server/validation/CMakeLists.txt: server/validation may not link ss_server (server)",
            "lint: 2 layering violation(s)",
        ],
    )


def test_agent_links_the_public_api_library_only(tmp_path):
    root = tree(
        tmp_path,
        {
            "src/server/CMakeLists.txt": "slipstream_module(server SOURCES s.cpp DEPS ss_server_core)\n",
            "src/server/core/CMakeLists.txt": "slipstream_module(server_core SOURCES c.cpp DEPS ss_base)\n",
            "src/store/CMakeLists.txt": "slipstream_module(store SOURCES s.cpp DEPS ss_base)\n",
            "src/agent/sessions/CMakeLists.txt": (
                "slipstream_module(agent_sessions SOURCES a.cpp DEPS ss_server ss_store ss_base)\n"
            ),
            "src/agent/mcp/CMakeLists.txt": "slipstream_module(agent_mcp SOURCES m.cpp DEPS ss_server_core)\n",
        },
    )
    assert run(root) == (
        1,
        [
            "src/agent/mcp/CMakeLists.txt: agent may not link ss_server_core (server/core)",
            "lint: 1 layering violation(s)",
        ],
    )


def test_python_bindings_use_the_public_api_and_the_store_database_only(tmp_path):
    root = tree(
        tmp_path,
        {
            "python/bindings/ok.h": '#include "slipstream/app.h"\n#include "store/database/database.h"\n',
            "python/bindings/ok.cpp": '#include "store/result_set.h"\n#include "store/column_type.h"\n',
            "python/bindings/bad.h": '#include "store/postgres/pool.h"\n',
            "python/bindings/bad.cpp": '#include "server/core/problem.h"\n',
        },
    )
    code, lines = run(root)
    assert (code, lines) == (1, [
        "python/bindings/bad.cpp:1: slipstream may not include server/core/problem.h (server/core)",
        "python/bindings/bad.h:1: slipstream may not include store/postgres/pool.h (store)",
        "lint: 2 layering violation(s)",
    ])
