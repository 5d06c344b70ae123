// MessageReader: turns a client's bytes into whole messages and control frames, with every receive-side check.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "http/ws/frame_parser.h"
#include "http/ws/inflater.h"
#include "http/ws/utf8_validator.h"

namespace slipstream::http::ws {

struct MessageReaderOptions {
    bool expect_masked = true;                  // a server reads masked client frames
    std::uint64_t max_message_bytes = 1 << 20;  // after reassembly and inflation: 1009 past it
    std::uint64_t max_frame_bytes = 1 << 20;    // one frame's payload as sent: 1009 past it
    bool deflate = false;                       // permessage-deflate was negotiated
    bool reset_inflate_each_message = false;    // the client's no_context_takeover
};

/// Reassembles fragmented messages (control frames may come between fragments), validates text as
/// UTF-8 as it arrives (failing at the first bad byte, 1007), inflates compressed messages under the
/// size cap, and parses close payloads. After an error the reader stays failed; the caller sends a
/// close frame with the error's code and closes. Loop-thread object; not thread-safe.
class MessageReader {
  public:
    enum class Kind : std::uint8_t {
        kNeedMore,  // every byte given was consumed
        kText,      // data: the whole message (valid UTF-8)
        kBinary,    // data: the whole message
        kPing,      // data: the payload (answer with a pong carrying it)
        kPong,      // data: the payload
        kClose,     // close_code (1005 when absent) and data: the reason
        kError,     // close_code to fail the connection with, data: the reason
    };
    struct Event {
        Kind kind = Kind::kNeedMore;
        std::size_t consumed = 0;  // bytes of the input used for this event
        std::string_view data;     // valid until the next read()
        std::uint16_t close_code = 0;
        bool compressed = false;  // the message arrived deflated
    };

    explicit MessageReader(MessageReaderOptions options);
    ~MessageReader();

    /// Consumes input until one event is complete; call again with the rest (data.substr(consumed)).
    Event read(std::string_view data);
    bool failed() const { return failed_; }

  private:
    Event on_header(std::size_t consumed);
    Event on_payload(const FrameParser::Step& step);
    Event finish_frame(std::size_t consumed);
    Event fail(std::uint16_t code, std::string_view reason, std::size_t consumed);
    Event append_data(std::string_view unmasked, std::size_t consumed);

    MessageReaderOptions options_;
    FrameParser parser_;
    std::unique_ptr<Inflater> inflater_;  // set when deflate was negotiated
    Utf8Validator utf8_;
    std::string message_;              // the data message being assembled (inflated when compressed)
    std::string control_;              // the current control frame's payload (at most 125 bytes)
    std::string scratch_;              // an unmasked piece of compressed payload
    std::uint8_t message_opcode_ = 0;  // 0 when no data message is in progress
    bool message_compressed_ = false;
    bool frame_is_control_ = false;
    bool clear_message_ = false;  // message_ was handed out: drop it at the next read()
    bool failed_ = false;
    std::string_view error_reason_;
};

}  // namespace slipstream::http::ws
