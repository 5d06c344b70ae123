// ServerSession: nghttp2 callbacks, per-stream request assembly and response bodies, flood accounting.
#include "http/h2/session.h"

#include "http/h2/field_case.h"
#include "http/h2/recycling_allocator.h"
#include "http/h2/request_checks.h"
#include "http/h2/settings_header.h"

#include <nghttp2/nghttp2.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <deque>
#include <vector>

namespace slipstream::http::h2 {
namespace {
// NGHTTP2_ERR_TOO_MANY_CONTINUATIONS: nghttp2's own CONTINUATION limit (1.61+, and distribution backports).
// Spelled as a number so older headers without the name still compile.
constexpr ssize_t kErrTooManyContinuations = -905;

// A field whose value differs in every response (x-request-id) is sent as a never-indexed literal: entering
// every value into the HPACK dynamic table would only evict useful entries, and nghttp2's table search
// compares each new value against every earlier one of that name. Once a second one value is indexed, so
// the name stays in the table and the never-indexed literals refer to it instead of spelling it out.
constexpr base::MonoNanos kIndexUniqueEvery = 1'000'000'000;

bool unique_per_response(std::string_view lowercase_name) {
    return lowercase_name == "x-request-id";
}

}  // namespace

struct ServerSession::Stream {
    StreamId id = 0;
    // Received fields: names and values back to back in `fields`; offsets per field.
    std::string fields;
    std::vector<std::array<std::uint32_t, 4>> regular;     // name offset, length, value offset, length
    std::array<std::array<std::uint32_t, 2>, 5> pseudo{};  // value offset and length, by detail::Pseudo
    std::size_t header_bytes = 0;
    std::string body;
    int error_status = 0;
    detail::RequestChecks checks;
    bool malformed = false;      // reset with PROTOCOL_ERROR: everything else it sends is ignored
    bool delivered = false;      // on_request was called
    bool request_done = false;   // END_STREAM received
    bool tunnel = false;         // an extended CONNECT: DATA goes to on_stream_data, delivered at its headers
    std::size_t unconsumed = 0;  // tunnel DATA bytes handed over and not yet consume()d
    // Response.
    std::string head;                    // the response head's names and values, until its HEADERS is framed
    std::vector<std::string> out;        // body pieces; out[out_head] is the next to frame
    std::size_t out_head = 0;            // pieces of `out` already framed
    std::size_t out_offset = 0;          // bytes of out[out_head] already framed
    std::size_t queued = 0;              // body bytes in `out` not yet framed
    std::size_t body_sent = 0;           // body bytes framed into DATA frames
    bool responded = false;              // a HEADERS frame was submitted
    bool out_end = false;                // no more body after `out`
    bool deferred = false;               // the data source waits for write()/end()
    bool finished = false;               // END_STREAM sent
    std::unique_ptr<BodySource> source;  // a body read on demand instead of `out`
    std::uint64_t source_left = 0;       // its bytes not yet framed

    std::string_view view(std::uint32_t off, std::uint32_t len) const { return {fields.data() + off, len}; }
    std::string_view pseudo_value(detail::Pseudo p) const {
        const auto& [off, len] = pseudo[static_cast<std::size_t>(p)];
        return view(off, len);
    }
    bool out_empty() const { return out_head == out.size(); }

    // Back to a fresh stream for reuse, keeping small buffers' capacity (a recycled stream allocates nothing).
    void recycle() {
        static constexpr std::size_t kKeepBytes = 4096;
        id = 0;
        fields.clear();
        regular.clear();
        pseudo = {};
        header_bytes = 0;
        if (body.capacity() > kKeepBytes) std::string().swap(body);
        body.clear();
        error_status = 0;
        checks = {};
        malformed = delivered = request_done = tunnel = false;
        unconsumed = 0;
        if (head.capacity() > kKeepBytes) std::string().swap(head);
        head.clear();
        out.clear();
        out_head = out_offset = queued = body_sent = 0;
        responded = out_end = deferred = finished = false;
        source.reset();
        source_left = 0;
    }
};

// Buffers reused from request to request, so a request allocates nothing of its own here.
struct ServerSession::Scratch {
    std::vector<HeaderField> request_fields;  // deliver(): the fields handed to on_request
    std::vector<nghttp2_nv> nva;              // submit(): the response head
    // Closed streams kept for reuse with their map nodes: opening one allocates nothing.
    std::vector<StreamMap::node_type> spare;
};

// The nghttp2 callbacks, as static members of a friend so they reach the session's state.
struct ServerSession::Callbacks {
    static ServerSession& self(void* user) { return *static_cast<ServerSession*>(user); }

