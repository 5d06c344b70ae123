// Opcode: the WebSocket frame opcodes (RFC 6455 §5.2) and their classification.
#pragma once

#include <cstdint>

namespace slipstream::http::ws {

enum class Opcode : std::uint8_t {
    kContinuation = 0x0,
    kText = 0x1,
    kBinary = 0x2,
    kClose = 0x8,
    kPing = 0x9,
    kPong = 0xA,
};

/// True for the six opcodes RFC 6455 defines; the others are reserved (a protocol error).
constexpr bool is_known_opcode(std::uint8_t op) {
    return op <= 0x2 || (op >= 0x8 && op <= 0xA);
}

/// Control frames: close, ping, pong (and the reserved 0xB-0xF).
constexpr bool is_control_opcode(std::uint8_t op) {
    return (op & 0x8) != 0;
}

}  // namespace slipstream::http::ws
