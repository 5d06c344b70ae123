// ServerSession, header blocks in: HEADERS and CONTINUATION (RFC 9113 §6.2, §6.10), stream opening (§5.1),
// HPACK decoding into the stream's request with the §8 checks, and delivery of complete requests.
#include "http/h2/session.h"

namespace slipstream::http::h2 {

using detail::FrameHeader;

void ServerSession::on_headers(const FrameHeader& h, std::string_view payload) {
    if (h.stream == 0 || h.stream % 2 == 0) return fail(ErrorCode::kProtocolError, "HEADERS on a server stream id");
    std::string_view fragment = payload;
    std::size_t pad = 0;
    if (h.has(detail::kFlagPadded)) {
        if (fragment.empty()) return fail(ErrorCode::kProtocolError, "HEADERS padding as long as the frame");
        pad = static_cast<unsigned char>(fragment[0]);
        fragment.remove_prefix(1);
    }
    bool self_depends = false;
    if (h.has(detail::kFlagPriority)) {
        if (fragment.size() < 5) return fail(ErrorCode::kFrameSizeError, "HEADERS too short for its priority");
        self_depends = (detail::read_u32(fragment.data()) & 0x7fffffffu) == h.stream;
        fragment.remove_prefix(5);
    }
    if (pad > fragment.size()) return fail(ErrorCode::kProtocolError, "HEADERS padding as long as the frame");
    fragment.remove_suffix(pad);

    block_.id = static_cast<StreamId>(h.stream);
    block_.end_stream = h.has(detail::kFlagEndStream);
    block_.continuations = 0;
    block_.target = headers_target(block_.id, self_depends);
    if (fatal_) return;
    if (h.has(detail::kFlagEndHeaders)) return end_block(fragment);  // the common case: no copy
    if (fragment.size() > std::size_t{config_.max_header_list_size} * config_.header_bomb_factor) {
        return flood(FloodKind::kHpackBomb, "a header block far past the header list limit");
    }
    block_.open = true;
    block_buf_.assign(fragment);
}

void ServerSession::on_continuation(const FrameHeader& h, std::string_view payload) {
    if (!block_.open || static_cast<StreamId>(h.stream) != block_.id) {
        return fail(ErrorCode::kProtocolError, "CONTINUATION without a header block of its stream");
    }
    if (++block_.continuations > config_.max_continuations) {
        return flood(FloodKind::kContinuation, "too many CONTINUATION frames");
    }
    block_buf_.append(payload);
    if (block_buf_.size() > std::size_t{config_.max_header_list_size} * config_.header_bomb_factor) {
        return flood(FloodKind::kHpackBomb, "a header block far past the header list limit");
    }
    if (!h.has(detail::kFlagEndHeaders)) return;
    block_.open = false;
    end_block(block_buf_);
}

// Where a HEADERS frame's block goes; a new stream is opened here. May fail the connection.
ServerSession::BlockTarget ServerSession::headers_target(StreamId id, bool self_depends) {
    if (id <= ids_.last()) {
        if (Stream* s = streams_.find(id); s != nullptr) {
            if (s->closing) return BlockTarget::kDiscard;
            if (s->request_done) return BlockTarget::kStreamClosed;  // half-closed (remote)
            return self_depends ? BlockTarget::kSelfDepends : BlockTarget::kTrailers;
        }
        switch (ids_.classify(id)) {
            case detail::ClientStreamIds::Kind::kSkipped:
                // Ids a client jumped over are closed, never used (§5.1.1): opening one is no valid transition.
                fail(ErrorCode::kProtocolError, "HEADERS reusing a skipped stream id");
                return BlockTarget::kDiscard;
            case detail::ClientStreamIds::Kind::kResetByUs:
                return BlockTarget::kDiscard;
            case detail::ClientStreamIds::Kind::kResetByClient:
                return BlockTarget::kStreamClosed;
            default:
                // Closed by END_STREAM both ways: any frame on it is a connection error (§5.1 "closed").
                fail(ErrorCode::kStreamClosed, "HEADERS on a closed stream");
                return BlockTarget::kDiscard;
        }
    }
    ids_.open(id);
    if ((goaway_sent_ && id > goaway_last_) || goaway_received_) return BlockTarget::kDiscard;
    if (self_depends) return BlockTarget::kSelfDepends;
    if (streams_.size() >= config_.max_concurrent_streams) {
        if (settings_acked_) {
            fail(ErrorCode::kProtocolError, "more streams than SETTINGS_MAX_CONCURRENT_STREAMS");
            return BlockTarget::kDiscard;
        }
        stream_error(id, ErrorCode::kRefusedStream);  // the client may not know our limit yet
        return BlockTarget::kDiscard;
    }
    if (streams_.size() + held_ >= config_.max_concurrent_streams) {
        // Handlers of streams the client reset still run: they count until they finish (rapid reset,
        // CVE-2023-44487). The client cannot see them, so the stream is refused (it may retry); a client that
        // keeps opening streams past the limit meanwhile is cut off, as Go's x/net/http2 and h2o do.
        if (++refused_held_ > config_.max_concurrent_streams) {
            flood(FloodKind::kRapidReset, "new streams while the handlers of reset streams still run");
            return BlockTarget::kDiscard;
        }
        stream_error(id, ErrorCode::kRefusedStream);
        return BlockTarget::kDiscard;
    }
    Stream& s = streams_.open(id);
    s.recv_window = detail::ReceiveWindow(local_initial_window_);
    s.send_window = peer_initial_window_;
    s.update_credit = 1;  // a client may open the stream's window once before any DATA
    ++receiving_;
    ++stats_.streams_opened;
    return BlockTarget::kRequest;
}

// A complete header block: decoded whatever its target (the HPACK state must follow every block), then used.
void ServerSession::end_block(std::string_view block) {
    Stream* s = nullptr;
    if (block_.target == BlockTarget::kRequest || block_.target == BlockTarget::kTrailers) {
        s = streams_.find(block_.id);  // may have closed between the frames of the block
        if (s != nullptr && s->closing) s = nullptr;
    }
    block_stream_ = s;
    block_trailers_ = block_.target == BlockTarget::kTrailers;
    block_field_bytes_ = 0;
    HpackStatus status = decoder_.decode(block, *this);
    block_stream_ = nullptr;
    if (fatal_) return;  // the sink found a flood
    if (status != HpackStatus::kOk) return fail(ErrorCode::kCompressionError, "a header block HPACK cannot decode");
    switch (block_.target) {
        case BlockTarget::kStreamClosed:
            return stream_error(block_.id, ErrorCode::kStreamClosed);
        case BlockTarget::kSelfDepends:
            return reset_id(block_.id, ErrorCode::kProtocolError);
        case BlockTarget::kDiscard:
            return;
        case BlockTarget::kRequest:
        case BlockTarget::kTrailers:
            if (s != nullptr && !s->closing) head_complete(*s, block_trailers_, block_.end_stream);
            return;
    }
}

// One decoded field: accounted (RFC 9113 size), checked (§8), kept for the request.
bool ServerSession::on_field(std::string_view name, std::string_view value) {
    const std::size_t limit = config_.max_header_list_size;
    const std::size_t size = name.size() + value.size() + 32;
    Stream* s = block_stream_;
    if (s == nullptr) {
        block_field_bytes_ += size;
        if (block_field_bytes_ <= limit * config_.header_bomb_factor) return true;
        flood(FloodKind::kHpackBomb, "a header block decoding far past the header list limit");
        return false;
    }
    s->header_bytes += size;
    if (s->header_bytes > limit * config_.header_bomb_factor) {
        flood(FloodKind::kHpackBomb, "a header block decoding far past the header list limit");
        return false;
    }
    if (s->closing) return true;  // malformed: the rest of the block only keeps the HPACK state
    if (s->header_bytes > limit && !s->delivered) s->error_status = 431;
    if (block_trailers_) {  // a trailer section: checked, not kept
        if (!s->checks.trailer_field(name, value)) reset_stream(*s, ErrorCode::kProtocolError);
        return true;
    }
    detail::Pseudo which;
    if (!s->checks.field(name, value, &which)) {
        reset_stream(*s, ErrorCode::kProtocolError);  // malformed (§8.1.1)
        return true;
    }
    if (s->error_status != 0 || s->delivered) return true;
    if (which != detail::Pseudo::kRegular) {
        s->keep_pseudo(which, value);
    } else {
        s->keep_field(name, value);
    }
    return true;
}

// The request's header section is complete, or a trailer section ends the stream (§8.1).
void ServerSession::head_complete(Stream& s, bool trailers, bool end_stream) {
    bool ok = trailers ? end_stream : s.checks.head_complete();
    if (!ok || (end_stream && !s.checks.end())) return reset_stream(s, ErrorCode::kProtocolError);
    if (end_stream) s.request_done = true;
    // The checks accept :protocol only on a CONNECT (RFC 8441 §4): a tunnel, delivered at its headers.
    if (!trailers && !s.pseudo_value(detail::Pseudo::kProtocol).empty()) s.tunnel = true;
    if (!s.delivered && (s.request_done || s.error_status != 0 || s.tunnel)) deliver(s);
    if (end_stream && s.tunnel && !s.closing) handler_.on_stream_end(s.id);
}

void ServerSession::deliver(Stream& s) {
    s.delivered = true;
    --receiving_;
    ++active_;
    std::vector<HeaderField>& headers = request_fields_;  // reused: no allocation per request
    headers.clear();
    for (const auto& f : s.regular)
        headers.push_back({s.view(f[0], f[1]), s.view(f[2], f[3])});
    RequestHead head;
    head.method = s.pseudo_value(detail::Pseudo::kMethod);
    head.scheme = s.pseudo_value(detail::Pseudo::kScheme);
    head.authority = s.pseudo_value(detail::Pseudo::kAuthority);
    head.path = s.pseudo_value(detail::Pseudo::kPath);
    head.protocol = s.pseudo_value(detail::Pseudo::kProtocol);
    head.headers = headers;
    head.body = s.body;
    head.error_status = s.error_status;
    handler_.on_request(s.id, head);
}

}  // namespace slipstream::http::h2
