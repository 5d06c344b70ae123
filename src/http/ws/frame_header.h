// FrameHeader: the decoded fixed part of one WebSocket frame (RFC 6455 §5.2).
#pragma once

#include <array>
#include <cstdint>

namespace slipstream::http::ws {

struct FrameHeader {
    bool fin = false;
    bool rsv1 = false;  // "compressed" on the first frame of a message when permessage-deflate is on
    bool rsv2 = false;
    bool rsv3 = false;
    std::uint8_t opcode = 0;  // raw: may be a reserved value, see is_known_opcode()
    bool masked = false;
    std::array<std::uint8_t, 4> mask{};
    std::uint64_t length = 0;
};

}  // namespace slipstream::http::ws