    static int on_begin_frame(nghttp2_session*, const nghttp2_frame_hd* hd, void* user) {
        ServerSession& s = self(user);
        bool control = false;
        switch (hd->type) {
            case NGHTTP2_HEADERS:
                s.continuations_ = 0;
                control = hd->length == 0 && !(hd->flags & NGHTTP2_FLAG_END_HEADERS);
                if (!s.note_client_stream(hd->stream_id)) return s.fail(ErrorCode::kProtocolError);
                break;
            case NGHTTP2_CONTINUATION:
                if (++s.continuations_ > s.config_.max_continuations) return s.flood(FloodKind::kContinuation);
                control = hd->length == 0 && !(hd->flags & NGHTTP2_FLAG_END_HEADERS);
                break;
            case NGHTTP2_DATA:
                control = hd->length == 0 && !(hd->flags & NGHTTP2_FLAG_END_STREAM);
                break;
            case NGHTTP2_PING:
            case NGHTTP2_SETTINGS:
                control = !(hd->flags & NGHTTP2_FLAG_ACK);
                break;
            case NGHTTP2_PRIORITY:
                control = true;
                break;
            case NGHTTP2_RST_STREAM:
                if (!s.resets_.take(s.now_)) return s.flood(FloodKind::kRapidReset);
                break;
            default:
                break;
        }
        if (control && !s.control_.take(s.now_)) return s.flood(FloodKind::kControlFrames);
        return 0;
    }

    static int on_begin_headers(nghttp2_session* session, const nghttp2_frame* frame, void* user) {
        if (frame->hd.type != NGHTTP2_HEADERS || frame->headers.cat != NGHTTP2_HCAT_REQUEST) return 0;
        ServerSession& s = self(user);
        Stream& stream = s.open_stream(frame->hd.stream_id);
        nghttp2_session_set_stream_user_data(session, stream.id, &stream);
        ++s.receiving_;
        ++s.stats_.streams_opened;
        return 0;
    }

    // A malformed request (RFC 9113 §8.1.1): RST_STREAM(PROTOCOL_ERROR), and nothing more of it is used.
    // Returned from on_header, the failure makes nghttp2 skip the rest of the header block.
    static int malformed(nghttp2_session* session, Stream& st) {
        st.malformed = true;
        nghttp2_submit_rst_stream(session, NGHTTP2_FLAG_NONE, st.id, NGHTTP2_PROTOCOL_ERROR);
        return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
    }

    static int on_header(nghttp2_session* session, const nghttp2_frame* frame, const uint8_t* name, size_t namelen,
                         const uint8_t* value, size_t valuelen, uint8_t, void* user) {
        ServerSession& s = self(user);
        Stream* st = s.find(frame->hd.stream_id);
        if (st == nullptr || st->malformed) return 0;
        st->header_bytes += namelen + valuelen + 32;
        std::size_t limit = s.config_.max_header_list_size;
        if (st->header_bytes > limit * s.config_.header_bomb_factor) return s.flood(FloodKind::kHpackBomb);
        if (st->header_bytes > limit && !st->delivered) st->error_status = 431;
        std::string_view n(reinterpret_cast<const char*>(name), namelen);
        std::string_view v(reinterpret_cast<const char*>(value), valuelen);
        if (frame->headers.cat != NGHTTP2_HCAT_REQUEST) {  // a trailer section: checked, not kept
            return st->checks.trailer_field(n, v) ? 0 : malformed(session, *st);
        }
        detail::Pseudo which;
        if (!st->checks.field(n, v, &which)) return malformed(session, *st);
        if (st->error_status != 0 || st->delivered) return 0;
        auto off = static_cast<std::uint32_t>(st->fields.size());
        auto vlen = static_cast<std::uint32_t>(valuelen);
        if (which != detail::Pseudo::kRegular) {
            st->fields.append(v);  // only the value of a pseudo-field is kept
            st->pseudo[static_cast<std::size_t>(which)] = {off, vlen};
            return 0;
        }
        auto nlen = static_cast<std::uint32_t>(namelen);
        st->fields.append(n);
        st->fields.append(v);
        st->regular.push_back({off, nlen, off + nlen, vlen});
        return 0;
    }

