// Frame writers: the 9-byte header and the control frames the server sends, byte for byte per RFC 9113 §6.
#include "http/h2/frame.h"

#include <bit>
#include <cstring>

namespace slipstream::http::h2::detail {
namespace {

void put_u32(char* p, std::uint32_t v) {
    p[0] = static_cast<char>(v >> 24);
    p[1] = static_cast<char>(v >> 16);
    p[2] = static_cast<char>(v >> 8);
    p[3] = static_cast<char>(v);
}

void append_u32(std::string& out, std::uint32_t v) {
    char b[4];
    put_u32(b, v);
    out.append(b, 4);
}

}  // namespace

void put_frame_header(char* p, std::size_t length, FrameType type, std::uint8_t flags, std::uint32_t stream) {
    // Big-endian 24-bit length, type, flags, then the stream id with the reserved bit clear: two stores.
    const std::uint64_t head = (static_cast<std::uint64_t>(length & 0xffffff) << 40) |
                               (static_cast<std::uint64_t>(type) << 32) | (std::uint64_t{flags} << 24) |
                               ((stream & 0x7fffffffu) >> 8);
    std::uint64_t be = head;
    if constexpr (std::endian::native == std::endian::little) be = __builtin_bswap64(head);
    std::memcpy(p, &be, 8);
    p[8] = static_cast<char>(stream);
}

void append_frame_header(std::string& out, std::size_t length, FrameType type, std::uint8_t flags,
                         std::uint32_t stream) {
    char h[kFrameHeaderSize];
    put_frame_header(h, length, type, flags, stream);
    out.append(h, kFrameHeaderSize);
}

void append_settings(std::string& out, const Setting* settings, std::size_t count) {
    append_frame_header(out, count * 6, FrameType::kSettings, 0, 0);
    for (std::size_t i = 0; i < count; ++i) {
        out.push_back(static_cast<char>(settings[i].id >> 8));
        out.push_back(static_cast<char>(settings[i].id));
        append_u32(out, settings[i].value);
    }
}

void append_settings_ack(std::string& out) {
    append_frame_header(out, 0, FrameType::kSettings, kFlagAck, 0);
}

void append_ping_ack(std::string& out, std::string_view payload) {
    append_frame_header(out, payload.size(), FrameType::kPing, kFlagAck, 0);
    out.append(payload);
}

void append_window_update(std::string& out, std::uint32_t stream, std::uint32_t increment) {
    append_frame_header(out, 4, FrameType::kWindowUpdate, 0, stream);
    append_u32(out, increment & 0x7fffffffu);
}

void append_rst_stream(std::string& out, std::uint32_t stream, std::uint32_t code) {
    append_frame_header(out, 4, FrameType::kRstStream, 0, stream);
    append_u32(out, code);
}

void append_goaway(std::string& out, std::uint32_t last_stream, std::uint32_t code) {
    append_frame_header(out, 8, FrameType::kGoaway, 0, 0);
    append_u32(out, last_stream & 0x7fffffffu);
    append_u32(out, code);
}

}  // namespace slipstream::http::h2::detail
