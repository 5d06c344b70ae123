# The system libraries a build needs, checked together before the first REQUIRED find: a build from source (pip
# install of the sdist, a clone) that lacks some of them stops with one error naming each missing library and the
# package that provides it, instead of CMake's generic message about the first one.
#
# Each entry: the name printed, the variable its probe sets, the Debian/Ubuntu and the Fedora package names.

find_package(PkgConfig QUIET)
set(_ss_missing "")

# _ss_need(LABEL FOUND DEBIAN FEDORA): records LABEL as missing unless FOUND is true.
macro(_ss_need label found debian fedora)
  if(NOT ${found})
    list(APPEND _ss_missing "  - ${label} (Debian/Ubuntu: ${debian}, Fedora: ${fedora})")
  endif()
endmacro()

# pkg-config first: brotli, zstd and re2 are found through it.
_ss_need("pkg-config" PKG_CONFIG_FOUND "pkg-config" "pkgconf-pkg-config")

find_package(simdjson QUIET)
_ss_need("simdjson" simdjson_FOUND "libsimdjson-dev" "simdjson-devel")
find_package(OpenSSL QUIET)
_ss_need("OpenSSL" OPENSSL_FOUND "libssl-dev" "openssl-devel")
find_package(ZLIB QUIET)
_ss_need("zlib" ZLIB_FOUND "zlib1g-dev" "zlib-devel")
if(PKG_CONFIG_FOUND)
  pkg_check_modules(_SS_BROTLI QUIET libbrotlienc libbrotlidec)
  _ss_need("brotli (libbrotlienc, libbrotlidec)" _SS_BROTLI_FOUND "libbrotli-dev" "brotli-devel")
  pkg_check_modules(_SS_ZSTD QUIET libzstd)
  _ss_need("zstd (libzstd)" _SS_ZSTD_FOUND "libzstd-dev" "libzstd-devel")
  pkg_check_modules(_SS_RE2 QUIET re2)
  _ss_need("RE2 (re2)" _SS_RE2_FOUND "libre2-dev" "re2-devel")
  if(SLIPSTREAM_BUILD_TESTS)
    pkg_check_modules(_SS_NGHTTP2 QUIET libnghttp2)
    _ss_need("nghttp2 (the tests' HTTP/2 client; -DSLIPSTREAM_BUILD_TESTS=OFF builds without it)" _SS_NGHTTP2_FOUND
             "libnghttp2-dev" "libnghttp2-devel")
  endif()
endif()
if(SLIPSTREAM_BUILD_TESTS)
  find_package(GTest QUIET)
  _ss_need("GoogleTest (the tests; -DSLIPSTREAM_BUILD_TESTS=OFF builds without it)" GTest_FOUND
           "libgtest-dev libgmock-dev" "gtest-devel gmock-devel")
endif()

if(_ss_missing)
  list(JOIN _ss_missing "\n" _ss_lines)
  message(FATAL_ERROR
    "Slipstream cannot be built: these system libraries (their development packages) are missing:\n"
    "${_ss_lines}\n"
    "Install them and build again (scripts/setup.sh installs everything on Debian/Ubuntu), or install a prebuilt "
    "wheel of slipstream, which bundles them.")
endif()

# Optional ones: the build goes on without them, with the feature left out.
if(PKG_CONFIG_FOUND)
  pkg_check_modules(_SS_LIBPQ QUIET libpq)
  find_package(SQLite3 QUIET)
  if(NOT _SS_LIBPQ_FOUND OR NOT SQLite3_FOUND)
    message(WARNING "Slipstream is built without its database layer (slipstream.Database, the session store on "
                    "PostgreSQL/SQLite): it needs libpq (Debian/Ubuntu: libpq-dev, Fedora: libpq-devel) and SQLite "
                    "(Debian/Ubuntu: libsqlite3-dev, Fedora: sqlite-devel).")
  endif()
  pkg_check_modules(_SS_LIBURING QUIET liburing)
  if(NOT _SS_LIBURING_FOUND)
    message(STATUS "Slipstream is built without the io_uring backend (--io-uring): liburing not found "
                   "(Debian/Ubuntu: liburing-dev, Fedora: liburing-devel).")
  endif()
endif()