    static int on_frame_recv(nghttp2_session* session, const nghttp2_frame* frame, void* user) {
        ServerSession& s = self(user);
        if (frame->hd.type == NGHTTP2_RST_STREAM) {
            ++s.stats_.rst_received[SessionStats::code_index(frame->rst_stream.error_code)];
            ++s.stats_.events;
        }
        if (frame->hd.type != NGHTTP2_HEADERS && frame->hd.type != NGHTTP2_DATA) return 0;
        Stream* st = s.find(frame->hd.stream_id);
        if (st == nullptr || st->malformed) return 0;
        bool ended = (frame->hd.flags & NGHTTP2_FLAG_END_STREAM) != 0;
        bool headers_end = frame->hd.type == NGHTTP2_HEADERS;
        if (headers_end) {
            // The request's header section is complete, or a trailer section ends the stream (§8.1).
            bool ok = frame->headers.cat == NGHTTP2_HCAT_REQUEST ? st->checks.head_complete() : ended;
            if (!ok) {
                malformed(session, *st);
                return 0;
            }
        }
        if (ended && !st->checks.end()) {
            malformed(session, *st);  // a body shorter than its content-length
            return 0;
        }
        if (ended) st->request_done = true;
        bool headers_refused = headers_end && st->error_status != 0;
        // The checks accept :protocol only on a CONNECT (RFC 8441 §4).
        if (headers_end && !st->delivered && !st->pseudo_value(detail::Pseudo::kProtocol).empty()) st->tunnel = true;
        StreamId id = st->id;
        bool tunnel = st->tunnel;
        if (!st->delivered && (st->request_done || headers_refused || (headers_end && tunnel))) s.deliver(*st);
        if (ended && tunnel) s.handler_.on_stream_end(id);  // the client's side of the tunnel is done
        return 0;
    }

    static int on_data_chunk(nghttp2_session* session, uint8_t, int32_t id, const uint8_t* data, size_t len,
                             void* user) {
        ServerSession& s = self(user);
        Stream* st = s.find(id);
        if (st != nullptr && !st->malformed && !st->checks.data(len)) malformed(session, *st);
        if (st != nullptr && st->malformed) {
            nghttp2_session_consume(session, id, len);  // the bytes still count against the connection window
            return 0;
        }
        if (st != nullptr && st->tunnel && st->delivered) {
            // The owner returns these bytes to the windows with consume() as it processes them.
            st->unconsumed += len;
            s.handler_.on_stream_data(id, {reinterpret_cast<const char*>(data), len});
            return 0;
        }
        // A request body is bounded by max_body_bytes: its bytes reopen the windows at once (what nghttp2's
        // automatic WINDOW_UPDATE did before tunnels needed NO_AUTO_WINDOW_UPDATE).
        nghttp2_session_consume(session, id, len);
        if (st == nullptr || st->delivered) return 0;
        if (st->body.size() + len > s.config_.max_body_bytes) {
            st->error_status = 413;
            st->body.clear();
            st->body.shrink_to_fit();
            s.deliver(*st);
            return 0;
        }
        st->body.append(reinterpret_cast<const char*>(data), len);
        return 0;
    }

