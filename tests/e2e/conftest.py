"""Fixtures shared by the end-to-end tests: the test PKI, and a hello server reached over h2c or TLS."""
import pytest

from tests.e2e.certs import Pki, make_pki


@pytest.fixture(scope="module")
def pki(tmp_path_factory) -> Pki:
    """A CA, a server certificate for localhost/127.0.0.1 and a client certificate (made with openssl)."""
    return make_pki(tmp_path_factory.mktemp("pki"))


@pytest.fixture(params=["h2c", "h2"])
def any_server(request, start_server, pki):
    """A hello server reached over cleartext (prior knowledge) or TLS (ALPN); yields (server, use_tls)."""
    def start(*flags):
        tls = ["--tls-cert", str(pki.server_cert), "--tls-key", str(pki.server_key)] if request.param == "h2" else []
        return start_server("--threads", "1", *tls, *flags), request.param == "h2"
    return start
