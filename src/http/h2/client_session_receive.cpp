// ClientSession, frames in: each server frame checked (RFC 9113 §6), response heads decoded and checked (§8.3.2),
// the windows kept, SETTINGS/PING answered, GOAWAY and RST_STREAM reported to the owner.
#include <algorithm>
#include <vector>

#include "http/h2/client_session.h"

namespace slipstream::http::h2 {
namespace {

bool token_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
           std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

// RFC 9113 §8.2.1: a name of lowercase token characters; a value without NUL, CR, LF or surrounding whitespace.
const char* field_problem(std::string_view name, std::string_view value) {
    for (char c : name)
        if (!token_char(c)) return "a field name with a character HTTP/2 forbids (uppercase, space, control)";
    for (char c : value)
        if (c == '\0' || c == '\r' || c == '\n') return "a field value with NUL, CR or LF";
    if (!value.empty() &&
        (value.front() == ' ' || value.front() == '\t' || value.back() == ' ' || value.back() == '\t'))
        return "a field value with surrounding whitespace";
    return nullptr;
}

bool connection_specific(std::string_view name, std::string_view value) {
    return name == "connection" || name == "keep-alive" || name == "proxy-connection" || name == "transfer-encoding" ||
           name == "upgrade" || (name == "te" && value != "trailers");
}

std::int64_t parse_length(std::string_view v) {
    if (v.empty() || v.size() > 18) return -2;
    std::int64_t n = 0;
    for (char c : v) {
        if (c < '0' || c > '9') return -2;
        n = n * 10 + (c - '0');
    }
    return n;
}

// The payload without padding (§6.1, §6.2); false when the pad length is past the frame.
bool strip_padding(const detail::FrameHeader& h, std::string_view& payload) {
    if (!h.has(detail::kFlagPadded)) return true;
    if (payload.empty()) return false;
    std::size_t pad = static_cast<unsigned char>(payload[0]);
    payload.remove_prefix(1);
    if (pad > payload.size()) return false;
    payload.remove_suffix(pad);
    return true;
}

}  // namespace

base::Status ClientSession::receive(std::string_view bytes) {
    while (!dead_) {
        detail::FrameHeader h;
        std::string_view payload;
        switch (reader_.next(bytes, h, payload)) {
            case detail::FrameReader::Step::kNeedMore:
                return base::Status::ok();
            case detail::FrameReader::Step::kBadPreface:  // not on this side
            case detail::FrameReader::Step::kTooLarge:
                fail(ErrorCode::kFrameSizeError, "a frame larger than SETTINGS_MAX_FRAME_SIZE");
                break;
            case detail::FrameReader::Step::kFrame:
                on_frame(h, payload);
                break;
        }
    }
    std::string what = "h2: " + fail_reason_ + " (" + std::string(error_code_name(error_code_)) + ")";
    if (error_code_ == ErrorCode::kEnhanceYourCalm) return base::Status::resource_exhausted(std::move(what));
    return base::Status::invalid_argument(std::move(what));
}

void ClientSession::on_frame(const detail::FrameHeader& h, std::string_view payload) {
    const auto type = static_cast<detail::FrameType>(h.type);
    if (!got_settings_ && type != detail::FrameType::kSettings) {
        fail(ErrorCode::kProtocolError, "the server's first frame is not SETTINGS");
        return;
    }
    if (block_.open && type != detail::FrameType::kContinuation) {
        fail(ErrorCode::kProtocolError, "a frame inside a header block");
        return;
    }
    switch (type) {
        case detail::FrameType::kData:
            on_data(h, payload);
            return;
        case detail::FrameType::kHeaders:
            on_headers(h, payload);
            return;
        case detail::FrameType::kPriority:
            if (h.stream == 0) fail(ErrorCode::kProtocolError, "PRIORITY on stream 0");
            if (h.length != 5) fail(ErrorCode::kFrameSizeError, "PRIORITY of a wrong size");
            return;
        case detail::FrameType::kRstStream:
            on_rst_stream(h, payload);
            return;
        case detail::FrameType::kSettings:
            on_settings(h, payload);
            return;
        case detail::FrameType::kPushPromise:
            fail(ErrorCode::kProtocolError, "PUSH_PROMISE although push is disabled");
            return;
        case detail::FrameType::kPing:
            on_ping(h, payload);
            return;
        case detail::FrameType::kGoaway:
            on_goaway(h, payload);
            return;
        case detail::FrameType::kWindowUpdate:
            on_window_update(h, payload);
            return;
        case detail::FrameType::kContinuation:
            on_continuation(h, payload);
            return;
    }
    // Unknown frame types are ignored (§4.1).
}

void ClientSession::on_data(const detail::FrameHeader& h, std::string_view payload) {
    if (h.stream == 0 || idle_id(h.stream)) {
        fail(ErrorCode::kProtocolError, "DATA on a stream the client never opened");
        return;
    }
    // Every byte counts against the connection window, whatever the stream's fate; it is returned at once.
    if (!conn_recv_.take(h.length)) {
        fail(ErrorCode::kFlowControlError, "DATA past the connection's window");
        return;
    }
    if (std::uint32_t inc = conn_recv_.consume(h.length)) detail::append_window_update(pending_, 0, inc);
    if (!strip_padding(h, payload)) {
        fail(ErrorCode::kProtocolError, "DATA padding longer than the frame");
        return;
    }
    Stream* s = find(h.stream);
    if (s == nullptr) return;  // reset by us or ended: frames in flight are dropped
    if (!s->recv.take(h.length)) {
        stream_error(h.stream, ErrorCode::kFlowControlError, "DATA past the stream's window");
        return;
    }
    if (!s->head) {
        stream_error(h.stream, ErrorCode::kProtocolError, "DATA before the response head");
        return;
    }
    s->data_bytes += payload.size();
    if (s->content_length >= 0 && s->data_bytes > static_cast<std::uint64_t>(s->content_length)) {
        stream_error(h.stream, ErrorCode::kProtocolError, "more DATA than content-length");
        return;
    }
    // Padding is returned at once; the data when the owner consumes it.
    if (std::uint32_t inc = s->recv.consume(h.length - payload.size())) {
        detail::append_window_update(pending_, h.stream, inc);
    }
    const std::uint32_t id = h.stream;
    if (!payload.empty()) handler_.on_response_data(id, payload);
    if (!h.has(detail::kFlagEndStream) || dead_) return;
    s = find(id);  // the owner may have reset it
    if (s == nullptr) return;
    if (s->content_length >= 0 && s->data_bytes != static_cast<std::uint64_t>(s->content_length)) {
        stream_error(id, ErrorCode::kProtocolError, "less DATA than content-length");
        return;
    }
    end_stream(id);
}

void ClientSession::on_headers(const detail::FrameHeader& h, std::string_view payload) {
    if (h.stream == 0 || idle_id(h.stream)) {
        fail(ErrorCode::kProtocolError, "HEADERS on a stream the client never opened");
        return;
    }
    if (!strip_padding(h, payload)) {
        fail(ErrorCode::kProtocolError, "HEADERS padding longer than the frame");
        return;
    }
    if (h.has(detail::kFlagPriority)) {
        if (payload.size() < 5) {
            fail(ErrorCode::kFrameSizeError, "HEADERS too short for its priority");
            return;
        }
        payload.remove_prefix(5);
    }
    block_ = Block{.id = h.stream, .end_stream = h.has(detail::kFlagEndStream), .open = true, .continuations = 0};
    block_buf_.assign(payload);
    if (h.has(detail::kFlagEndHeaders)) end_block();
}

void ClientSession::on_continuation(const detail::FrameHeader& h, std::string_view payload) {
    if (!block_.open || h.stream != block_.id) {
        fail(ErrorCode::kProtocolError, "CONTINUATION without a header block in progress on its stream");
        return;
    }
    if (block_buf_.size() + payload.size() > config_.max_header_block_bytes || ++block_.continuations > 1000) {
        fail(ErrorCode::kEnhanceYourCalm, "a header block over the limit");
        return;
    }
    block_buf_.append(payload);
    if (h.has(detail::kFlagEndHeaders)) end_block();
}

// A whole header block: decoded whatever its stream's fate (the HPACK state is the connection's), then checked.
void ClientSession::end_block() {
    block_.open = false;
    fields_.clear();
    field_bytes_ = 0;
    malformed_ = nullptr;
    status_ = 0;
    regular_seen_ = false;
    field_content_length_ = -1;
    HpackStatus st = decoder_.decode(block_buf_, *this);
    block_buf_.clear();
    if (st != HpackStatus::kOk) {
        fail(ErrorCode::kCompressionError, "a header block HPACK cannot decode");
        return;
    }
    Stream* s = find(block_.id);
    if (s == nullptr) return;  // reset by us: decoded for the table only
    if (malformed_ != nullptr) {
        stream_error(block_.id, ErrorCode::kProtocolError, malformed_);
        return;
    }
    response_head(*s, block_.end_stream);
}

bool ClientSession::on_field(std::string_view name, std::string_view value) {
    field_bytes_ += name.size() + value.size() + 32;
    if (malformed_ != nullptr) return true;
    if (field_bytes_ > config_.max_header_list_size) {
        malformed_ = "a response head over SETTINGS_MAX_HEADER_LIST_SIZE";
        return true;
    }
    if (!name.empty() && name[0] == ':') {
        if (name != ":status" || regular_seen_ || status_ != 0) {
            malformed_ = "a pseudo-header other than one leading :status";
            return true;
        }
        if (value.size() != 3 || value[0] < '1' || value[0] > '5' || value[1] < '0' || value[1] > '9' ||
            value[2] < '0' || value[2] > '9') {
            malformed_ = "a :status that is not three digits 100-599";
            return true;
        }
        status_ = (value[0] - '0') * 100 + (value[1] - '0') * 10 + (value[2] - '0');
        return true;
    }
    regular_seen_ = true;
    if (name.empty()) {
        malformed_ = "an empty field name";
        return true;
    }
    if (const char* problem = field_problem(name, value)) {
        malformed_ = problem;
        return true;
    }
    if (connection_specific(name, value)) {
        malformed_ = "a connection-specific field";
        return true;
    }
    if (name == "content-length") {
        std::int64_t n = parse_length(value);
        if (n < 0 || (field_content_length_ >= 0 && n != field_content_length_)) {
            malformed_ = "a bad content-length";
            return true;
        }
        field_content_length_ = n;
    }
    fields_.emplace_back(name, value);
    return true;
}

// A decoded, well-formed block on a live stream: an interim head, the final head, or trailers.
void ClientSession::response_head(Stream& s, bool ends) {
    const std::uint32_t id = s.id;
    if (s.head) {  // trailers (§8.1): they end the stream and carry no pseudo-header
        if (!ends || status_ != 0) {
            stream_error(id, ErrorCode::kProtocolError, "a second header block that is not a trailer section");
            return;
        }
        if (s.content_length >= 0 && s.data_bytes != static_cast<std::uint64_t>(s.content_length)) {
            stream_error(id, ErrorCode::kProtocolError, "less DATA than content-length");
            return;
        }
        end_stream(id);
        return;
    }
    if (status_ == 0) {
        stream_error(id, ErrorCode::kProtocolError, "a response head without :status");
        return;
    }
    if (status_ < 200) {
        if (status_ == 101 || ends) {
            stream_error(id, ErrorCode::kProtocolError, "a 101 or an interim head that ends the stream");
        }
        return;  // 100, 103: the final head follows
    }
    s.head = true;
    // A response without content (to HEAD, 204, 304) may carry the Content-Length of the one it stands for.
    s.content_length = s.no_content || status_ == 204 || status_ == 304 ? -1 : field_content_length_;
    std::vector<HeaderField> views;
    views.reserve(fields_.size());
    for (const auto& [n, v] : fields_)
        views.push_back({n, v});
    handler_.on_response_head(id, status_, views);
    if (!ends || dead_) return;
    Stream* again = find(id);
    if (again == nullptr) return;
    if (again->content_length > 0) {
        stream_error(id, ErrorCode::kProtocolError, "less DATA than content-length");
        return;
    }
    end_stream(id);
}

void ClientSession::on_rst_stream(const detail::FrameHeader& h, std::string_view payload) {
    if (h.length != 4) {
        fail(ErrorCode::kFrameSizeError, "RST_STREAM of a wrong size");
        return;
    }
    if (h.stream == 0 || idle_id(h.stream)) {
        fail(ErrorCode::kProtocolError, "RST_STREAM on a stream the client never opened");
        return;
    }
    if (find(h.stream) == nullptr) return;
    auto code = static_cast<ErrorCode>(detail::read_u32(payload.data()));
    forget(h.stream);
    ClientStreamError e{.code = code,
                        .unprocessed = code == ErrorCode::kRefusedStream,
                        .remote = true,
                        .reason = "the server reset the stream"};
    handler_.on_stream_error(h.stream, e);
}

void ClientSession::on_settings(const detail::FrameHeader& h, std::string_view payload) {
    if (h.stream != 0) {
        fail(ErrorCode::kProtocolError, "SETTINGS on a stream");
        return;
    }
    if (h.has(detail::kFlagAck)) {
        if (h.length != 0) fail(ErrorCode::kFrameSizeError, "a SETTINGS acknowledgement with a payload");
        if (!got_settings_) fail(ErrorCode::kProtocolError, "the server's first frame is not SETTINGS");
        return;
    }
    if (h.length % 6 != 0) {
        fail(ErrorCode::kFrameSizeError, "SETTINGS of a wrong size");
        return;
    }
    for (std::size_t at = 0; at < payload.size(); at += 6) {
        const std::uint16_t id = detail::read_u16(payload.data() + at);
        const std::uint32_t v = detail::read_u32(payload.data() + at + 2);
        switch (id) {
            case detail::kSettingHeaderTableSize:
                encoder_.set_peer_table_size(v);
                break;
            case detail::kSettingEnablePush:
                if (v != 0) {
                    fail(ErrorCode::kProtocolError, "a server's SETTINGS_ENABLE_PUSH other than 0");
                    return;
                }
                break;
            case detail::kSettingMaxConcurrentStreams:
                peer_max_streams_ = v;
                break;
            case detail::kSettingInitialWindowSize: {
                if (v > detail::kMaxWindow) {
                    fail(ErrorCode::kFlowControlError, "SETTINGS_INITIAL_WINDOW_SIZE over 2^31-1");
                    return;
                }
                const std::int64_t delta = static_cast<std::int64_t>(v) - peer_initial_window_;
                peer_initial_window_ = v;
                for (auto& [sid, s] : streams_) {
                    s->send_window += delta;
                    if (s->send_window > detail::kMaxWindow) {
                        fail(ErrorCode::kFlowControlError, "a stream window over 2^31-1");
                        return;
                    }
                    schedule(*s);
                }
                break;
            }
            case detail::kSettingMaxFrameSize:
                if (v < detail::kDefaultMaxFrameSize || v > detail::kLargestMaxFrameSize) {
                    fail(ErrorCode::kProtocolError, "SETTINGS_MAX_FRAME_SIZE out of range");
                    return;
                }
                peer_max_frame_ = v;
                break;
            default:
                break;  // MAX_HEADER_LIST_SIZE is advisory; unknown settings are ignored (§6.5.2)
        }
    }
    got_settings_ = true;
    if (queue_control()) detail::append_settings_ack(pending_);
}

void ClientSession::on_ping(const detail::FrameHeader& h, std::string_view payload) {
    if (h.stream != 0) {
        fail(ErrorCode::kProtocolError, "PING on a stream");
        return;
    }
    if (h.length != 8) {
        fail(ErrorCode::kFrameSizeError, "PING of a wrong size");
        return;
    }
    if (!h.has(detail::kFlagAck) && queue_control()) detail::append_ping_ack(pending_, payload);
}

void ClientSession::on_goaway(const detail::FrameHeader& h, std::string_view payload) {
    if (h.stream != 0) {
        fail(ErrorCode::kProtocolError, "GOAWAY on a stream");
        return;
    }
    if (h.length < 8) {
        fail(ErrorCode::kFrameSizeError, "GOAWAY too short");
        return;
    }
    const std::uint32_t last = detail::read_u32(payload.data()) & 0x7fffffffu;
    const auto code = static_cast<ErrorCode>(detail::read_u32(payload.data() + 4));
    goaway_received_ = true;
    std::vector<std::uint32_t> refused;
    for (const auto& [id, s] : streams_)
        if (id > last) refused.push_back(id);
    std::sort(refused.begin(), refused.end());
    for (std::uint32_t id : refused) {
        if (find(id) == nullptr) continue;
        forget(id);
        handler_.on_stream_error(
            id, {.code = ErrorCode::kRefusedStream, .unprocessed = true, .remote = true, .reason = "GOAWAY"});
        if (dead_) return;
    }
    handler_.on_goaway(last, code);
}

void ClientSession::on_window_update(const detail::FrameHeader& h, std::string_view payload) {
    if (h.length != 4) {
        fail(ErrorCode::kFrameSizeError, "WINDOW_UPDATE of a wrong size");
        return;
    }
    const std::uint32_t inc = detail::read_u32(payload.data()) & 0x7fffffffu;
    if (h.stream == 0) {
        if (inc == 0) {
            fail(ErrorCode::kProtocolError, "a WINDOW_UPDATE of 0 for the connection");
            return;
        }
        conn_send_window_ += inc;
        if (conn_send_window_ > detail::kMaxWindow)
            fail(ErrorCode::kFlowControlError, "the connection window overflowed");
        return;
    }
    if (idle_id(h.stream)) {
        fail(ErrorCode::kProtocolError, "WINDOW_UPDATE on a stream the client never opened");
        return;
    }
    Stream* s = find(h.stream);
    if (s == nullptr) return;
    if (inc == 0) {
        stream_error(h.stream, ErrorCode::kProtocolError, "a WINDOW_UPDATE of 0");
        return;
    }
    s->send_window += inc;
    if (s->send_window > detail::kMaxWindow) {
        stream_error(h.stream, ErrorCode::kFlowControlError, "a stream window overflowed");
        return;
    }
    schedule(*s);
}

// ---- endings ----

void ClientSession::end_stream(std::uint32_t id) {
    Stream* s = find(id);
    if (s == nullptr) return;
    // The response is complete before the request body (§8.1): the rest of the body is not wanted.
    if (!s->local_ended) detail::append_rst_stream(pending_, id, static_cast<std::uint32_t>(ErrorCode::kNoError));
    forget(id);
    handler_.on_response_end(id);
}

void ClientSession::stream_error(std::uint32_t id, ErrorCode code, const char* reason) {
    if (find(id) == nullptr) return;
    detail::append_rst_stream(pending_, id, static_cast<std::uint32_t>(code));
    forget(id);
    handler_.on_stream_error(id, {.code = code, .unprocessed = false, .remote = false, .reason = reason});
}

bool ClientSession::queue_control() {
    if (++control_queued_ <= config_.max_queued_control_frames) return true;
    fail(ErrorCode::kEnhanceYourCalm, "too many SETTINGS and PING frames left unanswered (the server does not read)");
    return false;
}

void ClientSession::fail(ErrorCode code, const char* reason) {
    if (dead_) return;
    dead_ = true;
    error_code_ = code;
    fail_reason_ = reason;
    if (!goaway_sent_) {
        goaway_sent_ = true;
        detail::append_goaway(pending_, 0, static_cast<std::uint32_t>(code));
    }
    writers_.clear();
    std::vector<std::uint32_t> ids;
    for (const auto& [id, s] : streams_)
        ids.push_back(id);
    std::sort(ids.begin(), ids.end());
    streams_.clear();
    for (std::uint32_t id : ids)
        handler_.on_stream_error(id, {.code = code, .unprocessed = false, .remote = false, .reason = reason});
}

}  // namespace slipstream::http::h2