    static int on_frame_send(nghttp2_session* session, const nghttp2_frame* frame, void* user) {
        if (frame->hd.type == NGHTTP2_RST_STREAM || frame->hd.type == NGHTTP2_GOAWAY) {
            SessionStats& stats = self(user).stats_;
            if (frame->hd.type == NGHTTP2_RST_STREAM)
                ++stats.rst_sent[SessionStats::code_index(frame->rst_stream.error_code)];
            else
                ++stats.goaway_sent[SessionStats::code_index(frame->goaway.error_code)];
            ++stats.events;
            return 0;
        }
        if (frame->hd.type != NGHTTP2_HEADERS && frame->hd.type != NGHTTP2_DATA) return 0;
        if (!(frame->hd.flags & NGHTTP2_FLAG_END_STREAM)) return 0;
        Stream* st = self(user).find(frame->hd.stream_id);
        if (st == nullptr) return 0;
        st->finished = true;
        // A complete response before the whole request: ask the client to stop sending (RFC 9113 §8.1).
        if (!st->request_done) nghttp2_submit_rst_stream(session, NGHTTP2_FLAG_NONE, st->id, NGHTTP2_NO_ERROR);
        return 0;
    }

    static int on_stream_close(nghttp2_session*, int32_t id, uint32_t, void* user) {
        ServerSession& s = self(user);
        auto it = s.streams_.find(id);
        if (it == s.streams_.end()) return 0;
        if (!it->second->delivered) {
            --s.receiving_;
        } else {
            --s.active_;
            // Still findable during the call, so the handler can read body_bytes_sent(id).
            if (!it->second->finished) {
                s.handler_.on_stream_reset(id);
            } else if (it->second->tunnel) {
                s.handler_.on_stream_closed(id);
            }
            it = s.streams_.find(id);  // the handler may have reset other streams
            if (it == s.streams_.end()) return 0;
            s.release_unconsumed(*it->second);
        }
        s.close_stream(it);
        return 0;
    }

    static ssize_t read_data(nghttp2_session*, int32_t, uint8_t* buf, size_t length, uint32_t* flags,
                             nghttp2_data_source* source, void*) {
        auto* st = static_cast<Stream*>(source->ptr);
        if (st->source) return read_source(*st, buf, length, flags);
        std::size_t n = 0;
        while (n < length && !st->out_empty()) {
            const std::string& front = st->out[st->out_head];
            std::size_t take = std::min(length - n, front.size() - st->out_offset);
            std::memcpy(buf + n, front.data() + st->out_offset, take);
            n += take;
            st->out_offset += take;
            if (st->out_offset == front.size()) {
                ++st->out_head;
                st->out_offset = 0;
            }
        }
        st->queued -= n;
        st->body_sent += n;
        if (st->out_empty()) {
            st->out.clear();  // keeps the capacity for the next write()
            st->out_head = 0;
            if (st->out_end) {
                *flags |= NGHTTP2_DATA_FLAG_EOF;
            } else if (n == 0) {
                st->deferred = true;
                return NGHTTP2_ERR_DEFERRED;
            }
        }
        return static_cast<ssize_t>(n);
    }

    // A body from a BodySource: at most `length` bytes (what the window and the frame size allow) per DATA frame.
    static ssize_t read_source(Stream& st, uint8_t* buf, size_t length, uint32_t* flags) {
        std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(length, st.source_left));
        std::size_t n = 0;
        if (want > 0) {
            base::Result<std::size_t> r = st.source->read({reinterpret_cast<char*>(buf), want});
            if (!r.is_ok() || *r == 0 || *r > want) return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;  // resets it
            n = *r;
            st.source_left -= n;
            st.body_sent += n;
        }
        if (st.source_left == 0) {
            *flags |= NGHTTP2_DATA_FLAG_EOF;
            st.source.reset();  // a file closes as soon as its last byte is framed
        }
        return static_cast<ssize_t>(n);
    }
};

ServerSession::ServerSession(const SessionConfig& config, SessionHandler& handler)
    : config_(config),
      handler_(handler),
      resets_(config.reset_burst, config.reset_rate),
      control_(config.control_burst, config.control_rate),
      scratch_(std::make_unique<Scratch>()),
      allocator_(std::make_unique<detail::RecyclingAllocator>()) {}

ServerSession::Stream& ServerSession::open_stream(StreamId id) {
    auto& spare = scratch_->spare;
    if (spare.empty()) {
        auto [it, inserted] = streams_.try_emplace(id, std::make_unique<Stream>());
        it->second->id = id;
        return *it->second;
    }
    StreamMap::node_type node = std::move(spare.back());
    spare.pop_back();
    node.key() = id;
    node.mapped()->id = id;
    Stream& stream = *node.mapped();
    streams_.insert(std::move(node));
    return stream;
}

