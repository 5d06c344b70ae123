// new_session_id(), is_session_id().
#include "agent/sessions/session_id.h"

#include <openssl/rand.h>

#include <array>
#include <cstdint>

namespace slipstream::agent::sessions {

namespace {
constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
}

base::Result<std::string> new_session_id() {
    std::array<unsigned char, 16> bytes{};
    if (RAND_bytes(bytes.data(), static_cast<int>(bytes.size())) != 1)
        return base::Status::internal("RAND_bytes failed: no session id");
    std::string id;
    id.reserve(kSessionIdLength);
    // 16 bytes = five 3-byte groups (20 characters) + one byte (2 characters).
    std::size_t i = 0;
    for (; i + 3 <= bytes.size(); i += 3) {
        const std::uint32_t v = (std::uint32_t{bytes[i]} << 16) | (std::uint32_t{bytes[i + 1]} << 8) | bytes[i + 2];
        for (int shift = 18; shift >= 0; shift -= 6)
            id.push_back(kAlphabet[(v >> shift) & 63]);
    }
    const std::uint32_t last = bytes[i];
    id.push_back(kAlphabet[last >> 2]);
    id.push_back(kAlphabet[(last & 3) << 4]);
    return id;
}

bool is_session_id(std::string_view text) {
    if (text.size() != kSessionIdLength) return false;
    for (char c : text) {
        const bool ok =
            (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
        if (!ok) return false;
    }
    return true;
}

}  // namespace slipstream::agent::sessions
