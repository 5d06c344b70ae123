// Frame writer: encodes WebSocket frame headers and whole frames (server side unmasked, client side masked).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "http/ws/opcode.h"

namespace slipstream::http::ws {

/// Largest frame header: 2 + 8 (64-bit length) + 4 (mask).
inline constexpr std::size_t kMaxFrameHeader = 14;

struct FrameOptions {
    bool fin = true;
    bool rsv1 = false;  // the message's payload is deflated (first frame only)
    /// Set by clients (every client frame is masked); servers leave it empty.
    std::optional<std::array<std::uint8_t, 4>> mask;
};

/// Writes the header of a frame with `payload_len` bytes into `out`; returns its size (2 to 14).
std::size_t encode_frame_header(Opcode opcode, std::uint64_t payload_len, const FrameOptions& options,
                                char out[kMaxFrameHeader]);

/// Appends one whole frame (header and payload, masked when options.mask is set) to `out`.
void append_frame(std::string& out, Opcode opcode, std::string_view payload, const FrameOptions& options = {});

/// Appends a close frame with `code` and `reason` (see make_close_payload).
void append_close_frame(std::string& out, std::uint16_t code, std::string_view reason,
                        const FrameOptions& options = {});

}  // namespace slipstream::http::ws
