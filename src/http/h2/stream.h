// Stream: one HTTP/2 stream of a server session: the request as it is assembled, the response as it is sent.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "http/h2/receive_window.h"
#include "http/h2/request_checks.h"

namespace slipstream::http::h2 {
class BodySource;
}

namespace slipstream::http::h2::detail {

struct Stream {
    Stream();
    ~Stream();
    Stream(const Stream&) = delete;
    Stream& operator=(const Stream&) = delete;

    std::int32_t id = 0;

    // Request. Received fields: names and values back to back in `fields`, offsets per field.
    std::string fields;
    std::vector<std::array<std::uint32_t, 4>> regular;     // name offset, length, value offset, length
    std::array<std::array<std::uint32_t, 2>, 5> pseudo{};  // value offset and length, by detail::Pseudo
    std::size_t header_bytes = 0;                          // RFC 9113 size of the fields so far
    std::string body;
    int error_status = 0;  // 413 / 431: answered without a handler
    RequestChecks checks;
    ReceiveWindow recv_window;
    std::size_t unconsumed = 0;  // tunnel DATA bytes handed over and not yet consume()d
    bool delivered = false;      // on_request was called
    bool request_done = false;   // END_STREAM received: half-closed (remote)
    bool tunnel = false;         // an extended CONNECT: DATA goes to on_stream_data
    bool closing = false;        // our RST_STREAM is queued (or the stream is being closed): input ignored

    // Response.
    bool responded = false;  // its HEADERS was framed
    bool out_end = false;    // no body after what is queued
    bool finished = false;   // END_STREAM handed to the output
    std::string out;         // body bytes; out[out_offset..] not yet framed
    std::size_t out_offset = 0;
    std::size_t body_sent = 0;           // body bytes framed into DATA frames
    std::unique_ptr<BodySource> source;  // a body read on demand instead of `out`
    std::uint64_t source_left = 0;       // its bytes not yet framed
    std::int64_t send_window = 0;        // the peer's window for this stream
    std::uint32_t update_credit = 0;     // WINDOW_UPDATE frames for it that cost no flood token (README)
    std::uint64_t stall_mark = 0;        // reset_stalled(): body_sent + 1 when it last found it waiting, else 0

    // The session's round-robin queue of streams with DATA to send (write_queue.h).
    Stream* prev_writer = nullptr;
    Stream* next_writer = nullptr;
    bool writing = false;

    std::string_view view(std::uint32_t off, std::uint32_t len) const { return {fields.data() + off, len}; }
    std::string_view pseudo_value(Pseudo p) const {
        const auto& [off, len] = pseudo[static_cast<std::size_t>(p)];
        return view(off, len);
    }
    /// Keeps a pseudo-field's value (the field is `p`).
    void keep_pseudo(Pseudo p, std::string_view value) {
        pseudo[static_cast<std::size_t>(p)] = {static_cast<std::uint32_t>(fields.size()),
                                               static_cast<std::uint32_t>(value.size())};
        fields.append(value);
    }
    /// Keeps a regular field as given (names arrive lowercase).
    void keep_field(std::string_view name, std::string_view value) {
        const auto off = static_cast<std::uint32_t>(fields.size());
        const auto nlen = static_cast<std::uint32_t>(name.size());
        fields.append(name);
        fields.append(value);
        regular.push_back({off, nlen, off + nlen, static_cast<std::uint32_t>(value.size())});
    }
    /// Body bytes handed to respond()/write() and not yet framed.
    std::size_t queued() const { return out.size() - out_offset; }
    /// Body bytes are waiting to be framed (from `out` or the source).
    bool has_output() const { return out.size() > out_offset || source_left > 0; }

    /// Back to a fresh stream for reuse, keeping small buffers' capacity (a recycled stream allocates nothing).
    void recycle();
};

}  // namespace slipstream::http::h2::detail
