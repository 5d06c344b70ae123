// Test helpers: builds client (masked) frames byte by byte for the ws tests.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "http/ws/frame_writer.h"

namespace slipstream::http::ws::testing {

inline constexpr std::array<std::uint8_t, 4> kTestMask = {0x37, 0xfa, 0x21, 0x3d};

/// A masked client frame.
inline std::string client_frame(Opcode op, std::string_view payload, bool fin = true, bool rsv1 = false) {
    std::string out;
    append_frame(out, op, payload, FrameOptions{fin, rsv1, kTestMask});
    return out;
}

/// Raw bytes from a hex string ("81 85 37fa"): spaces ignored.
inline std::string hex(std::string_view h) {
    std::string out;
    int nibble = -1;
    for (char c : h) {
        int v = (c >= '0' && c <= '9')   ? c - '0'
                : (c >= 'a' && c <= 'f') ? c - 'a' + 10
                : (c >= 'A' && c <= 'F') ? c - 'A' + 10
                                         : -1;
        if (v < 0) continue;
        if (nibble < 0) {
            nibble = v;
        } else {
            out.push_back(static_cast<char>(nibble * 16 + v));
            nibble = -1;
        }
    }
    return out;
}

}  // namespace slipstream::http::ws::testing
