// Strict base64url decoding: a 256-entry table, four characters to three bytes.
#include "policy/auth/base64url.h"

#include <array>
#include <cstdint>

namespace slipstream::policy::auth::detail {
namespace {

constexpr std::uint8_t kInvalid = 0xFF;

constexpr std::array<std::uint8_t, 256> make_table() {
    std::array<std::uint8_t, 256> t{};
    for (auto& v : t)
        v = kInvalid;
    constexpr std::string_view kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    for (std::size_t i = 0; i < kAlphabet.size(); ++i)
        t[static_cast<unsigned char>(kAlphabet[i])] = static_cast<std::uint8_t>(i);
    return t;
}

constexpr std::array<std::uint8_t, 256> kTable = make_table();

}  // namespace

bool decode_base64url(std::string_view in, unsigned char* out) {
    const std::size_t rest = in.size() % 4;
    if (rest == 1) return false;
    std::uint32_t bad = 0;  // OR of every table entry: one branch at the end instead of one per character
    const auto sextet = [&](std::size_t i) {
        const std::uint8_t v = kTable[static_cast<unsigned char>(in[i])];
        bad |= v;
        return static_cast<std::uint32_t>(v);
    };
    const std::size_t full = in.size() - rest;
    std::size_t o = 0;
    for (std::size_t i = 0; i < full; i += 4) {
        const std::uint32_t n = sextet(i) << 18 | sextet(i + 1) << 12 | sextet(i + 2) << 6 | sextet(i + 3);
        out[o++] = static_cast<unsigned char>(n >> 16);
        out[o++] = static_cast<unsigned char>(n >> 8);
        out[o++] = static_cast<unsigned char>(n);
    }
    if (rest == 2) {
        const std::uint32_t a = sextet(full), b = sextet(full + 1);
        if ((b & 0x0F) != 0) return false;  // 4 unused bits
        out[o] = static_cast<unsigned char>(a << 2 | b >> 4);
    } else if (rest == 3) {
        const std::uint32_t a = sextet(full), b = sextet(full + 1), c = sextet(full + 2);
        if ((c & 0x03) != 0) return false;  // 2 unused bits
        out[o++] = static_cast<unsigned char>(a << 2 | b >> 4);
        out[o] = static_cast<unsigned char>(b << 4 | c >> 2);
    }
    return (bad & 0x40) == 0;  // valid entries are < 64; kInvalid has bit 6 set
}

}  // namespace slipstream::policy::auth::detail
