// Test support: the binary's shared PostgreSQL cluster and a bounded way to run the loop until a condition.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>

#include "base/clock.h"
#include "net/event_loop.h"
#include "store/postgres/test_cluster.h"

namespace slipstream::store::postgres::testing {

/// The cluster every test of the binary shares (started on first use, stopped at exit); null with `why` set
/// when PostgreSQL is not installed or did not start.
inline TestCluster* shared_cluster(std::string* why) {
    static std::unique_ptr<TestCluster> cluster;
    static std::string failure;
    static bool tried = false;
    if (!tried) {
        tried = true;
        auto c = std::make_unique<TestCluster>();
        base::Status s = c->start();
        if (s.is_ok()) {
            cluster = std::move(c);
        } else {
            failure = s.to_string();
        }
    }
    if (why != nullptr) *why = failure;
    return cluster.get();
}

/// Skips the test when PostgreSQL is not installed; fails it when it is but the cluster did not start.
#define SLIPSTREAM_REQUIRE_CLUSTER(var)                                                                       \
    std::string var##_why;                                                                                    \
    TestCluster* var = ::slipstream::store::postgres::testing::shared_cluster(&var##_why);                    \
    if (var == nullptr) {                                                                                     \
        if (TestCluster::find_bindir().empty()) GTEST_SKIP() << "PostgreSQL is not installed: " << var##_why; \
        FAIL() << "the test cluster did not start: " << var##_why;                                            \
    }

/// Runs `loop` until `done()` holds or `limit_ns` passes (a bound against hangs, not a synchronisation):
/// false on the limit.
inline bool run_until(net::EventLoop& loop, const std::function<bool()>& done,
                      std::int64_t limit_ns = 30 * base::kNanosPerSecond) {
    const base::MonoNanos deadline = base::mono_now() + limit_ns;
    while (!done()) {
        if (base::mono_now() > deadline) return false;
        loop.run_once(50);
    }
    return true;
}

}  // namespace slipstream::store::postgres::testing
