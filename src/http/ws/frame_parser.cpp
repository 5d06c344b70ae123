// FrameParser: header decoding (bytes kept across calls, at most 14) and payload slicing.
#include "http/ws/frame_parser.h"

#include <algorithm>
#include <cstring>

#include "http/ws/close_code.h"
#include "http/ws/opcode.h"

namespace slipstream::http::ws {
namespace {
FrameParser::Step need_more(std::size_t consumed) {
    FrameParser::Step s;
    s.consumed = consumed;
    return s;
}
}  // namespace

FrameParser::Step FrameParser::fail(std::uint16_t code, std::string_view reason, std::size_t consumed) {
    failed_ = true;
    Step s;
    s.event = Event::kError;
    s.consumed = consumed;
    s.close_code = code;
    s.reason = reason;
    return s;
}

FrameParser::Step FrameParser::next(std::string_view data) {
    if (failed_) return fail(kCloseProtocolError, "the connection already failed", 0);
    if (!in_payload_) return parse_header(data);
    Step s;
    if (data.empty()) return s;
    std::uint64_t left = header_.length - payload_read_;
    std::size_t take = static_cast<std::size_t>(std::min<std::uint64_t>(left, data.size()));
    s.event = Event::kPayload;
    s.consumed = take;
    s.payload = data.substr(0, take);
    s.offset = payload_read_;
    payload_read_ += take;
    if (payload_read_ == header_.length) {
        s.frame_done = true;
        in_payload_ = false;
    }
    return s;
}

FrameParser::Step FrameParser::parse_header(std::string_view data) {
    std::size_t used = 0;
    auto take = [&](std::size_t want) {
        if (head_len_ >= want) return true;
        std::size_t n = std::min<std::size_t>(want - head_len_, data.size() - used);
        std::memcpy(head_ + head_len_, data.data() + used, n);
        head_len_ = static_cast<std::uint8_t>(head_len_ + n);
        used += n;
        return head_len_ == want;
    };
    if (!take(2)) return need_more(used);

    // Checks on the first two bytes come before the rest arrives: fail fast.
    std::uint8_t b0 = head_[0], b1 = head_[1];
    FrameHeader h;
    h.fin = b0 & 0x80;
    h.rsv1 = b0 & 0x40;
    h.rsv2 = b0 & 0x20;
    h.rsv3 = b0 & 0x10;
    h.opcode = b0 & 0x0F;
    h.masked = b1 & 0x80;
    std::uint8_t len7 = b1 & 0x7F;
    if (h.rsv2 || h.rsv3 || (h.rsv1 && !options_.allow_rsv1))
        return fail(kCloseProtocolError, "reserved bit set", used);
    if (!is_known_opcode(h.opcode)) return fail(kCloseProtocolError, "reserved opcode", used);
    if (is_control_opcode(h.opcode)) {
        if (!h.fin) return fail(kCloseProtocolError, "fragmented control frame", used);
        if (len7 > 125) return fail(kCloseProtocolError, "control frame longer than 125 bytes", used);
    }
    if (h.masked != options_.expect_masked) {
        return fail(kCloseProtocolError, h.masked ? "masked frame from the server" : "unmasked frame from the client",
                    used);
    }

    std::size_t ext = len7 == 126 ? 2 : len7 == 127 ? 8 : 0;
    std::size_t total = 2 + ext + (h.masked ? 4 : 0);
    if (!take(total)) return need_more(used);

    const std::uint8_t* p = head_ + 2;
    if (len7 == 126) {
        h.length = (std::uint64_t{p[0]} << 8) | p[1];
        if (h.length < 126) return fail(kCloseProtocolError, "length not in its shortest form", used);
    } else if (len7 == 127) {
        for (int i = 0; i < 8; ++i)
            h.length = (h.length << 8) | p[i];
        if (h.length >> 63) return fail(kCloseProtocolError, "64-bit length with the top bit set", used);
        if (h.length <= 0xFFFF) return fail(kCloseProtocolError, "length not in its shortest form", used);
    } else {
        h.length = len7;
    }
    p += ext;
    if (h.masked) std::memcpy(h.mask.data(), p, 4);
    if (h.length > options_.max_payload) return fail(kCloseMessageTooBig, "frame too large", used);

    header_ = h;
    head_len_ = 0;
    payload_read_ = 0;
    in_payload_ = h.length > 0;
    Step s;
    s.event = Event::kHeader;
    s.consumed = used;
    s.frame_done = h.length == 0;
    return s;
}

void apply_mask(char* dst, const char* src, std::size_t n, const std::array<std::uint8_t, 4>& mask,
                std::uint64_t offset) {
    std::uint8_t m[8];
    for (int i = 0; i < 8; ++i)
        m[i] = mask[(offset + i) & 3];
    std::size_t i = 0;
    // Eight bytes per step with the mask rotated to this piece's phase.
    std::uint64_t m64;
    std::memcpy(&m64, m, 8);
    for (; i + 8 <= n; i += 8) {
        std::uint64_t w;
        std::memcpy(&w, src + i, 8);
        w ^= m64;
        std::memcpy(dst + i, &w, 8);
    }
    for (; i < n; ++i)
        dst[i] = static_cast<char>(src[i] ^ m[i & 7]);
}

}  // namespace slipstream::http::ws
