// Test support for store::Database tests: open a database, run a statement or open a session and wait (bounded).
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <future>
#include <memory>
#include <string>
#include <thread>

#include "store/database/database.h"

namespace slipstream::store::db_testing {

using namespace std::chrono_literals;

inline QueryResult run(Database& db, std::string sql, Params params = {}) {
    auto p = std::make_shared<std::promise<QueryResult>>();
    auto f = p->get_future();
    db.query(std::move(sql), std::move(params), [p](QueryResult r) { p->set_value(std::move(r)); });
    EXPECT_EQ(f.wait_for(30s), std::future_status::ready);
    return f.get();
}

inline QueryResult run(DbSession& s, std::string sql, Params params = {}) {
    auto p = std::make_shared<std::promise<QueryResult>>();
    auto f = p->get_future();
    s.query(std::move(sql), std::move(params), [p](QueryResult r) { p->set_value(std::move(r)); });
    EXPECT_EQ(f.wait_for(30s), std::future_status::ready);
    return f.get();
}

inline std::unique_ptr<DbSession> session(Database& db, base::Status* status = nullptr) {
    auto p = std::make_shared<std::promise<base::Result<std::unique_ptr<DbSession>>>>();
    auto f = p->get_future();
    db.open_session([p](base::Result<std::unique_ptr<DbSession>> s) { p->set_value(std::move(s)); });
    EXPECT_EQ(f.wait_for(30s), std::future_status::ready);
    auto r = f.get();
    if (status != nullptr) *status = r.status();
    return r.is_ok() ? std::move(r).value() : nullptr;
}

inline std::unique_ptr<Database> open(std::string url, DatabaseConfig config = {}) {
    config.url = std::move(url);
    auto db = Database::open(std::move(config));
    EXPECT_TRUE(db.is_ok()) << db.status().to_string();
    return db.is_ok() ? std::move(db).value() : nullptr;
}

inline bool eventually(const std::function<bool()>& cond) {
    for (int i = 0; i < 300; ++i) {
        if (cond()) return true;
        std::this_thread::sleep_for(20ms);
    }
    return cond();
}

}  // namespace slipstream::store::db_testing
