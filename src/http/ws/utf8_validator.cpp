// Utf8Validator: a nine-state machine over bytes with an 8-bytes-at-a-time ASCII fast path.
#include "http/ws/utf8_validator.h"

#include <cstring>

namespace slipstream::http::ws {
namespace {

// States: 0 accept, 1 reject, 2/3/4 need 1/2/3 continuation bytes (80-BF), and four states whose next
// byte has a narrower range: 5 after E0 (A0-BF), 6 after ED (80-9F), 7 after F0 (90-BF), 8 after F4 (80-8F).
constexpr std::uint8_t kReject = 1;

std::uint8_t from_lead(std::uint8_t b) {
    if (b < 0x80) return 0;
    if (b < 0xC2) return kReject;  // a stray continuation byte, or an overlong 2-byte lead
    if (b < 0xE0) return 2;
    if (b == 0xE0) return 5;
    if (b == 0xED) return 6;
    if (b < 0xF0) return 3;
    if (b == 0xF0) return 7;
    if (b < 0xF4) return 4;
    if (b == 0xF4) return 8;
    return kReject;
}

std::uint8_t step(std::uint8_t state, std::uint8_t b) {
    switch (state) {
        case 0:
            return from_lead(b);
        case 2:
            return (b >= 0x80 && b <= 0xBF) ? 0 : kReject;
        case 3:
            return (b >= 0x80 && b <= 0xBF) ? 2 : kReject;
        case 4:
            return (b >= 0x80 && b <= 0xBF) ? 3 : kReject;
        case 5:
            return (b >= 0xA0 && b <= 0xBF) ? 2 : kReject;
        case 6:
            return (b >= 0x80 && b <= 0x9F) ? 2 : kReject;
        case 7:
            return (b >= 0x90 && b <= 0xBF) ? 3 : kReject;
        case 8:
            return (b >= 0x80 && b <= 0x8F) ? 3 : kReject;
        default:
            return kReject;
    }
}

}  // namespace

bool Utf8Validator::feed(std::string_view bytes) {
    std::uint8_t s = state_;
    const char* p = bytes.data();
    const char* end = p + bytes.size();
    while (p < end && s != kReject) {
        if (s == kAccept) {
            // ASCII runs are the common case: skip 8 bytes at a time.
            while (end - p >= 8) {
                std::uint64_t w;
                std::memcpy(&w, p, 8);
                if (w & 0x8080808080808080ull) break;
                p += 8;
            }
            if (p == end) break;
        }
        s = step(s, static_cast<std::uint8_t>(*p++));
    }
    state_ = s;
    return s != kReject;
}

bool Utf8Validator::is_valid(std::string_view bytes) {
    Utf8Validator v;
    return v.feed(bytes) && v.complete();
}

}  // namespace slipstream::http::ws
