"""Fixtures shared by the end-to-end tests: the test PKI, a hello server reached over h2c or TLS, and `serve`,
which runs a test over every protocol the engine serves (h1, h1 over TLS, h2c, h2 over TLS)."""
import pytest

from tests.conftest import Server, example_binary
from tests.e2e.certs import Pki, make_pki
from tests.e2e.helpers import Protocol

PROTOCOLS = ("h1", "h1-tls", "h2c", "h2")


@pytest.fixture(scope="session")
def pki(tmp_path_factory) -> Pki:
    """A CA, a server certificate for localhost/127.0.0.1 and a client certificate (made with openssl), made once
    for the whole run."""
    return make_pki(tmp_path_factory.mktemp("pki"))


@pytest.fixture(params=["h2c", "h2"])
def any_server(request, start_server, pki):
    """A hello server reached over cleartext (prior knowledge) or TLS (ALPN); yields (server, use_tls)."""
    def start(*flags):
        tls = ["--tls-cert", str(pki.server_cert), "--tls-key", str(pki.server_key)] if request.param == "h2" else []
        return start_server("--threads", "1", *tls, *flags), request.param == "h2"
    return start


@pytest.fixture(params=PROTOCOLS)
def protocol(request, pki) -> Protocol:
    """One of PROTOCOLS, with the PKI its TLS variants use."""
    return Protocol(request.param, pki)


@pytest.fixture(scope="module")
def shared_servers():
    """Example servers by binary and argument list, shared by the tests of one module (h1 and h2c share one, as
    do h1 over TLS and h2); stopped at the module's end."""
    servers = {}
    yield servers
    for server in servers.values():
        server.stop()


@pytest.fixture
def serve(protocol, shared_servers, start_server):
    """start(*flags, fresh=False, env=None, binary="hello") -> helpers.Client: the example app `binary` (hello,
    or stream_lab; one I/O thread, TLS for h1-tls and h2) with `flags`, reached over `protocol`. A server with the
    same binary and flags is shared within the module; a test that counts metrics or reads the access log asks
    for a fresh one (`client.server` is its Server: stderr, access log)."""
    clients = []

    def start(*flags, fresh=False, env=None, binary="hello"):
        args = ("--threads", "1", *protocol.server_flags(), *flags)
        if fresh or env is not None:
            server = start_server(*args, env=env, binary=binary)
        else:
            key = (binary, *args)
            if key not in shared_servers:
                shared_servers[key] = Server([example_binary(binary), "--host", "127.0.0.1", "--port", "0", *args])
            server = shared_servers[key]
        client = protocol.client(server)
        clients.append(client)
        return client

    yield start
    for client in clients:
        client.close()
