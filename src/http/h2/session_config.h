// SessionConfig: the SETTINGS a server session advertises and the limits that defend it against abuse.
#pragma once

#include <cstddef>
#include <cstdint>

namespace slipstream::http::h2 {

struct SessionConfig {
    // Advertised in the first SETTINGS frame and enforced.
    std::uint32_t max_concurrent_streams = 100;
    std::uint32_t initial_window_size = 1024 * 1024;          // per stream, for request bodies
    std::uint32_t connection_window_size = 16 * 1024 * 1024;  // whole connection
    std::uint32_t max_header_list_size = 16 * 1024;           // RFC 9113 size: name + value + 32 per field

    /// Largest request body kept per stream; past it the request is answered 413.
    std::size_t max_body_bytes = 1024 * 1024;

    // Flood defences: each a token bucket (burst, refill per second). An empty bucket ends the connection
    // with GOAWAY ENHANCE_YOUR_CALM.
    std::uint32_t reset_burst = 1000;  // RST_STREAM frames from the client (rapid reset, CVE-2023-44487)
    std::uint32_t reset_rate = 33;
    std::uint32_t control_burst = 1000;  // PING, SETTINGS, PRIORITY, unearned WINDOW_UPDATE and empty frames
    std::uint32_t control_rate = 100;
    /// CONTINUATION frames after one HEADERS frame; more is a flood (CVE-2024-27316 and kin).
    std::uint32_t max_continuations = 8;
    /// A header block that decodes to more than this many times max_header_list_size is an HPACK bomb:
    /// GOAWAY ENHANCE_YOUR_CALM. Between 1x and this, the request is answered 431.
    std::uint32_t header_bomb_factor = 4;
};

}  // namespace slipstream::http::h2
