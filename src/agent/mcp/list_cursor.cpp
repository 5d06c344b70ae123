// Cursors: "o" + the offset in decimal, base64url-encoded, so clients treat them as opaque.
#include "agent/mcp/list_cursor.h"

#include <charconv>
#include <cstdint>

namespace slipstream::mcp::detail {

namespace {

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

int value_of(char c) {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '-') return 62;
    if (c == '_') return 63;
    return -1;
}

}  // namespace

std::string encode_cursor(std::size_t offset) {
    const std::string plain = "o" + std::to_string(offset);
    std::string out;
    std::uint32_t bits = 0;
    int count = 0;
    for (unsigned char c : plain) {
        bits = (bits << 8) | c;
        count += 8;
        while (count >= 6) {
            count -= 6;
            out.push_back(kAlphabet[(bits >> count) & 63]);
        }
    }
    if (count > 0) out.push_back(kAlphabet[(bits << (6 - count)) & 63]);
    return out;
}

std::optional<std::size_t> decode_cursor(std::string_view cursor) {
    if (cursor.empty() || cursor.size() > 32) return std::nullopt;
    std::string plain;
    std::uint32_t bits = 0;
    int count = 0;
    for (char c : cursor) {
        const int v = value_of(c);
        if (v < 0) return std::nullopt;
        bits = (bits << 6) | static_cast<std::uint32_t>(v);
        count += 6;
        if (count >= 8) {
            count -= 8;
            plain.push_back(static_cast<char>((bits >> count) & 0xff));
        }
    }
    if (plain.size() < 2 || plain[0] != 'o') return std::nullopt;
    std::size_t offset = 0;
    auto [end, ec] = std::from_chars(plain.data() + 1, plain.data() + plain.size(), offset);
    if (ec != std::errc() || end != plain.data() + plain.size()) return std::nullopt;
    if (encode_cursor(offset) != cursor) return std::nullopt;  // only the one spelling we write
    return offset;
}

}  // namespace slipstream::mcp::detail
