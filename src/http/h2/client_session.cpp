// ClientSession, requests out: the preface, request heads HPACK-encoded in submit order, bodies cut into DATA
// frames as the windows allow (round robin), resets, window updates and GOAWAY.
#include "http/h2/client_session.h"

#include <algorithm>

namespace slipstream::http::h2 {
namespace {

constexpr std::uint32_t kLastStreamId = 0x7fffffffu;

// Fields HTTP/2 forbids (RFC 9113 §8.2.2) or that the pseudo-headers replace.
bool connection_specific(std::string_view lower) {
    return lower == "connection" || lower == "keep-alive" || lower == "proxy-connection" ||
           lower == "transfer-encoding" || lower == "upgrade" || lower == "host" || lower == "te";
}

bool sensitive(std::string_view lower) {
    return lower == "authorization" || lower == "proxy-authorization" || lower == "cookie";
}

std::string lowered(std::string_view name) {
    std::string out(name);
    for (char& c : out)
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    return out;
}

}  // namespace

ClientSession::ClientSession(const ClientSessionConfig& config, ClientSessionHandler& handler)
    : config_(config),
      handler_(handler),
      reader_(detail::FrameReader::without_preface()),
      conn_recv_(std::max<std::int64_t>(config.connection_window, detail::kDefaultWindow)) {
    config_.stream_window = std::clamp<std::uint32_t>(config_.stream_window, 1, detail::kMaxWindow);
    config_.max_concurrent_streams = std::max<std::uint32_t>(config_.max_concurrent_streams, 1);
    pending_.append(kClientPreface);
    const detail::Setting settings[] = {
        {detail::kSettingEnablePush, 0},
        {detail::kSettingMaxConcurrentStreams, 0},  // the server may open none (push is off)
        {detail::kSettingInitialWindowSize, config_.stream_window},
        {detail::kSettingMaxHeaderListSize, config_.max_header_list_size},
    };
    detail::append_settings(pending_, settings, std::size(settings));
    if (config.connection_window > detail::kDefaultWindow) {
        detail::append_window_update(pending_, 0, config.connection_window - detail::kDefaultWindow);
    }
}

ClientSession::~ClientSession() = default;

bool ClientSession::accepting() const {
    return !dead_ && !goaway_received_ && !goaway_sent_ && next_id_ <= kLastStreamId;
}

bool ClientSession::can_submit() const {
    return accepting() && streams_.size() < std::min(peer_max_streams_, config_.max_concurrent_streams);
}

base::Result<std::uint32_t> ClientSession::submit(const ClientRequest& r) {
    if (dead_ || goaway_received_ || goaway_sent_ || next_id_ > kLastStreamId)
        return base::Status::unavailable("h2: the connection takes no new streams");
    if (streams_.size() >= std::min(peer_max_streams_, config_.max_concurrent_streams))
        return base::Status::resource_exhausted("h2: the connection's stream limit is reached");
    if (r.method == "CONNECT") return base::Status::invalid_argument("h2: CONNECT is not supported");
    if (r.method.empty() || r.path.empty() || r.scheme.empty())
        return base::Status::invalid_argument("h2: a request needs a method, a scheme and a path");
    // Check every field before anything reaches the encoder (its dynamic table would be out of step otherwise).
    std::vector<std::string> names;
    names.reserve(r.headers.size());
    for (const HeaderField& f : r.headers) {
        names.push_back(lowered(f.name));
        if (names.back().empty() || names.back()[0] == ':' || connection_specific(names.back()))
            return base::Status::invalid_argument("h2: field '" + std::string(f.name) + "' is not allowed");
    }
    const std::uint32_t id = next_id_;
    next_id_ += 2;
    auto s = std::make_unique<Stream>();
    s->id = id;
    s->send_window = peer_initial_window_;
    s->recv = detail::ReceiveWindow(config_.stream_window);
    s->body = r.body;
    s->local_ended = s->body.empty();
    s->no_content = r.method == "HEAD";

    block_scratch_.clear();
    encoder_.begin_block(block_scratch_);
    encoder_.field(block_scratch_, ":method", r.method, HpackIndexing::kIncremental);
    encoder_.field(block_scratch_, ":scheme", r.scheme, HpackIndexing::kIncremental);
    encoder_.field(block_scratch_, ":authority", r.authority, HpackIndexing::kIncremental);
    encoder_.field(block_scratch_, ":path", r.path,
                   r.path.size() > 256 ? HpackIndexing::kWithout : HpackIndexing::kIncremental);
    for (std::size_t i = 0; i < names.size(); ++i) {
        encoder_.field(block_scratch_, names[i], r.headers[i].value,
                       sensitive(names[i]) ? HpackIndexing::kNever : HpackIndexing::kIncremental);
    }
    frame_block(block_scratch_, id, s->local_ended);
    Stream& ref = *s;
    streams_.emplace(id, std::move(s));
    schedule(ref);
    return id;
}

// One HEADERS frame, or HEADERS and CONTINUATION frames when the block is larger than the server's frame size.
void ClientSession::frame_block(const std::string& block, std::uint32_t id, bool end_stream) {
    std::string_view rest = block;
    const std::uint8_t end = end_stream ? detail::kFlagEndStream : 0;
    bool first = true;
    do {
        std::size_t n = std::min<std::size_t>(rest.size(), peer_max_frame_);
        std::uint8_t flags = (first ? end : 0) | (n == rest.size() ? detail::kFlagEndHeaders : 0);
        detail::append_frame_header(pending_, n, first ? detail::FrameType::kHeaders : detail::FrameType::kContinuation,
                                    flags, id);
        pending_.append(rest.substr(0, n));
        rest.remove_prefix(n);
        first = false;
    } while (!rest.empty());
}

void ClientSession::schedule(Stream& s) {
    if (s.writing || s.local_ended || s.send_window <= 0) return;
    s.writing = true;
    writers_.push_back(s.id);
}

std::size_t ClientSession::send(std::string& out, std::size_t limit) {
    const std::size_t start = out.size();
    if (!pending_.empty()) {
        out.append(pending_);
        pending_.clear();
        control_queued_ = 0;
    }
    while (out.size() - start < limit && !writers_.empty() && conn_send_window_ > 0 && !dead_)
        frame_data(out);
    return out.size() - start;
}

// One DATA frame for the stream at the front of the round robin.
void ClientSession::frame_data(std::string& out) {
    const std::uint32_t id = writers_.front();
    writers_.pop_front();
    Stream* s = find(id);
    if (s == nullptr) return;
    s->writing = false;
    const std::size_t left = s->body.size() - s->body_pos;
    const std::size_t n = static_cast<std::size_t>(std::min<std::int64_t>(
        {static_cast<std::int64_t>(left), s->send_window, conn_send_window_, std::int64_t{peer_max_frame_}}));
    if (n == 0 && left > 0) return;  // a window closed: WINDOW_UPDATE schedules it again
    const bool last = n == left;
    detail::append_frame_header(out, n, detail::FrameType::kData, last ? detail::kFlagEndStream : 0, id);
    out.append(s->body, s->body_pos, n);
    s->body_pos += n;
    s->send_window -= static_cast<std::int64_t>(n);
    conn_send_window_ -= static_cast<std::int64_t>(n);
    if (last) {
        s->local_ended = true;
        std::string().swap(s->body);
        s->body_pos = 0;
        return;
    }
    schedule(*s);
}

bool ClientSession::want_write() const {
    if (!pending_.empty()) return true;
    return !dead_ && !writers_.empty() && conn_send_window_ > 0;
}

void ClientSession::consume(std::uint32_t id, std::size_t n) {
    Stream* s = find(id);
    if (s == nullptr || dead_) return;
    if (std::uint32_t inc = s->recv.consume(n)) detail::append_window_update(pending_, id, inc);
}

void ClientSession::reset(std::uint32_t id, ErrorCode code) {
    if (find(id) == nullptr) return;
    if (!dead_) detail::append_rst_stream(pending_, id, static_cast<std::uint32_t>(code));
    forget(id);
}

void ClientSession::forget(std::uint32_t id) {
    streams_.erase(id);  // writers_ skips ids it no longer finds
}

void ClientSession::shutdown() {
    if (dead_ || goaway_sent_) return;
    goaway_sent_ = true;
    detail::append_goaway(pending_, 0, static_cast<std::uint32_t>(ErrorCode::kNoError));
}

ClientSession::Stream* ClientSession::find(std::uint32_t id) {
    auto it = streams_.find(id);
    return it == streams_.end() ? nullptr : it->second.get();
}

}  // namespace slipstream::http::h2
