"""The bench's TLS certificate: one self-signed P-256 certificate per run, shared by every TLS contender."""
from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass

HOST = "127.0.0.1"


@dataclass(frozen=True)
class Certificate:
    cert: str  # PEM certificate
    key: str   # PEM private key (PKCS#8, which every contender reads, Granian included)


def command(cert: str, key: str) -> list[str]:
    """openssl: a self-signed ECDSA P-256 certificate for 127.0.0.1, valid two days."""
    return ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-keyout", key, "-out", cert, "-days", "2", "-subj", f"/CN={HOST}",
            "-addext", f"subjectAltName=IP:{HOST}"]


def make_certificate(directory: str) -> Certificate:
    """Writes cert.pem and key.pem into directory (reused when both exist). Raises RuntimeError on failure."""
    cert, key = os.path.join(directory, "cert.pem"), os.path.join(directory, "key.pem")
    if os.path.exists(cert) and os.path.exists(key):
        return Certificate(cert, key)
    os.makedirs(directory, exist_ok=True)
    try:
        out = subprocess.run(command(cert, key), check=False, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise RuntimeError(f"openssl failed: {error}") from error
    if out.returncode != 0:
        raise RuntimeError(f"openssl failed: {(out.stderr or out.stdout).strip().splitlines()[-1:]}")
    return Certificate(cert, key)
