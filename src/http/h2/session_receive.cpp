// ServerSession, frames in: RFC 9113 §6 frame by frame (DATA, PRIORITY, RST_STREAM, SETTINGS, PING, GOAWAY,
// WINDOW_UPDATE), flow control of what the client sends, and the flood budgets.
#include <algorithm>
#include <string>

#include "http/h2/session.h"

namespace slipstream::http::h2 {

using detail::FrameHeader;
using detail::FrameType;

base::Status ServerSession::receive(std::string_view bytes, base::MonoNanos now) {
    if (fatal_) return base::Status::cancelled("h2: session already failed");
    if (terminated_) return base::Status::ok();  // after terminate(): input is ignored
    now_ = now;
    FrameHeader h;
    std::string_view payload;
    while (!fatal_) {
        auto step = reader_.next(bytes, h, payload);
        if (step == detail::FrameReader::Step::kNeedMore) break;
        if (step == detail::FrameReader::Step::kBadPreface) {
            fail(ErrorCode::kProtocolError, "the client connection preface is wrong");
        } else if (step == detail::FrameReader::Step::kTooLarge) {
            fail(ErrorCode::kFrameSizeError, "a frame larger than SETTINGS_MAX_FRAME_SIZE");
        } else {
            on_frame(h, payload);
        }
    }
    if (!fatal_) return base::Status::ok();
    std::string reason =
        std::string("h2: ") + fail_reason_ + " (GOAWAY " + std::string(error_code_name(error_code_)) + ")";
    if (error_code_ == ErrorCode::kEnhanceYourCalm) return base::Status::resource_exhausted(std::move(reason));
    return base::Status::invalid_argument(std::move(reason));
}

void ServerSession::on_frame(const FrameHeader& h, std::string_view payload) {
    auto type = static_cast<FrameType>(h.type);
    if (block_.open && type != FrameType::kContinuation) {
        return fail(ErrorCode::kProtocolError, "a frame inside a header block");  // §6.10
    }
    if (!got_settings_) {
        if (type != FrameType::kSettings || h.has(detail::kFlagAck)) {
            return fail(ErrorCode::kProtocolError, "the client preface does not start with SETTINGS");  // §3.4
        }
        got_settings_ = true;
    }
    if (!within_budgets(h)) return;
    switch (type) {
        case FrameType::kData:
            return on_data(h, payload);
        case FrameType::kHeaders:
            return on_headers(h, payload);
        case FrameType::kPriority:
            return on_priority(h, payload);
        case FrameType::kRstStream:
            return on_rst_stream(h, payload);
        case FrameType::kSettings:
            return on_settings(h, payload);
        case FrameType::kPushPromise:
            return fail(ErrorCode::kProtocolError, "PUSH_PROMISE from a client");  // §8.4
        case FrameType::kPing:
            return on_ping(h, payload);
        case FrameType::kGoaway:
            return on_goaway(h, payload);
        case FrameType::kWindowUpdate:
            return on_window_update(h, payload);
        case FrameType::kContinuation:
            return on_continuation(h, payload);
    }
    // Unknown frame types are ignored (§4.1, §5.5).
}

// The flood defences (README "Defences"): RST_STREAM frames and frames that cost work but carry nothing.
bool ServerSession::within_budgets(const FrameHeader& h) {
    bool control = false;
    switch (static_cast<FrameType>(h.type)) {
        case FrameType::kHeaders:
        case FrameType::kContinuation:
            control = h.length == 0 && !h.has(detail::kFlagEndHeaders);
            break;
        case FrameType::kData:
            control = h.length == 0 && !h.has(detail::kFlagEndStream);
            break;
        case FrameType::kPing:
        case FrameType::kSettings:
            control = !h.has(detail::kFlagAck);
            break;
        case FrameType::kPriority:
            control = true;
            break;
        case FrameType::kRstStream:
            if (!resets_.take(now_)) {
                flood(FloodKind::kRapidReset, "too many RST_STREAM frames");
                return false;
            }
            break;
        default:
            break;
    }
    if (control && !control_.take(now_)) {
        flood(FloodKind::kControlFrames, "too many control or empty frames");
        return false;
    }
    return true;
}

// WINDOW_UPDATE frames cost a control token unless they answer DATA we sent: each DATA frame framed earns its
// stream and the connection one free update (and each stream, and the connection, one to open its window
// first), so a client that acknowledges every frame, or batches, never pays, while a flood of updates
// (window increments of 1, updates on closed streams) empties the control bucket like a PING flood.
bool ServerSession::window_update_allowed(std::uint32_t& credit) {
    if (credit > 0) {
        --credit;
        return true;
    }
    if (control_.take(now_)) return true;
    flood(FloodKind::kControlFrames, "too many WINDOW_UPDATE frames");
    return false;
}

// ---- DATA (§6.1) ----

void ServerSession::on_data(const FrameHeader& h, std::string_view payload) {
    if (h.stream == 0) return fail(ErrorCode::kProtocolError, "DATA on stream 0");
    std::string_view data = payload;
    if (h.has(detail::kFlagPadded)) {
        if (data.empty() || static_cast<unsigned char>(data[0]) >= data.size()) {
            return fail(ErrorCode::kProtocolError, "DATA padding as long as the frame");
        }
        data = data.substr(1, data.size() - 1 - static_cast<unsigned char>(data[0]));
    }
    auto id = static_cast<StreamId>(h.stream);
    Stream* s = streams_.find(id);
    if (s == nullptr && ids_.never_opened(id)) {
        return fail(ErrorCode::kProtocolError, "DATA on an idle stream");
    }
    // The whole frame, padding included, counts against the connection's window (§6.9.1), whatever the stream.
    if (!conn_recv_.take(h.length)) return fail(ErrorCode::kFlowControlError, "DATA past the connection window");
    if (s == nullptr || s->closing || s->request_done) {
        consume_connection(h.length);
        if (s != nullptr && !s->closing) {
            reset_stream(*s, ErrorCode::kStreamClosed);  // half-closed (remote)
        } else if (s == nullptr && ids_.classify(id) != detail::ClientStreamIds::Kind::kResetByUs) {
            stream_error(id, ErrorCode::kStreamClosed);
        }
        return;
    }
    if (!s->recv_window.take(h.length)) {
        consume_connection(h.length);
        return reset_stream(*s, ErrorCode::kFlowControlError);
    }
    on_stream_data_frame(*s, h, data);
}

void ServerSession::on_stream_data_frame(Stream& s, const FrameHeader& h, std::string_view data) {
    const bool end = h.has(detail::kFlagEndStream);
    if (!s.checks.data(data.size())) {
        consume_connection(h.length);
        return reset_stream(s, ErrorCode::kProtocolError);  // more than its content-length
    }
    if (s.tunnel && s.delivered) {
        // The owner returns these bytes with consume() as it processes them; the padding goes back now.
        consume_stream(s, h.length - data.size());
        s.unconsumed += data.size();
        if (!data.empty()) handler_.on_stream_data(s.id, data);
    } else {
        // A request body is bounded by max_body_bytes: its bytes reopen the windows at once.
        if (end) s.request_done = true;  // no stream WINDOW_UPDATE for a stream that ends here
        consume_stream(s, h.length);
        if (!s.delivered) {
            if (s.body.size() + data.size() > config_.max_body_bytes) {
                s.error_status = 413;
                std::string().swap(s.body);
                deliver(s);
            } else {
                s.body.append(data);
            }
        }
    }
    if (!end || s.closing) return;
    if (!s.checks.end()) return reset_stream(s, ErrorCode::kProtocolError);  // shorter than its content-length
    s.request_done = true;
    if (!s.delivered) deliver(s);
    if (s.tunnel && !s.closing) handler_.on_stream_end(s.id);  // the client's side of the tunnel is done
}

void ServerSession::consume_connection(std::size_t n) {
    if (std::uint32_t inc = conn_recv_.consume(n); inc > 0 && !terminated_) {
        detail::append_window_update(pending_, 0, inc);
        count_control();
    }
}

void ServerSession::consume_stream(Stream& s, std::size_t n) {
    consume_connection(n);
    if (n == 0 || s.request_done || s.closing || terminated_) return;  // no more DATA will come on it
    if (std::uint32_t inc = s.recv_window.consume(n); inc > 0) {
        detail::append_window_update(pending_, static_cast<std::uint32_t>(s.id), inc);
        count_control();
    }
}

// ---- PRIORITY (§6.3), RST_STREAM (§6.4) ----

void ServerSession::on_priority(const FrameHeader& h, std::string_view payload) {
    if (h.stream == 0) return fail(ErrorCode::kProtocolError, "PRIORITY on stream 0");
    auto id = static_cast<StreamId>(h.stream);
    if (payload.size() != 5) return reset_id(id, ErrorCode::kFrameSizeError);
    if ((detail::read_u32(payload.data()) & 0x7fffffffu) != h.stream) return;  // priorities are not used
    reset_id(id, ErrorCode::kProtocolError);  // a stream cannot depend on itself (RFC 7540 §5.3.1)
}

void ServerSession::on_rst_stream(const FrameHeader& h, std::string_view payload) {
    if (payload.size() != 4) return fail(ErrorCode::kFrameSizeError, "RST_STREAM of a length other than 4");
    if (h.stream == 0) return fail(ErrorCode::kProtocolError, "RST_STREAM on stream 0");
    auto id = static_cast<StreamId>(h.stream);
    Stream* s = streams_.find(id);
    if (s == nullptr && ids_.never_opened(id)) {
        return fail(ErrorCode::kProtocolError, "RST_STREAM on an idle stream");
    }
    ++stats_.rst_received[SessionStats::code_index(detail::read_u32(payload.data()))];
    ++stats_.events;
    if (s == nullptr) return;  // closed streams: ignored
    ids_.note_client_reset(id);
    close_stream(*s);
}

// ---- SETTINGS (§6.5) ----

void ServerSession::on_settings(const FrameHeader& h, std::string_view payload) {
    if (h.stream != 0) return fail(ErrorCode::kProtocolError, "SETTINGS on a stream");
    if (h.has(detail::kFlagAck)) {
        if (!payload.empty()) return fail(ErrorCode::kFrameSizeError, "SETTINGS ACK with a payload");
        if (settings_acked_) return;
        // Our SETTINGS_INITIAL_WINDOW_SIZE now holds: every open stream's window changes by the difference.
        settings_acked_ = true;
        local_initial_window_ = config_.initial_window_size;
        for (std::size_t i = 0; i < streams_.size(); ++i) {
            Stream& s = streams_.at(i);
            std::uint32_t inc = s.recv_window.resize(local_initial_window_);
            if (inc > 0 && !s.request_done && !s.closing) {
                detail::append_window_update(pending_, static_cast<std::uint32_t>(s.id), inc);
                count_control();
            }
        }
        return;
    }
    if (payload.size() % 6 != 0) return fail(ErrorCode::kFrameSizeError, "SETTINGS of a length not a multiple of 6");
    ErrorCode error = apply_settings(payload);
    if (error != ErrorCode::kNoError) return fail(error, "a SETTINGS value out of its range");
    detail::append_settings_ack(pending_);
    count_control();
}

ErrorCode ServerSession::apply_settings(std::string_view payload) {
    for (std::size_t i = 0; i + 6 <= payload.size(); i += 6) {
        std::uint16_t id = detail::read_u16(payload.data() + i);
        std::uint32_t v = detail::read_u32(payload.data() + i + 2);
        switch (id) {
            case detail::kSettingHeaderTableSize:
                encoder_.set_peer_table_size(v);
                break;
            case detail::kSettingEnablePush:
            case detail::kSettingEnableConnectProtocol:
                if (v > 1) return ErrorCode::kProtocolError;
                break;
            case detail::kSettingInitialWindowSize: {
                if (v > detail::kMaxWindow) return ErrorCode::kFlowControlError;
                std::int64_t delta = static_cast<std::int64_t>(v) - peer_initial_window_;
                peer_initial_window_ = v;
                for (std::size_t k = 0; k < streams_.size(); ++k) {
                    Stream& s = streams_.at(k);
                    s.send_window += delta;
                    if (s.send_window > detail::kMaxWindow) return ErrorCode::kFlowControlError;
                    if (s.send_window <= 0) {
                        writers_.remove(s);  // want_write() stays exact: WINDOW_UPDATE schedules it again
                    } else {
                        schedule(s);
                    }
                }
                break;
            }
            case detail::kSettingMaxFrameSize:
                if (v < detail::kDefaultMaxFrameSize || v > detail::kLargestMaxFrameSize) {
                    return ErrorCode::kProtocolError;
                }
                peer_max_frame_ = v;
                break;
            default:
                break;  // MAX_CONCURRENT_STREAMS and MAX_HEADER_LIST_SIZE bind a server little; unknown: ignored
        }
    }
    return ErrorCode::kNoError;
}

// ---- PING (§6.7), GOAWAY (§6.8), WINDOW_UPDATE (§6.9) ----

void ServerSession::on_ping(const FrameHeader& h, std::string_view payload) {
    if (payload.size() != 8) return fail(ErrorCode::kFrameSizeError, "PING of a length other than 8");
    if (h.stream != 0) return fail(ErrorCode::kProtocolError, "PING on a stream");
    if (h.has(detail::kFlagAck)) return;
    detail::append_ping_ack(pending_, payload);
    count_control();
}

void ServerSession::on_goaway(const FrameHeader& h, std::string_view payload) {
    if (h.stream != 0) return fail(ErrorCode::kProtocolError, "GOAWAY on a stream");
    if (payload.size() < 8) return fail(ErrorCode::kFrameSizeError, "GOAWAY shorter than 8 bytes");
    goaway_received_ = true;  // no new streams; done() once the open ones finish
}

void ServerSession::on_window_update(const FrameHeader& h, std::string_view payload) {
    if (payload.size() != 4) return fail(ErrorCode::kFrameSizeError, "WINDOW_UPDATE of a length other than 4");
    std::uint32_t increment = detail::read_u32(payload.data()) & 0x7fffffffu;
    if (h.stream == 0) {
        if (!window_update_allowed(conn_update_credit_)) return;
        if (increment == 0) return fail(ErrorCode::kProtocolError, "WINDOW_UPDATE of 0 on the connection");
        conn_send_window_ += increment;
        if (conn_send_window_ > detail::kMaxWindow) {
            return fail(ErrorCode::kFlowControlError, "the connection window past 2^31-1");
        }
        return;
    }
    auto id = static_cast<StreamId>(h.stream);
    Stream* s = streams_.find(id);
    if (s == nullptr && ids_.never_opened(id)) {
        return fail(ErrorCode::kProtocolError, "WINDOW_UPDATE on an idle stream");
    }
    std::uint32_t no_credit = 0;  // a closed stream's updates earn nothing
    if (!window_update_allowed(s != nullptr ? s->update_credit : no_credit)) return;
    if (increment == 0) return reset_id(id, ErrorCode::kProtocolError);
    if (s == nullptr || s->closing) return;  // closed: ignored
    s->send_window += increment;
    if (s->send_window > detail::kMaxWindow) return reset_stream(*s, ErrorCode::kFlowControlError);
    schedule(*s);
}

}  // namespace slipstream::http::h2
