// SessionStats: one HTTP/2 session's protocol events, counted for the owner's metrics.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace slipstream::http::h2 {

/// The flood defences of the session (README.md "Defences"), as counted when one ends a connection.
enum class FloodKind : std::uint8_t {
    kRapidReset,     // client RST_STREAM frames past their budget, or new streams while reset ones are held
    kControlFrames,  // PING / SETTINGS / PRIORITY / WINDOW_UPDATE / empty frames past their budget
    kContinuation,   // too many CONTINUATION frames after one HEADERS
    kHpackBomb,      // a header block decoding far past the header list limit
    kOther,          // a peer that never reads: over 1000 control frames (PING/SETTINGS ACKs...) unsent
};
inline constexpr std::size_t kFloodKinds = 5;

/// The metric label of a flood kind.
constexpr std::string_view flood_kind_name(FloodKind k) {
    constexpr std::string_view kNames[kFloodKinds] = {"rapid_reset", "control_frames", "continuation", "hpack_bomb",
                                                      "other"};
    return kNames[static_cast<std::size_t>(k)];
}

/// Cumulative counts since the session began. Error codes index the arrays: RFC 9113 codes 0..13 as
/// themselves, any other code at kOtherCode.
struct SessionStats {
    static constexpr std::size_t kCodes = 15;
    static constexpr std::size_t kOtherCode = 14;
    static constexpr std::size_t code_index(std::uint32_t code) { return code < kOtherCode ? code : kOtherCode; }

    std::uint64_t streams_opened = 0;  // request streams (HEADERS from the client, or an h2c upgrade's stream 1)
    std::uint64_t events = 0;          // grows with every count below: a cheap "anything new?" check
    std::array<std::uint64_t, kCodes> rst_received{};
    std::array<std::uint64_t, kCodes> rst_sent{};
    std::array<std::uint64_t, kCodes> goaway_sent{};
    std::array<std::uint64_t, kFloodKinds> floods{};
};

}  // namespace slipstream::http::h2
