# Slipstream in a container: a build stage compiles the Python package (the C++ engine as slipstream._native) into a
# wheel; a slim runtime stage has Python, the shared libraries the engine links and the app, run as a non-root user.
#
#   docker build -t slipstream .                                   # serves deploy/docker/example (main:app)
#   docker build -t myapp --build-arg APP_DIR=path/to/app .        # your app folder (requirements.txt installed)
#   docker run -p 8000:8000 -e SLIPSTREAM_APP=main:app myapp        # or: docker run myapp main:app --workers 2
#
# Every `slipstream run` flag is also a SLIPSTREAM_* variable (slipstream run --help); docs/deploy.md has more.

# The release both stages use: the runtime library package names below are this release's.
ARG DEBIAN_RELEASE=bookworm

FROM debian:${DEBIAN_RELEASE}-slim AS build
SHELL ["/bin/bash", "-o", "pipefail", "-c"]

# The -dev packages of scripts/setup.sh that the extension links (none of the test or benchmark libraries).
# Versions are those of the pinned release (DL3008): its security updates are wanted, not frozen out.
# hadolint ignore=DL3008
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      build-essential cmake ninja-build pkg-config ca-certificates \
      python3 python3-venv python3-dev \
      libsimdjson-dev libre2-dev libssl-dev zlib1g-dev libbrotli-dev libzstd-dev \
      libsqlite3-dev libpq-dev liburing-dev libyaml-dev \
 && rm -rf /var/lib/apt/lists/*

WORKDIR /src
COPY pyproject.toml CMakeLists.txt ./
COPY cmake cmake
COPY include include
COPY src src
COPY examples examples
COPY python python

# The wheel (and its dependencies' wheels) without tests, benchmarks or -Werror: a compiler newer than the
# project's must not stop a user's image.
RUN python3 -m venv /opt/build-venv \
 && /opt/build-venv/bin/pip install --no-cache-dir --upgrade pip \
 && /opt/build-venv/bin/pip wheel --no-cache-dir --wheel-dir /wheels \
      -C cmake.define.SLIPSTREAM_BUILD_TESTS=OFF -C cmake.define.SLIPSTREAM_BUILD_BENCH=OFF \
      -C cmake.define.SLIPSTREAM_WERROR=OFF -C build-dir=/tmp/slipstream-build .

# The environment the runtime stage copies: slipstream, its dependencies and the app's requirements.txt, no pip.
ARG APP_DIR=deploy/docker/example
COPY ${APP_DIR} /app
RUN python3 -m venv /opt/slipstream \
 && /opt/slipstream/bin/pip install --no-cache-dir --no-index --find-links /wheels slipstream \
 && if [ -f /app/requirements.txt ]; then /opt/slipstream/bin/pip install --no-cache-dir -r /app/requirements.txt; fi \
 && /opt/slipstream/bin/pip uninstall -y pip \
 && find /opt/slipstream -name __pycache__ -prune -exec rm -rf {} +


FROM debian:${DEBIAN_RELEASE}-slim AS runtime
SHELL ["/bin/bash", "-o", "pipefail", "-c"]

# Python and the libraries slipstream._native links (ldd of the extension; libpq5 brings its own):
# OpenSSL, zlib, brotli, zstd, re2, simdjson, liburing, libpq, SQLite, libyaml.
# hadolint ignore=DL3008
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      python3 ca-certificates \
      libssl3 zlib1g libbrotli1 libzstd1 libre2-9 libsimdjson14 liburing2 libpq5 libsqlite3-0 libyaml-0-2 \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --user-group --home-dir /app --no-create-home --shell /usr/sbin/nologin slipstream \
 && mkdir -p /data \
 && chown slipstream:slipstream /data

COPY --from=build /opt/slipstream /opt/slipstream
COPY --from=build /app /app
COPY deploy/docker/healthcheck.py /usr/local/lib/slipstream/healthcheck.py
# Fails the build here, not at the first start, when a library the extension needs is missing.
RUN /opt/slipstream/bin/python -c "import slipstream._native"

# /app and the environment belong to root: the server cannot rewrite its own code. /data is its one writable
# folder (SQLite files, the session store: mount a volume there).
ENV PATH=/opt/slipstream/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    SLIPSTREAM_APP=main:app \
    SLIPSTREAM_APP_DIR=/app \
    SLIPSTREAM_HOST=0.0.0.0 \
    SLIPSTREAM_PORT=8000 \
    SLIPSTREAM_DATA_DIR=/data \
    SLIPSTREAM_LOG_FORMAT=json
WORKDIR /app
USER 10001:10001
EXPOSE 8000

# SIGTERM starts the drain: /readyz turns 503, listeners close, in-flight requests finish (docs/deploy.md).
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=15s --timeout=5s --start-period=20s --retries=3 \
  CMD ["python3", "/usr/local/lib/slipstream/healthcheck.py"]
ENTRYPOINT ["slipstream", "run"]
