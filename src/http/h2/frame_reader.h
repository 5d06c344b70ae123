// FrameReader: the client connection preface, then whole frames cut from received bytes (partial ones buffered).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "http/h2/frame.h"

namespace slipstream::http::h2::detail {

/// Cuts the byte stream of a connection into frames (RFC 9113 §3.4, §4.1). A frame that arrives in pieces is
/// kept until it is whole, so the buffer never holds more than one frame (at most 9 + max_frame_size bytes).
class FrameReader {
  public:
    enum class Step : std::uint8_t {
        kFrame,       // `header` and `payload` hold one frame
        kNeedMore,    // every byte was taken; a frame (or the preface) is incomplete
        kBadPreface,  // the client preface is wrong (a connection error: PROTOCOL_ERROR)
        kTooLarge,    // a frame longer than our SETTINGS_MAX_FRAME_SIZE (FRAME_SIZE_ERROR)
    };

    explicit FrameReader(std::uint32_t max_frame_size = kDefaultMaxFrameSize) : max_frame_size_(max_frame_size) {}

    /// A reader for the client side of a connection: the server sends no preface of bytes (its preface is a
    /// SETTINGS frame), so frames start at once.
    static FrameReader without_preface(std::uint32_t max_frame_size = kDefaultMaxFrameSize) {
        FrameReader r(max_frame_size);
        r.preface_seen_ = kClientPreface.size();
        return r;
    }

    /// Takes bytes from the front of `input`. `payload` views `input` or the reader's buffer: valid until
    /// the next call.
    Step next(std::string_view& input, FrameHeader& header, std::string_view& payload);

  private:
    Step from_partial(std::string_view& input, FrameHeader& header, std::string_view& payload);

    std::uint32_t max_frame_size_;
    std::size_t preface_seen_ = 0;
    std::string partial_;          // the start of a frame that has not fully arrived
    bool partial_handed_ = false;  // `partial_` was returned as a frame: cleared on the next call
};

}  // namespace slipstream::http::h2::detail
