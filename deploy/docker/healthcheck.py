"""The container's HEALTHCHECK: GET /livez on the port the server listens on; exit 0 on a 200, 1 otherwise.

Python's standard library only, so the runtime image needs no curl. SLIPSTREAM_HEALTHCHECK_URL overrides the URL
(a --root-path or a TLS port); by default http://127.0.0.1:$SLIPSTREAM_PORT/livez."""

from __future__ import annotations

import os
import sys
import urllib.request


def main() -> int:
    url = os.environ.get("SLIPSTREAM_HEALTHCHECK_URL") or \
        f"http://127.0.0.1:{os.environ.get('SLIPSTREAM_PORT') or '8000'}/livez"
    try:
        with urllib.request.urlopen(url, timeout=3) as response:
            return 0 if response.status == 200 else 1
    except OSError as exc:
        print(f"healthcheck: {url}: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
