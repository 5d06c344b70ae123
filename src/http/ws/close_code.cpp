// Close codes: validation and the close frame's payload.
#include "http/ws/close_code.h"

#include "http/ws/utf8_validator.h"

namespace slipstream::http::ws {

bool is_valid_wire_close_code(std::uint32_t code) {
    if (code >= 3000 && code <= 4999) return true;
    if (code < 1000 || code > 1014) return false;
    return code != 1004 && code != 1005 && code != 1006;
}

std::uint16_t parse_close_payload(std::string_view payload, ClosePayload* out) {
    *out = ClosePayload{};
    if (payload.empty()) return 0;
    if (payload.size() == 1) return kCloseProtocolError;
    std::uint32_t code = (static_cast<std::uint8_t>(payload[0]) << 8) | static_cast<std::uint8_t>(payload[1]);
    if (!is_valid_wire_close_code(code)) return kCloseProtocolError;
    std::string_view reason = payload.substr(2);
    if (!Utf8Validator::is_valid(reason)) return kCloseInvalidPayload;
    out->code = static_cast<std::uint16_t>(code);
    out->reason = reason;
    return 0;
}

std::string make_close_payload(std::uint16_t code, std::string_view reason) {
    std::string out;
    if (code == kCloseNoStatus || code == kCloseAbnormal) return out;
    constexpr std::size_t kMaxReason = 123;  // control payloads are at most 125 bytes
    if (reason.size() > kMaxReason) {
        std::size_t n = kMaxReason;
        // Step back over continuation bytes so the cut leaves whole characters.
        while (n > 0 && (static_cast<std::uint8_t>(reason[n]) & 0xC0) == 0x80)
            --n;
        reason = reason.substr(0, n);
    }
    out.reserve(2 + reason.size());
    out.push_back(static_cast<char>(code >> 8));
    out.push_back(static_cast<char>(code & 0xFF));
    out.append(reason);
    return out;
}

}  // namespace slipstream::http::ws
