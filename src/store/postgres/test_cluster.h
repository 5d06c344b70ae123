// TestCluster: a throwaway PostgreSQL server for tests (initdb into a temp folder, pg_ctl on a Unix socket).
#pragma once

#include <string>

#include "base/status.h"

namespace slipstream::store::postgres {

/// Starts a private PostgreSQL cluster: initdb (trust auth, superuser "slipstream", no fsync) into a fresh
/// temporary folder, the server listening only on a Unix socket in that folder. As root, the server runs as
/// "nobody" (initdb refuses root). Control plane, for tests: blocking, Status on failure with the log's tail.
class TestCluster {
  public:
    /// The folder holding initdb/pg_ctl: $SLIPSTREAM_TEST_PG_BINDIR when set, else `pg_config --bindir`, else the
    /// newest /usr/lib/postgresql/*/bin. Empty when PostgreSQL's server is not installed (or not in the folder
    /// the variable names).
    static std::string find_bindir();

    TestCluster() = default;
    /// Stops the server and removes the folder.
    ~TestCluster();
    TestCluster(const TestCluster&) = delete;
    TestCluster& operator=(const TestCluster&) = delete;

    [[nodiscard]] base::Status start();
    /// pg_ctl restart -m fast: every connection is closed by the server; returns once it accepts again.
    [[nodiscard]] base::Status restart();
    [[nodiscard]] base::Status stop();

    /// "host=<folder> port=5432 user=slipstream dbname=postgres".
    std::string conninfo() const;
    const std::string& dir() const { return dir_; }

  private:
    [[nodiscard]] base::Status pg_ctl(const std::string& args);

    std::string bindir_;
    std::string dir_;
    std::string run_as_;  // "runuser -u nobody -- " when root
    bool running_ = false;
};

}  // namespace slipstream::store::postgres
