// Stream: recycling for reuse (the buffers keep their capacity up to a bound).
#include "http/h2/stream.h"

#include "http/h2/session.h"

namespace slipstream::http::h2::detail {

Stream::Stream() = default;
Stream::~Stream() = default;

void Stream::recycle() {
    static constexpr std::size_t kKeepBytes = 4096;
    auto keep_small = [](std::string& s) {
        if (s.capacity() > kKeepBytes) std::string().swap(s);
        s.clear();
    };
    id = 0;
    fields.clear();
    regular.clear();
    pseudo = {};
    header_bytes = 0;
    keep_small(body);
    error_status = 0;
    checks = {};
    recv_window = {};
    unconsumed = 0;
    delivered = request_done = tunnel = closing = false;
    responded = out_end = finished = false;
    keep_small(out);
    out_offset = 0;
    body_sent = 0;
    source.reset();
    source_left = 0;
    send_window = 0;
    update_credit = 0;
    stall_mark = 0;
    prev_writer = next_writer = nullptr;
    writing = false;
}

}  // namespace slipstream::http::h2::detail
