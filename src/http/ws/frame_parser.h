// FrameParser: incremental, zero-copy WebSocket frame decoder with the per-frame protocol checks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "http/ws/frame_header.h"

namespace slipstream::http::ws {

struct FrameParserOptions {
    /// Frames from a client must be masked, frames from a server must not be (RFC 6455 §5.1).
    bool expect_masked = true;
    /// RSV1 may be set (permessage-deflate was negotiated); whether it is allowed on a particular
    /// frame is the message layer's check.
    bool allow_rsv1 = false;
    /// Largest payload of one frame; a larger declared length fails with 1009 before any payload is read.
    std::uint64_t max_payload = 1 << 20;
};

/// Feed bytes in any split; each call returns one step. Payload is handed out as views into the input
/// (still masked: see apply_mask), so nothing is copied here. After an error the parser stays failed.
///
/// Checks: reserved bits, reserved opcodes, control frames fragmented or longer than 125 bytes, a mask
/// that is missing (from clients) or present (from servers), a 64-bit length with its top bit set,
/// lengths not in their shortest form, and max_payload.
class FrameParser {
  public:
    enum class Event : std::uint8_t {
        kNeedMore,  // every byte given was consumed; feed more
        kHeader,    // a frame header was decoded: header()
        kPayload,   // a piece of the current frame's payload: Step::payload at Step::offset
        kError,     // protocol violation: Step::close_code and Step::reason
    };
    struct Step {
        Event event = Event::kNeedMore;
        std::size_t consumed = 0;
        std::string_view payload;  // kPayload: raw (masked) bytes
        std::uint64_t offset = 0;  // kPayload: position of the piece within the frame's payload
        bool frame_done = false;   // kHeader of an empty frame, or kPayload holding the last byte
        std::uint16_t close_code = 0;
        std::string_view reason;
    };

    explicit FrameParser(FrameParserOptions options = {}) : options_(options) {}

    Step next(std::string_view data);
    /// The header of the frame being read (valid from its kHeader step until the next header).
    const FrameHeader& header() const { return header_; }
    void set_allow_rsv1(bool on) { options_.allow_rsv1 = on; }
    bool failed() const { return failed_; }

  private:
    Step parse_header(std::string_view data);
    Step fail(std::uint16_t code, std::string_view reason, std::size_t consumed);

    FrameParserOptions options_;
    FrameHeader header_;
    std::uint8_t head_[14];
    std::uint8_t head_len_ = 0;
    bool in_payload_ = false;
    bool failed_ = false;
    std::uint64_t payload_read_ = 0;
};

/// XORs `n` bytes from `src` with the mask into `dst` (may equal `src`), starting at payload offset `offset`.
void apply_mask(char* dst, const char* src, std::size_t n, const std::array<std::uint8_t, 4>& mask,
                std::uint64_t offset);

}  // namespace slipstream::http::ws