void ServerSession::close_stream(StreamMap::iterator it) {
    static constexpr std::size_t kMaxSpare = 32;
    if (found_ == it->second.get()) found_ = nullptr;
    StreamMap::node_type node = streams_.extract(it);
    if (scratch_->spare.size() >= kMaxSpare) return;
    node.mapped()->recycle();
    scratch_->spare.push_back(std::move(node));
}

base::Result<std::unique_ptr<ServerSession>> ServerSession::create(const SessionConfig& config,
                                                                   SessionHandler& handler) {
    std::unique_ptr<ServerSession> s(new ServerSession(config, handler));
    nghttp2_session_callbacks* cb = nullptr;
    if (nghttp2_session_callbacks_new(&cb) != 0) return base::Status::internal("h2: out of memory");
    nghttp2_session_callbacks_set_on_begin_frame_callback(cb, &Callbacks::on_begin_frame);
    nghttp2_session_callbacks_set_on_begin_headers_callback(cb, &Callbacks::on_begin_headers);
    nghttp2_session_callbacks_set_on_header_callback(cb, &Callbacks::on_header);
    nghttp2_session_callbacks_set_on_frame_recv_callback(cb, &Callbacks::on_frame_recv);
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(cb, &Callbacks::on_data_chunk);
    nghttp2_session_callbacks_set_on_frame_send_callback(cb, &Callbacks::on_frame_send);
    nghttp2_session_callbacks_set_on_stream_close_callback(cb, &Callbacks::on_stream_close);
    // Received DATA reopens the windows only once consumed: at once for request bodies (bounded by
    // max_body_bytes), as its owner processes it for a tunnel (RFC 8441), so a WebSocket peer that does not
    // read what it asks for cannot make the server buffer without bound.
    nghttp2_option* option = nullptr;
    if (nghttp2_option_new(&option) != 0) {
        nghttp2_session_callbacks_del(cb);
        return base::Status::internal("h2: out of memory");
    }
    nghttp2_option_set_no_auto_window_update(option, 1);
    // RFC 9113 §8 request checks are detail::RequestChecks (request_checks.h), run on the fields as they are
    // stored, instead of nghttp2's separate pass over every field.
    nghttp2_option_set_no_http_messaging(option, 1);
    // nghttp2_option_set_no_closed_streams would save a little per stream, but without closed streams nghttp2
    // cannot tell a frame on a closed stream (STREAM_CLOSED, RFC 9113 §5.1) from one on an idle stream.
    // nghttp2's allocations go through the session's RecyclingAllocator (recycling_allocator.h).
    nghttp2_mem mem{};
    mem.mem_user_data = s->allocator_.get();
    mem.malloc = [](size_t n, void* a) { return static_cast<detail::RecyclingAllocator*>(a)->allocate(n); };
    mem.free = [](void* p, void* a) { static_cast<detail::RecyclingAllocator*>(a)->release(p); };
    mem.calloc = [](size_t n, size_t size, void* a) {
        return static_cast<detail::RecyclingAllocator*>(a)->allocate_zeroed(n, size);
    };
    mem.realloc = [](void* p, size_t n, void* a) {
        return static_cast<detail::RecyclingAllocator*>(a)->reallocate(p, n);
    };
    int rv = nghttp2_session_server_new3(&s->session_, cb, s.get(), option, &mem);
    nghttp2_option_del(option);
    nghttp2_session_callbacks_del(cb);
    if (rv != 0) return base::Status::internal("h2: out of memory");

    const nghttp2_settings_entry settings[] = {
        {NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, config.max_concurrent_streams},
        {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, config.initial_window_size},
        {NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE, config.max_header_list_size},
        {NGHTTP2_SETTINGS_ENABLE_CONNECT_PROTOCOL, 1},  // extended CONNECT: WebSocket over HTTP/2 (RFC 8441)
    };
    if (nghttp2_submit_settings(s->session_, NGHTTP2_FLAG_NONE, settings, std::size(settings)) != 0)
        return base::Status::internal("h2: cannot submit SETTINGS");
    if (config.connection_window_size > NGHTTP2_INITIAL_CONNECTION_WINDOW_SIZE) {
        rv = nghttp2_session_set_local_window_size(s->session_, NGHTTP2_FLAG_NONE, 0,
                                                   static_cast<int32_t>(config.connection_window_size));
        if (rv != 0) return base::Status::internal("h2: cannot set the connection window");
    }
    return s;
}

