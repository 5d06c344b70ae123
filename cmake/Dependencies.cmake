# Third-party libraries, all from Debian packages installed by scripts/setup.sh.
# Every missing system library named at once, with its package (a build from the sdist needs them).
include(${PROJECT_SOURCE_DIR}/cmake/SystemLibraries.cmake)
find_package(Threads REQUIRED)
find_package(PkgConfig REQUIRED)
find_package(simdjson REQUIRED)
find_package(OpenSSL REQUIRED)
find_package(ZLIB REQUIRED)
pkg_check_modules(BROTLI REQUIRED IMPORTED_TARGET libbrotlienc libbrotlidec)
pkg_check_modules(ZSTD REQUIRED IMPORTED_TARGET libzstd)
if(SLIPSTREAM_BUILD_TESTS)
  # The HTTP/2 tests' reference client and HPACK oracle (the engine itself is ours: src/http/h2).
  pkg_check_modules(NGHTTP2 REQUIRED IMPORTED_TARGET libnghttp2)
  find_package(GTest REQUIRED)
endif()
if(SLIPSTREAM_BUILD_BENCH)
  find_package(benchmark QUIET)
  if(NOT benchmark_FOUND)
    message(STATUS "Google Benchmark not found: micro-benchmarks are not built")
    set(SLIPSTREAM_BUILD_BENCH OFF)
  endif()
endif()
# Optional: liburing (Debian liburing-dev) builds the io_uring event-loop backend (--io-uring); without it the
# backend compiles out and the flag fails at startup with a clear error.
pkg_check_modules(LIBURING QUIET IMPORTED_TARGET liburing)
# The store's drivers (src/store/postgres, src/store/sqlite): Debian libpq-dev and libsqlite3-dev. A driver whose
# library is missing is not built (a configure message says so).
pkg_check_modules(LIBPQ QUIET IMPORTED_TARGET libpq)
find_package(SQLite3 QUIET)
