// SessionSettings: the durable agent sessions (--sessions, --store, --data-dir, durability and the limits), opened by
// open_sessions().
#pragma once

#include <cstdint>
#include <string>

namespace slipstream::app {

/// Read like every other option (flags > SLIPSTREAM_* > config file > defaults). The limits' defaults are
/// agent::sessions::SessionLimits'.
struct SessionSettings {
    bool enabled = false;                                 // --sessions: mount /sessions
    std::string store_url;                                // empty: sqlite://<data_dir>/sessions.db
    std::string data_dir = "data";                        // created when missing
    std::uint64_t max_events = 100'000;                   // events per session
    std::uint64_t max_event_bytes = 64 * 1024;            // role + content of one event
    std::uint64_t max_state_bytes = 256 * 1024;           // the state document
    std::uint64_t max_per_principal = 1'000;              // live sessions of one principal
    std::uint32_t ttl_ms = 24 * 3'600'000;                // default lifetime after the last write
    std::uint32_t sweep_interval_ms = 60'000;             // how often expired sessions are deleted
    std::string durability = "durable";                   // or "buffered" (write-behind)
    std::uint32_t flush_ms = 50;                          // buffered: the longest time between two writes of the queue
    std::uint64_t max_queued_events = 10'000;             // buffered: then 503 with Retry-After
    std::uint32_t append_in_flight = 4;                   // PostgreSQL durable appends: statements out at once
    std::uint32_t append_batch = 64;                      // and the most appends one statement carries
    std::string openapi_path = "/openapi/sessions.json";  // the routes' OpenAPI document; "off": not served
};

}  // namespace slipstream::app
