// ServerSession, frames out: response heads HPACK-encoded in order, DATA cut as the windows allow (round
// robin), stream endings and resets, and connection errors (GOAWAY).
#include <algorithm>
#include <cstring>

#include "http/h2/field_case.h"
#include "http/h2/session.h"

namespace slipstream::http::h2 {
namespace {

// A peer that never reads makes control frames (PING/SETTINGS ACKs, RST_STREAM, WINDOW_UPDATE) pile up:
// past this many unsent, the connection ends with ENHANCE_YOUR_CALM.
constexpr std::size_t kMaxQueuedControlFrames = 1000;

// Free WINDOW_UPDATEs a stream or the connection may bank (one per DATA frame sent): a client that batches its
// updates needs fewer than it earns, so the bound only stops a long download from funding a later flood.
constexpr std::uint32_t kMaxUpdateCredit = 1024;

// A field whose value differs in every response (x-request-id) is sent as a never-indexed literal: entering
// every value into the HPACK dynamic table would only evict useful entries. Once a second one value is
// indexed, so the name stays in the table and the literals refer to it instead of spelling it out. Its random
// value goes out raw: Huffman coding would save a quarter of its bytes for CPU on both sides, every response.
constexpr base::MonoNanos kIndexUniqueEvery = 1'000'000'000;

// How a response field is encoded: values that rarely repeat go out without entering the dynamic table;
// x-request-id (new in every response) is never indexed, but once a second (kIndexUniqueEvery).
enum class FieldKind : std::uint8_t { kCommon, kRarelyRepeats, kUniquePerResponse };

// The kind of a field by its name; `*known` is set when the name is one of the usual lowercase response field
// names (so it needs no lowering). One comparison per name: by length first.
FieldKind field_kind(std::string_view name, bool* known) {
    auto is = [&](std::string_view lower) { return *known = name == lower; };
    switch (name.size()) {
        case 4:
            if (is("etag")) return FieldKind::kRarelyRepeats;
            if (!is("date")) is("vary");
            return FieldKind::kCommon;
        case 6:
            is("server");
            return FieldKind::kCommon;
        case 8:
            return is("location") ? FieldKind::kRarelyRepeats : FieldKind::kCommon;
        case 10:
            return is("set-cookie") ? FieldKind::kRarelyRepeats : FieldKind::kCommon;
        case 12:
            if (is("x-request-id")) return FieldKind::kUniquePerResponse;
            is("content-type");
            return FieldKind::kCommon;
        case 13:
            if (is("last-modified")) return FieldKind::kRarelyRepeats;
            is("cache-control");
            return FieldKind::kCommon;
        case 14:
            return is("content-length") ? FieldKind::kRarelyRepeats : FieldKind::kCommon;
        case 16:
            is("content-encoding");
            return FieldKind::kCommon;
        default:
            return FieldKind::kCommon;
    }
}

}  // namespace

// ---- send() ----

std::size_t ServerSession::send(std::string& out, std::size_t limit) {
    const std::size_t start = out.size();
    while (out.size() < limit) {
        if (!pending_.empty()) {
            out.append(pending_);
            pending_.clear();
            control_queued_ = 0;
            process_sent();  // may queue more
            continue;
        }
        if (terminated_ || writers_.empty() || conn_send_window_ <= 0) break;
        frame_data(writers_.pop_front(), out);
    }
    return out.size() - start;
}

bool ServerSession::want_write() const {
    return !pending_.empty() || (!terminated_ && !writers_.empty() && conn_send_window_ > 0);
}

bool ServerSession::done() const {
    if (!pending_.empty()) return false;
    return terminated_ || ((goaway_sent_ || goaway_received_) && streams_.empty());
}

// One DATA frame of `s`, as large as the windows and the peer's frame size allow (at most 16 KiB).
void ServerSession::frame_data(Stream& s, std::string& out) {
    std::int64_t room = std::min<std::int64_t>(
        {conn_send_window_, s.send_window, std::min<std::uint32_t>(peer_max_frame_, detail::kDefaultMaxFrameSize)});
    if (room <= 0) return;  // a SETTINGS change shrank its window: WINDOW_UPDATE schedules it again
    const std::size_t at = out.size();
    std::size_t n = 0;
    bool last = false;
    if (s.source) {
        auto want = static_cast<std::size_t>(std::min<std::uint64_t>(static_cast<std::uint64_t>(room), s.source_left));
        out.resize(at + detail::kFrameHeaderSize + want);
        base::Result<std::size_t> r = s.source->read({out.data() + at + detail::kFrameHeaderSize, want});
        if (!r.is_ok() || *r == 0 || *r > want) {
            out.resize(at);
            return reset_stream(s, ErrorCode::kInternalError);  // the body cannot be completed
        }
        n = *r;
        out.resize(at + detail::kFrameHeaderSize + n);
        s.source_left -= n;
        last = s.source_left == 0;
        if (last) s.source.reset();  // a file closes as soon as its last byte is framed
    } else {
        n = std::min<std::size_t>(static_cast<std::size_t>(room), s.queued());
        out.resize(at + detail::kFrameHeaderSize);
        out.append(s.out, s.out_offset, n);
        s.out_offset += n;
        if (s.out_offset == s.out.size()) {
            s.out.clear();  // keeps the capacity for the next write()
            s.out_offset = 0;
        }
        last = s.out_end && s.queued() == 0;
    }
    detail::put_frame_header(out.data() + at, n, detail::FrameType::kData, last ? detail::kFlagEndStream : 0,
                             static_cast<std::uint32_t>(s.id));
    s.send_window -= static_cast<std::int64_t>(n);
    conn_send_window_ -= static_cast<std::int64_t>(n);
    s.body_sent += n;
    if (n > 0) {  // the peer may acknowledge this frame with a WINDOW_UPDATE for each window, free of a token
        s.update_credit = std::min(s.update_credit + 1, kMaxUpdateCredit);
        conn_update_credit_ = std::min(conn_update_credit_ + 1, kMaxUpdateCredit);
    }
    if (last) return end_sent(s);
    schedule(s);  // round robin: to the back of the queue
}

// ---- response heads ----

ServerSession::Stream* ServerSession::answerable(StreamId id) {
    Stream* s = streams_.find(id);
    if (s == nullptr || s->closing || terminated_) return nullptr;
    return s;
}

void ServerSession::encode_head(Stream& s, int status, std::span<const HeaderField> headers, bool end_stream) {
    s.responded = true;
    const std::size_t start = pending_.size();
    pending_.resize(start + detail::kFrameHeaderSize);
    encoder_.begin_block(pending_);
    encoder_.status(pending_, status);
    for (const HeaderField& h : headers) {
        std::string_view name = h.name;
        bool known = false;
        FieldKind kind = field_kind(name, &known);
        if (!known && detail::has_uppercase(name)) {  // the server's own fields come lowercase
            name_scratch_.resize(name.size());
            detail::copy_lowercase(name_scratch_.data(), name);
            name = name_scratch_;
            kind = field_kind(name, &known);
        }
        HpackIndexing how = HpackIndexing::kIncremental;
        HpackCoding coding = HpackCoding::kShortest;
        switch (kind) {
            case FieldKind::kCommon:
                break;
            case FieldKind::kRarelyRepeats:
                how = HpackIndexing::kWithout;
                break;
            case FieldKind::kUniquePerResponse:
                coding = HpackCoding::kRaw;  // a random value: Huffman would cost both sides CPU every time
                if (now_ - unique_indexed_at_ < kIndexUniqueEvery) {
                    how = HpackIndexing::kNever;
                } else {
                    unique_indexed_at_ = now_;
                }
                break;
        }
        encoder_.field(pending_, name, h.value, how, coding);
    }
    frame_block(start, s.id, end_stream);
    if (end_stream) sent_.push_back({s.id, Sent::kEndStream});
}

// Frames the block encoded at pending_[start + 9..]: one HEADERS frame, or HEADERS and CONTINUATION frames
// when it is larger than the peer's SETTINGS_MAX_FRAME_SIZE.
void ServerSession::frame_block(std::size_t start, StreamId id, bool end_stream) {
    const std::size_t block = pending_.size() - start - detail::kFrameHeaderSize;
    const auto stream = static_cast<std::uint32_t>(id);
    const std::uint8_t end = end_stream ? detail::kFlagEndStream : 0;
    if (block <= peer_max_frame_) {
        detail::put_frame_header(pending_.data() + start, block, detail::FrameType::kHeaders,
                                 end | detail::kFlagEndHeaders, stream);
        return;
    }
    block_scratch_.assign(pending_, start + detail::kFrameHeaderSize);
    pending_.resize(start);
    std::string_view rest = block_scratch_;
    bool first = true;
    while (!rest.empty()) {
        std::size_t n = std::min<std::size_t>(rest.size(), peer_max_frame_);
        std::uint8_t flags = (first ? end : 0) | (n == rest.size() ? detail::kFlagEndHeaders : 0);
        detail::append_frame_header(pending_, n, first ? detail::FrameType::kHeaders : detail::FrameType::kContinuation,
                                    flags, stream);
        pending_.append(rest.substr(0, n));
        rest.remove_prefix(n);
        first = false;
    }
}

void ServerSession::schedule(Stream& s) {
    if (!s.closing && !terminated_ && s.send_window > 0 && s.has_output()) writers_.push_back(s);
}

// A DATA frame with END_STREAM and nothing in it, after every byte framed before.
void ServerSession::queue_end_stream(Stream& s) {
    detail::append_frame_header(pending_, 0, detail::FrameType::kData, detail::kFlagEndStream,
                                static_cast<std::uint32_t>(s.id));
    sent_.push_back({s.id, Sent::kEndStream});
}

// ---- stream endings ----

// Frames of `pending_` reached the output: the streams they ended or reset close.
void ServerSession::process_sent() {
    if (sent_.empty()) return;
    sent_scratch_.swap(sent_);
    for (const SentEvent& e : sent_scratch_) {
        Stream* s = streams_.find(e.id);
        if (s == nullptr) continue;
        if (e.what == Sent::kReset) {
            if (s->closing) close_stream(*s);
        } else if (!s->closing) {
            end_sent(*s);
        }
    }
    sent_scratch_.clear();
}

// END_STREAM was handed to the output: closed if the request had ended, else the client is asked to stop
// sending (RST_STREAM NO_ERROR, RFC 9113 §8.1).
void ServerSession::end_sent(Stream& s) {
    s.finished = true;
    if (s.request_done) return close_stream(s);
    reset_stream(s, ErrorCode::kNoError);
}

void ServerSession::reset_stream(Stream& s, ErrorCode code) {
    if (s.closing) return;
    s.closing = true;
    writers_.remove(s);
    if (terminated_) return;                // nothing follows the final GOAWAY
    sent_.push_back({s.id, Sent::kReset});  // it closes once the RST_STREAM is handed out
    stream_error(s.id, code);
}

void ServerSession::reset_id(StreamId id, ErrorCode code) {
    if (Stream* s = streams_.find(id); s != nullptr) return reset_stream(*s, code);
    stream_error(id, code);
}

void ServerSession::stream_error(StreamId id, ErrorCode code) {
    if (terminated_) return;
    detail::append_rst_stream(pending_, static_cast<std::uint32_t>(id), static_cast<std::uint32_t>(code));
    ids_.note_reset(id);
    ++stats_.rst_sent[SessionStats::code_index(static_cast<std::uint32_t>(code))];
    ++stats_.events;
    count_control();
}

// Anything that closes a delivered, unfinished stream tells the handler, with the stream still known.
void ServerSession::close_stream(Stream& s) {
    s.closing = true;  // the handler's calls for it are refused from here on
    writers_.remove(s);
    if (!s.delivered) {
        --receiving_;
    } else {
        --active_;
        if (!s.finished) {
            handler_.on_stream_reset(s.id);
        } else if (s.tunnel) {
            handler_.on_stream_closed(s.id);
        }
        release_unconsumed(s);
    }
    streams_.close(s);
}

void ServerSession::release_unconsumed(Stream& s) {
    if (s.unconsumed == 0) return;
    consume_connection(s.unconsumed);  // the stream's own window is gone with it
    s.unconsumed = 0;
}

// ---- connection errors ----

void ServerSession::count_control() {
    if (++control_queued_ > kMaxQueuedControlFrames) flood(FloodKind::kOther, "the peer does not read its frames");
}

void ServerSession::flood(FloodKind kind, const char* reason) {
    if (!terminated_) {
        ++stats_.floods[static_cast<std::size_t>(kind)];
        ++stats_.events;
    }
    fail(ErrorCode::kEnhanceYourCalm, reason);
}

void ServerSession::fail(ErrorCode code, const char* reason) {
    if (terminated_) return;
    fatal_ = true;
    fail_reason_ = reason;
    terminate(code);
}

void ServerSession::queue_goaway(ErrorCode code) {
    detail::append_goaway(pending_, static_cast<std::uint32_t>(ids_.last()), static_cast<std::uint32_t>(code));
    ++stats_.goaway_sent[SessionStats::code_index(static_cast<std::uint32_t>(code))];
    ++stats_.events;
}

}  // namespace slipstream::http::h2
