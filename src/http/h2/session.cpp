// ServerSession: creation (the server preface), the h2c upgrade, and the owner's calls (answers, resets,
// consumption of tunnel bytes, shutdown).
#include "http/h2/session.h"

#include <algorithm>

#include "http/h2/field_case.h"
#include "http/h2/settings_header.h"

namespace slipstream::http::h2 {

ServerSession::ServerSession(const SessionConfig& config, SessionHandler& handler)
    : config_(config),
      handler_(handler),
      resets_(config.reset_burst, config.reset_rate),
      control_(config.control_burst, config.control_rate),
      conn_recv_(std::max<std::int64_t>(config.connection_window_size, detail::kDefaultWindow)) {}

ServerSession::~ServerSession() = default;

base::Result<std::unique_ptr<ServerSession>> ServerSession::create(const SessionConfig& config,
                                                                   SessionHandler& handler) {
    std::unique_ptr<ServerSession> s(new ServerSession(config, handler));
    const detail::Setting settings[] = {
        {detail::kSettingMaxConcurrentStreams, config.max_concurrent_streams},
        {detail::kSettingInitialWindowSize, std::min<std::uint32_t>(config.initial_window_size, detail::kMaxWindow)},
        {detail::kSettingMaxHeaderListSize, config.max_header_list_size},
        {detail::kSettingEnableConnectProtocol, 1},  // extended CONNECT: WebSocket over HTTP/2 (RFC 8441)
    };
    detail::append_settings(s->pending_, settings, std::size(settings));
    if (config.connection_window_size > detail::kDefaultWindow) {
        detail::append_window_update(
            s->pending_, 0,
            std::min<std::uint32_t>(config.connection_window_size, detail::kMaxWindow) - detail::kDefaultWindow);
    }
    return s;
}

namespace {
// Fields of the HTTP/1.1 upgrade request that belong to that connection only (RFC 9113 §8.2.2).
bool connection_specific(std::string_view lowercase_name) {
    return lowercase_name == "connection" || lowercase_name == "upgrade" || lowercase_name == "http2-settings" ||
           lowercase_name == "keep-alive" || lowercase_name == "proxy-connection" ||
           lowercase_name == "transfer-encoding" || lowercase_name == "te";
}
}  // namespace

base::Status ServerSession::upgrade(std::string_view http2_settings, const RequestHead& request) {
    base::Result<std::string> payload = decode_settings_header(http2_settings);
    if (!payload.is_ok()) return payload.status();
    // The values were range-checked, and no stream exists yet: applying them cannot fail.
    if (apply_settings(*payload) != ErrorCode::kNoError) {
        return base::Status::invalid_argument("HTTP2-Settings: a setting out of its range");
    }
    ids_.open(1);
    Stream& st = streams_.open(1);
    st.send_window = peer_initial_window_;
    st.update_credit = 1;
    st.recv_window = detail::ReceiveWindow(local_initial_window_);
    st.keep_pseudo(detail::Pseudo::kMethod, request.method);
    st.keep_pseudo(detail::Pseudo::kScheme, request.scheme);
    st.keep_pseudo(detail::Pseudo::kAuthority, request.authority);
    st.keep_pseudo(detail::Pseudo::kPath, request.path);
    for (const HeaderField& f : request.headers) {
        name_scratch_.resize(f.name.size());
        detail::copy_lowercase(name_scratch_.data(), f.name);
        if (!connection_specific(name_scratch_)) st.keep_field(name_scratch_, f.value);
    }
    st.body.assign(request.body);
    st.request_done = true;  // half-closed (remote): the request came whole over HTTP/1.1
    ++receiving_;
    ++stats_.streams_opened;
    deliver(st);
    return base::Status::ok();
}

// ---- answers ----

base::Status ServerSession::respond(StreamId id, int status, std::span<const HeaderField> headers, std::string body) {
    Stream* s = answerable(id);
    if (s == nullptr || s->responded) return base::Status::not_found("h2: no such stream");
    if (status < 100 || status > 999) return base::Status::invalid_argument("h2: bad status");
    const bool with_body = !body.empty();
    s->out_end = true;
    encode_head(*s, status, headers, !with_body);
    if (!with_body) return base::Status::ok();
    if (s->out.empty()) {
        s->out = std::move(body);
    } else {
        s->out.append(body);
    }
    schedule(*s);
    return base::Status::ok();
}

base::Status ServerSession::respond(StreamId id, int status, std::span<const HeaderField> headers,
                                    std::unique_ptr<BodySource> body, std::uint64_t length) {
    Stream* s = answerable(id);
    if (s == nullptr || s->responded) return base::Status::not_found("h2: no such stream");
    if (body == nullptr || length == 0) return base::Status::invalid_argument("h2: an empty body source");
    if (status < 100 || status > 999) return base::Status::invalid_argument("h2: bad status");
    s->source = std::move(body);
    s->source_left = length;
    s->out_end = true;
    encode_head(*s, status, headers, false);
    schedule(*s);
    return base::Status::ok();
}

base::Status ServerSession::start_stream(StreamId id, int status, std::span<const HeaderField> headers) {
    Stream* s = answerable(id);
    if (s == nullptr || s->responded) return base::Status::not_found("h2: no such stream");
    if (status < 100 || status > 999) return base::Status::invalid_argument("h2: bad status");
    encode_head(*s, status, headers, false);
    return base::Status::ok();
}

base::Status ServerSession::write(StreamId id, std::string_view data) {
    Stream* s = answerable(id);
    if (s == nullptr || !s->responded || s->out_end) return base::Status::not_found("h2: no such stream");
    if (data.empty()) return base::Status::ok();
    // What was framed is dropped before the buffer grows past it.
    if (s->out_offset > 0 && s->out_offset >= s->out.size() / 2) {
        s->out.erase(0, s->out_offset);
        s->out_offset = 0;
    }
    s->out.append(data);
    schedule(*s);
    return base::Status::ok();
}

base::Status ServerSession::end(StreamId id) {
    Stream* s = answerable(id);
    if (s == nullptr || !s->responded || s->out_end) return base::Status::not_found("h2: no such stream");
    s->out_end = true;
    if (!s->has_output()) queue_end_stream(*s);  // else the last DATA frame carries END_STREAM
    return base::Status::ok();
}

std::size_t ServerSession::queued_bytes(StreamId id) const {
    Stream* s = streams_.find(id);
    return s == nullptr ? 0 : s->queued();
}

std::size_t ServerSession::body_bytes_sent(StreamId id) const {
    Stream* s = streams_.find(id);
    return s == nullptr ? 0 : s->body_sent;
}

void ServerSession::reset(StreamId id, ErrorCode code) {
    if (Stream* s = answerable(id); s != nullptr) reset_stream(*s, code);
}

void ServerSession::consume(StreamId id, std::size_t n) {
    Stream* s = streams_.find(id);
    if (s == nullptr || n == 0) return;
    n = std::min(n, s->unconsumed);
    s->unconsumed -= n;
    consume_stream(*s, n);
}

std::size_t ServerSession::reset_stalled() {
    std::size_t n = 0;
    if (terminated_) return n;
    for (std::size_t i = 0; i < streams_.size(); ++i) {
        Stream& s = streams_.at(i);
        // Waiting for the peer's window, not for the socket (the connection's write timeout covers that).
        const bool waiting = !s.closing && s.has_output() && (s.send_window <= 0 || conn_send_window_ <= 0);
        if (!waiting) {
            s.stall_mark = 0;
            continue;
        }
        const std::uint64_t mark = s.body_sent + 1;
        if (s.stall_mark != mark) {
            s.stall_mark = mark;  // waiting now: reset at the next call unless a byte is framed before it
            continue;
        }
        reset_stream(s, ErrorCode::kCancel);  // closes once the RST_STREAM is sent; its buffers go then
        ++n;
    }
    return n;
}

void ServerSession::shutdown() {
    if (terminated_) return;
    goaway_sent_ = true;
    goaway_last_ = ids_.last();
    queue_goaway(ErrorCode::kNoError);
}

void ServerSession::terminate(ErrorCode code) {
    if (terminated_) return;
    if (error_code_ == ErrorCode::kNoError) error_code_ = code;
    queue_goaway(code);
    terminated_ = true;
    writers_.clear();
}

}  // namespace slipstream::http::h2
