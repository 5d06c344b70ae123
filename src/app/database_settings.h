// DatabaseSettings: the application's database (--database-url and its pool), opened by open_database().
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace slipstream::app {

/// Read like every other option (flags > SLIPSTREAM_DATABASE_* > config file > defaults); empty url: no database.
struct DatabaseSettings {
    std::string url;                          // postgresql://..., postgres://..., sqlite:///path, sqlite://:memory:
    std::size_t pool_min = 1;                 // PostgreSQL connections opened at start
    std::size_t pool_max = 10;                // PostgreSQL connections; SQLite worker threads (at most 8)
    std::uint32_t acquire_timeout_ms = 5000;  // waiting for a free connection
    std::uint32_t connect_timeout_ms = 5000;  // one connection attempt
    std::uint32_t statement_timeout_ms = 0;   // default deadline of a statement; 0: none
    std::size_t max_sessions = 64;            // transactions and listeners held at once
    std::size_t statement_cache = 256;        // PostgreSQL statements kept prepared per connection; 0: none
};

}  // namespace slipstream::app