ServerSession::~ServerSession() {
    nghttp2_session_del(session_);
}

// nghttp2 ignores HEADERS on a stream id below the last one when it no longer knows the stream (it cannot tell
// a forgotten closed stream from a new one). Ids a client skipped are known here: their streams were closed
// unused (RFC 9113 §5.1.1), so opening one is a PROTOCOL_ERROR.
bool ServerSession::note_client_stream(StreamId id) {
    if (id <= 0 || id % 2 == 0) return true;  // nghttp2 judges stream 0 and even ids itself
    if (id > last_client_stream_) {
        if (id > last_client_stream_ + 2) {
            skipped_.push_back({last_client_stream_ + 2, id - 2});
            if (skipped_.size() > kMaxSkippedRanges) skipped_.pop_front();
        }
        last_client_stream_ = id;
        return true;
    }
    for (const auto& [first, last] : skipped_)
        if (id >= first && id <= last) return false;
    return true;
}

ServerSession::Stream* ServerSession::find(StreamId id) {
    // A request's callbacks and its answer ask for the same stream several times in a row.
    if (found_ != nullptr && found_->id == id) return found_;
    auto it = streams_.find(id);
    if (it == streams_.end()) return nullptr;
    found_ = it->second.get();
    return found_;
}

int ServerSession::flood(FloodKind kind) {
    if (!fatal_) {
        ++stats_.floods[static_cast<std::size_t>(kind)];
        ++stats_.events;
    }
    return fail(ErrorCode::kEnhanceYourCalm);
}

int ServerSession::fail(ErrorCode code) {
    fatal_ = true;
    if (error_code_ == ErrorCode::kNoError) error_code_ = code;
    return NGHTTP2_ERR_CALLBACK_FAILURE;
}

void ServerSession::deliver(Stream& s) {
    s.delivered = true;
    --receiving_;
    ++active_;
    std::vector<HeaderField>& headers = scratch_->request_fields;  // reused: no allocation per request
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
    Stream& st = open_stream(1);
    auto keep = [&st](std::string_view v) {
        auto off = static_cast<std::uint32_t>(st.fields.size());
        st.fields.append(v);
        return std::array<std::uint32_t, 2>{off, static_cast<std::uint32_t>(v.size())};
    };
    st.pseudo = {keep(request.method), keep(request.scheme), keep(request.authority),
                 keep(request.path)};  // Pseudo order
    for (const HeaderField& f : request.headers) {
        auto off = static_cast<std::uint32_t>(st.fields.size());
        for (char c : f.name)
            st.fields.push_back(c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c);
        if (connection_specific(st.view(off, static_cast<std::uint32_t>(f.name.size())))) {
            st.fields.resize(off);
            continue;
        }
        auto [voff, vlen] = keep(f.value);
        st.regular.push_back({off, static_cast<std::uint32_t>(f.name.size()), voff, vlen});
    }
    st.body.assign(request.body);
    st.request_done = true;
    int rv = nghttp2_session_upgrade2(session_, reinterpret_cast<const uint8_t*>(payload->data()), payload->size(),
                                      request.method == "HEAD" ? 1 : 0, &st);
    if (rv != 0) {
        close_stream(streams_.find(1));
        return base::Status::invalid_argument(std::string("HTTP2-Settings: ") + nghttp2_strerror(rv));
    }
    last_client_stream_ = 1;
    ++receiving_;
    ++stats_.streams_opened;
    deliver(st);
    return base::Status::ok();
}

