"""Throwaway TLS material for end-to-end tests, made with the openssl CLI at test time (no key is committed)."""
import dataclasses
import pathlib
import subprocess


@dataclasses.dataclass
class Pki:
    ca_cert: pathlib.Path
    ca_key: pathlib.Path
    server_cert: pathlib.Path
    server_key: pathlib.Path
    client_cert: pathlib.Path
    client_key: pathlib.Path
    dir: pathlib.Path

    def issue_server(self, name: str) -> tuple[pathlib.Path, pathlib.Path]:
        """Another server certificate for 127.0.0.1/localhost, with CN `name` (a reload target)."""
        return _issue(self.dir, name, self.ca_cert, self.ca_key, server=True)


def _run(*args: str, cwd: pathlib.Path) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True)


def _issue(
    d: pathlib.Path, name: str, ca_cert: pathlib.Path, ca_key: pathlib.Path, server: bool
) -> tuple[pathlib.Path, pathlib.Path]:
    key, csr, cert, ext = (d / f"{name}.{s}" for s in ("key", "csr", "pem", "ext"))
    _run("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", str(key),
         "-out", str(csr), "-subj", f"/CN={name}", cwd=d)
    usage = "serverAuth" if server else "clientAuth"
    san = "subjectAltName=DNS:localhost,IP:127.0.0.1\n" if server else ""
    ext.write_text(f"basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage={usage}\n{san}")
    _run("x509", "-req", "-in", str(csr), "-CA", str(ca_cert), "-CAkey", str(ca_key), "-CAcreateserial",
         "-out", str(cert), "-days", "2", "-extfile", str(ext), cwd=d)
    return cert, key


def make_pki(d: pathlib.Path) -> Pki:
    d.mkdir(parents=True, exist_ok=True)
    ca_key, ca_cert = d / "ca.key", d / "ca.pem"
    _run("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", str(ca_key),
         "-out", str(ca_cert), "-days", "2", "-subj", "/CN=slipstream test CA",
         "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign", cwd=d)
    server_cert, server_key = _issue(d, "server", ca_cert, ca_key, server=True)
    client_cert, client_key = _issue(d, "client", ca_cert, ca_key, server=False)
    return Pki(ca_cert, ca_key, server_cert, server_key, client_cert, client_key, d)
