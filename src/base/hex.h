// append_hex / hex: bytes as lowercase hexadecimal text (digests, ids, keys with bytes that are not printable).
#pragma once

#include <string>
#include <string_view>

namespace slipstream::base {

/// Appends two lowercase hex digits per byte of `bytes` to `out`.
inline void append_hex(std::string& out, std::string_view bytes) {
    static constexpr char kHex[] = "0123456789abcdef";
    out.reserve(out.size() + 2 * bytes.size());
    for (const char c : bytes) {
        out.push_back(kHex[static_cast<unsigned char>(c) >> 4]);
        out.push_back(kHex[static_cast<unsigned char>(c) & 15]);
    }
}

/// `bytes` as lowercase hex text.
inline std::string hex(std::string_view bytes) {
    std::string out;
    append_hex(out, bytes);
    return out;
}

}  // namespace slipstream::base