base::Status ServerSession::receive(std::string_view bytes, base::MonoNanos now) {
    if (fatal_) return base::Status::cancelled("h2: session already failed");
    now_ = now;
    ssize_t rv = nghttp2_session_mem_recv(session_, reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
    if (rv >= 0) return base::Status::ok();
    ErrorCode code = error_code_;
    if (!fatal_) {
        fatal_ = true;
        code = rv == NGHTTP2_ERR_FLOODED || rv == kErrTooManyContinuations ? ErrorCode::kEnhanceYourCalm
               : rv == NGHTTP2_ERR_BAD_CLIENT_MAGIC                        ? ErrorCode::kProtocolError
                                                                           : ErrorCode::kInternalError;
        error_code_ = code;
        if (code == ErrorCode::kEnhanceYourCalm) {
            FloodKind kind = rv == kErrTooManyContinuations ? FloodKind::kContinuation : FloodKind::kOther;
            ++stats_.floods[static_cast<std::size_t>(kind)];
            ++stats_.events;
        }
    }
    nghttp2_session_terminate_session(session_, static_cast<uint32_t>(code));
    std::string reason = std::string("h2: ") + nghttp2_strerror(static_cast<int>(rv)) + " (GOAWAY " +
                         std::string(error_code_name(code)) + ")";
    if (code == ErrorCode::kEnhanceYourCalm) return base::Status::resource_exhausted(std::move(reason));
    return base::Status::invalid_argument(std::move(reason));
}

std::size_t ServerSession::send(std::string& out, std::size_t limit) {
    std::size_t added = 0;
    while (out.size() < limit) {
        const uint8_t* data = nullptr;
        ssize_t n = nghttp2_session_mem_send(session_, &data);
        if (n <= 0) {
            if (n < 0) broken_ = true;
            break;
        }
        out.append(reinterpret_cast<const char*>(data), static_cast<std::size_t>(n));
        added += static_cast<std::size_t>(n);
    }
    return added;
}

bool ServerSession::want_write() const {
    return !broken_ && nghttp2_session_want_write(session_) != 0;
}

bool ServerSession::done() const {
    return broken_ || (nghttp2_session_want_read(session_) == 0 && nghttp2_session_want_write(session_) == 0);
}

base::Status ServerSession::submit(StreamId id, int status, std::span<const HeaderField> headers, bool with_body) {
    Stream* s = find(id);
    if (s == nullptr || s->responded) return base::Status::not_found("h2: no such stream");
    if (status < 100 || status > 999) return base::Status::invalid_argument("h2: bad status");
    s->responded = true;
    // The names (lowered: HTTP/2 field names are lowercase on the wire) and values are copied once into the
    // stream's `head`, which lives until the stream closes, so nghttp2 is told not to copy them again
    // (NO_COPY: it reads them when it frames the HEADERS, and never after the stream is closed).
    std::size_t bytes = 3;
    for (const HeaderField& h : headers)
        bytes += h.name.size() + h.value.size();
    std::string& head = s->head;
    head.resize(bytes);  // sized once: the views below stay valid
    char* p = head.data();
    p[0] = static_cast<char>('0' + status / 100);
    p[1] = static_cast<char>('0' + status / 10 % 10);
    p[2] = static_cast<char>('0' + status % 10);
    std::vector<nghttp2_nv>& nva = scratch_->nva;
    nva.clear();
    auto u8 = [](const char* c) { return reinterpret_cast<uint8_t*>(const_cast<char*>(c)); };
    constexpr std::uint8_t kNoCopy = NGHTTP2_NV_FLAG_NO_COPY_NAME | NGHTTP2_NV_FLAG_NO_COPY_VALUE;
    nva.push_back({u8(":status"), u8(p), 7, 3, kNoCopy});
    p += 3;
    for (const HeaderField& h : headers) {
        char* name = p;
        p = detail::copy_lowercase(p, h.name);
        char* value = p;
        std::memcpy(value, h.value.data(), h.value.size());
        p += h.value.size();
        std::uint8_t flag = kNoCopy;
        if (unique_per_response({name, h.name.size()})) {
            if (now_ - unique_indexed_at_ < kIndexUniqueEvery) {
                flag |= NGHTTP2_NV_FLAG_NO_INDEX;
            } else {
                unique_indexed_at_ = now_;
            }
        }
        nva.push_back({u8(name), u8(value), h.name.size(), h.value.size(), flag});
    }
    nghttp2_data_provider provider{};
    provider.source.ptr = s;
    provider.read_callback = &Callbacks::read_data;
    int rv = nghttp2_submit_response(session_, id, nva.data(), nva.size(), with_body ? &provider : nullptr);
    if (rv != 0) return base::Status::invalid_argument(std::string("h2: ") + nghttp2_strerror(rv));
    return base::Status::ok();
}

base::Status ServerSession::respond(StreamId id, int status, std::span<const HeaderField> headers, std::string body) {
    Stream* s = find(id);
    if (s == nullptr || s->responded) return base::Status::not_found("h2: no such stream");
    bool with_body = !body.empty();
    s->queued += body.size();
    if (with_body) s->out.push_back(std::move(body));
    s->out_end = true;
    return submit(id, status, headers, with_body);
}

base::Status ServerSession::respond(StreamId id, int status, std::span<const HeaderField> headers,
                                    std::unique_ptr<BodySource> body, std::uint64_t length) {
    Stream* s = find(id);
    if (s == nullptr || s->responded) return base::Status::not_found("h2: no such stream");
    if (body == nullptr || length == 0) return base::Status::invalid_argument("h2: an empty body source");
    s->source = std::move(body);
    s->source_left = length;
    s->out_end = true;
    base::Status st = submit(id, status, headers, true);
    if (!st.is_ok()) s->source.reset();
    return st;
}

base::Status ServerSession::start_stream(StreamId id, int status, std::span<const HeaderField> headers) {
    return submit(id, status, headers, true);
}

base::Status ServerSession::write(StreamId id, std::string_view data) {
    Stream* s = find(id);
    if (s == nullptr || !s->responded || s->out_end) return base::Status::not_found("h2: no such stream");
    if (data.empty()) return base::Status::ok();
    s->queued += data.size();
    s->out.emplace_back(data);
    if (s->deferred) {
        s->deferred = false;
        nghttp2_session_resume_data(session_, id);
    }
    return base::Status::ok();
}

base::Status ServerSession::end(StreamId id) {
    Stream* s = find(id);
    if (s == nullptr || !s->responded || s->out_end) return base::Status::not_found("h2: no such stream");
    s->out_end = true;
    if (s->deferred) {
        s->deferred = false;
        nghttp2_session_resume_data(session_, id);
    }
    return base::Status::ok();
}

std::size_t ServerSession::queued_bytes(StreamId id) const {
    auto it = streams_.find(id);
    return it == streams_.end() ? 0 : it->second->queued;
}

std::size_t ServerSession::body_bytes_sent(StreamId id) const {
    auto it = streams_.find(id);
    return it == streams_.end() ? 0 : it->second->body_sent;
}

void ServerSession::reset(StreamId id, ErrorCode code) {
    if (find(id) == nullptr) return;
    nghttp2_submit_rst_stream(session_, NGHTTP2_FLAG_NONE, id, static_cast<uint32_t>(code));
}

void ServerSession::consume(StreamId id, std::size_t n) {
    Stream* s = find(id);
    if (s == nullptr || n == 0) return;
    n = std::min(n, s->unconsumed);
    s->unconsumed -= n;
    nghttp2_session_consume(session_, id, n);
}

void ServerSession::release_unconsumed(Stream& s) {
    if (s.unconsumed == 0) return;
    nghttp2_session_consume_connection(session_, s.unconsumed);  // the stream's own window is gone with it
    s.unconsumed = 0;
}

void ServerSession::shutdown() {
    nghttp2_submit_goaway(session_, NGHTTP2_FLAG_NONE, nghttp2_session_get_last_proc_stream_id(session_),
                          NGHTTP2_NO_ERROR, nullptr, 0);
}

void ServerSession::terminate(ErrorCode code) {
    if (error_code_ == ErrorCode::kNoError) error_code_ = code;
    nghttp2_session_terminate_session(session_, static_cast<uint32_t>(code));
}

}  // namespace slipstream::http::h2
