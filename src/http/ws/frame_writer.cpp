// Frame writer: the shortest length encoding, optional masking.
#include "http/ws/frame_writer.h"

#include "http/ws/close_code.h"
#include "http/ws/frame_parser.h"

namespace slipstream::http::ws {

std::size_t encode_frame_header(Opcode opcode, std::uint64_t payload_len, const FrameOptions& options,
                                char out[kMaxFrameHeader]) {
    std::uint8_t b0 = static_cast<std::uint8_t>(opcode) | (options.fin ? 0x80 : 0) | (options.rsv1 ? 0x40 : 0);
    std::uint8_t mask_bit = options.mask ? 0x80 : 0;
    std::size_t n = 2;
    out[0] = static_cast<char>(b0);
    if (payload_len < 126) {
        out[1] = static_cast<char>(mask_bit | payload_len);
    } else if (payload_len <= 0xFFFF) {
        out[1] = static_cast<char>(mask_bit | 126);
        out[2] = static_cast<char>(payload_len >> 8);
        out[3] = static_cast<char>(payload_len & 0xFF);
        n = 4;
    } else {
        out[1] = static_cast<char>(mask_bit | 127);
        for (int i = 0; i < 8; ++i)
            out[2 + i] = static_cast<char>(payload_len >> (56 - 8 * i));
        n = 10;
    }
    if (options.mask) {
        for (int i = 0; i < 4; ++i)
            out[n + i] = static_cast<char>((*options.mask)[i]);
        n += 4;
    }
    return n;
}

void append_frame(std::string& out, Opcode opcode, std::string_view payload, const FrameOptions& options) {
    char head[kMaxFrameHeader];
    std::size_t n = encode_frame_header(opcode, payload.size(), options, head);
    std::size_t start = out.size();
    out.reserve(start + n + payload.size());
    out.append(head, n);
    out.append(payload);
    if (options.mask) apply_mask(out.data() + start + n, out.data() + start + n, payload.size(), *options.mask, 0);
}

void append_close_frame(std::string& out, std::uint16_t code, std::string_view reason, const FrameOptions& options) {
    append_frame(out, Opcode::kClose, make_close_payload(code, reason), options);
}

}  // namespace slipstream::http::ws
