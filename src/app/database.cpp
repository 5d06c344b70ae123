// open_database(): DatabaseSettings to a store::Database and a readiness check.
#include "app/database.h"

#include <pthread.h>

#include <csignal>
#include <filesystem>
#include <system_error>

namespace slipstream::app {

base::Result<std::string> data_dir_store_url(const std::string& data_dir, std::string_view file) {
    std::error_code ec;
    std::filesystem::create_directories(data_dir, ec);
    if (ec) return base::Status::io_error("--data-dir " + data_dir + ": " + ec.message());
    std::filesystem::path path = std::filesystem::absolute(std::filesystem::path(data_dir) / file, ec);
    if (ec) return base::Status::io_error("--data-dir " + data_dir + ": " + ec.message());
    return "sqlite://" + path.string();
}

base::Result<std::string> agent_store_url(const SessionSettings& s, std::string_view file) {
    if (!s.store_url.empty()) return s.store_url;
    return data_dir_store_url(s.data_dir, file);
}

void block_stop_signals() {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

store::DatabaseConfig database_config(const DatabaseSettings& s, std::string url) {
    constexpr std::int64_t kNanosPerMs = 1'000'000;
    store::DatabaseConfig c;
    c.url = std::move(url);
    c.min_size = s.pool_min;
    c.max_size = s.pool_max;
    c.acquire_timeout_ns = std::int64_t{s.acquire_timeout_ms} * kNanosPerMs;
    c.connect_timeout_ns = std::int64_t{s.connect_timeout_ms} * kNanosPerMs;
    c.statement_timeout_ns = std::int64_t{s.statement_timeout_ms} * kNanosPerMs;
    c.max_sessions = s.max_sessions;
    c.statement_cache_size = s.statement_cache;
    return c;
}

base::Result<std::shared_ptr<store::Database>> open_database(const Config& config, App& app) {
    const DatabaseSettings& s = config.database;
    if (s.url.empty()) return std::shared_ptr<store::Database>();
    store::DatabaseConfig c = database_config(s, s.url);
    SLIPSTREAM_ASSIGN_OR_RETURN(std::unique_ptr<store::Database> opened, store::Database::open(std::move(c)));
    std::shared_ptr<store::Database> db(std::move(opened));
    app.readiness_check("database", [db] { return db->ready(); });
    return db;
}

}  // namespace slipstream::app
