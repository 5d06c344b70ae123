// Connection: non-blocking connect over each address, the TLS handshake, the request out, the response in (head,
// Content-Length / chunked / until-close bodies), pause and resume, timers, keep-alive.
#include "store/http/connection.h"

#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "net/event_loop.h"
#include "net/socket.h"
#include "net/tls/tls_context.h"
#include "store/http/h2_link.h"

namespace slipstream::store::http {
namespace {

constexpr std::size_t kReadSize = 16 * 1024;

std::string ms_text(std::int64_t ns) {
    return std::to_string(ns / 1'000'000) + " ms";
}

h1::Limits chunk_limits(const ClientOptions& o) {
    h1::Limits l;
    l.max_body = o.max_body_bytes;
    l.max_chunk_line = o.max_chunk_line;
    l.max_trailer_bytes = o.max_trailer_bytes;
    return l;
}

}  // namespace

Connection::Connection(Client& client, Origin& origin)
    : client_(client), origin_(origin), chunked_(chunk_limits(client.options_)) {
    timer_.set_callback([this] { on_timer(); });
    arm(client_.options_.connect_timeout_ns, "connect");
}

Connection::~Connection() {
    close();
}

void Connection::close() {
    if (state_ == State::kClosed) return;
    state_ = State::kClosed;
    timer_.cancel();
    if (tls_ && tls_->handshake_done()) tls_->close_notify();
    tls_.reset();
    if (fd_ >= 0) {
        if (registered_) client_.loop_.remove(fd_).ignore_error();
        ::close(fd_);
    }
    fd_ = -1;
    registered_ = false;
}

std::shared_ptr<Call> Connection::abort_call(Call* which) {
    if (h2_) return h2_->abort(which);
    std::shared_ptr<Call> call = std::move(call_);
    call_ = nullptr;
    if (call) call->conn_ = nullptr;
    if (state_ != State::kClosed) {
        close();
        if (!client_.closing_) client_.drop(this);  // the closing client destroys its connections itself
    }
    return call;
}

std::vector<std::shared_ptr<Call>> Connection::abort_all() {
    std::vector<std::shared_ptr<Call>> calls;
    if (h2_) {
        calls = h2_->take_all();
    } else if (call_) {
        calls.push_back(std::move(call_));
        call_ = nullptr;
    }
    for (auto& c : calls)
        c->conn_ = nullptr;
    return calls;
}

bool Connection::h2_usable() const {
    return h2_ && state_ == State::kMultiplexed && h2_->usable();
}

bool Connection::h2_can_take() const {
    return h2_usable() && h2_->can_take();
}

bool Connection::h2_idle() const {
    return h2_ && state_ == State::kMultiplexed && h2_->streams() == 0;
}

void Connection::arm(std::int64_t delay_ns, const char* phase) {
    timer_phase_ = phase;
    timer_ns_ = delay_ns;
    if (delay_ns <= 0) {
        timer_.cancel();
        return;
    }
    client_.loop_.schedule_after(timer_, delay_ns);
}

// ---- connecting ----

void Connection::addresses_ready(base::Status status) {
    if (state_ != State::kResolving) return;
    if (!status.is_ok()) {
        fail_connect(std::move(status));
        return;
    }
    state_ = State::kConnecting;
    next_address_ = 0;
    connect_next();
}

void Connection::connect_next() {
    const auto& addrs = origin_.addresses;
    while (next_address_ < addrs.size()) {
        const net::SocketAddress& addr = addrs[next_address_++];
        int fd = ::socket(addr.family(), SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (fd < 0) {
            last_connect_error_ = base::Status::from_errno("socket", errno);
            continue;
        }
        net::set_tcp_nodelay(fd, true).ignore_error();
        int rc = ::connect(fd, addr.sockaddr_ptr(), addr.sockaddr_len());
        if (rc == 0 || errno == EINPROGRESS) {
            fd_ = fd;
            if (rc == 0) {
                on_connected();
            } else {
                set_events();
            }
            return;
        }
        last_connect_error_ = base::Status::from_errno("connect to " + addr.to_string(), errno);
        ::close(fd);
    }
    fail_connect(last_connect_error_.is_ok() ? base::Status::unavailable("no address") : last_connect_error_);
}

void Connection::on_connected() {
    if (!origin_.tls) {
        ready(origin_.mode == Http2Mode::kPriorKnowledge);
        return;
    }
    auto ctx = client_.tls_context(origin_.mode);
    if (!ctx.is_ok()) {
        fail_connect(ctx.status());
        return;
    }
    auto stream = net::tls::TlsStream::connect(*ctx, fd_, origin_.host);
    if (!stream.is_ok()) {
        fail_connect(stream.status());
        return;
    }
    tls_ = std::move(stream).value();
    state_ = State::kHandshake;
    continue_handshake();
}

void Connection::continue_handshake() {
    auto r = tls_->handshake();
    if (!r.is_ok()) {
        fail_connect(r.status());
        return;
    }
    switch (*r) {
        case net::tls::TlsStream::Progress::kWantRead:
            handshake_wants_write_ = false;
            set_events();
            return;
        case net::tls::TlsStream::Progress::kWantWrite:
            handshake_wants_write_ = true;
            set_events();
            return;
        case net::tls::TlsStream::Progress::kDone:
            break;
    }
    // ALPN: "h2", "http/1.1", or none (then HTTP/1.1, unless HTTP/2 is known beforehand).
    std::string_view alpn = tls_->alpn();
    const bool prior = origin_.mode == Http2Mode::kPriorKnowledge;
    if (alpn == "h2" && origin_.mode != Http2Mode::kOff) {
        ready(true);
    } else if (alpn.empty() || (alpn == "http/1.1" && !prior)) {
        ready(prior);
    } else {
        fail_connect(base::Status::invalid_argument("tls: the server chose protocol '" + std::string(alpn) +
                                                    "', which this client did not offer"));
    }
}

void Connection::ready(bool http2) {
    --origin_.connecting;
    ++client_.counters_.connects;
    timer_.cancel();
    if (!http2) {
        const bool was_unknown = origin_.learned == Origin::Protocol::kUnknown;
        origin_.learned = Origin::Protocol::kHttp1;
        state_ = State::kIdle;
        client_.release(this);
        // The origin speaks HTTP/1.1: the calls that waited behind this one connection get connections of their own.
        if (was_unknown && !client_.closing_) client_.dispatch(origin_);
        return;
    }
    origin_.learned = Origin::Protocol::kHttp2;
    state_ = State::kMultiplexed;
    h2_ = std::make_unique<H2Link>(*this);
    if (origin_.h2 == nullptr || !origin_.h2->h2_usable()) origin_.h2 = this;
    h2_->start();
    if (state_ == State::kMultiplexed) client_.dispatch(origin_);
}

void Connection::fail_connect(base::Status status) {
    bool counted = state_ == State::kResolving || state_ == State::kConnecting || state_ == State::kHandshake;
    close();
    client_.drop(this, false);
    if (counted) --origin_.connecting;
    std::string what = "http: cannot connect to " + origin_.key + ": " + status.message();
    base::Status s = status.is_timeout()              ? base::Status::timeout(std::move(what))
                     : status.is_invalid_argument()   ? base::Status::invalid_argument(std::move(what))
                     : status.is_resource_exhausted() ? base::Status::resource_exhausted(std::move(what))
                     : status.is_not_found()          ? base::Status::not_found(std::move(what))
                                                      : base::Status::unavailable(std::move(what));
    client_.connect_failed(origin_, std::move(s));
}

// ---- idle ----

void Connection::park() {
    state_ = State::kIdle;
    in_.clear();
    in_pos_ = 0;
    set_events();
    arm(client_.options_.idle_connection_ns, "idle connection");
}

bool Connection::healthy() {
    if (state_ != State::kIdle || fd_ < 0) return false;
    if (tls_ && tls_->has_buffered_input()) return false;
    char c;
    ssize_t n = ::recv(fd_, &c, 1, MSG_PEEK | MSG_DONTWAIT);
    return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);  // nothing: neither EOF nor stray bytes
}

// ---- a call ----

void Connection::assign(std::shared_ptr<Call> call) {
    if (h2_) {
        h2_->assign(std::move(call));
        return;
    }
    state_ = State::kActive;
    call_ = std::move(call);
    call_->conn_ = this;
    call_->reused_ = served_ > 0;
    call_->backing_off_ = false;
    ++call_->attempts_;
    call_->wait_timer_.cancel();
    out_pos_ = 0;
    in_.clear();
    in_pos_ = 0;
    phase_ = Phase::kHead;
    body_kind_ = h1::ResponseBody::kNone;
    remaining_ = 0;
    body_bytes_ = 0;
    keep_alive_ = false;
    eof_ = false;
    chunked_.reset();
    arm(call_->request_.timeouts.first_byte_ns, "first-byte");
    write_request();
    if (state_ == State::kActive) set_events();
}

void Connection::write_request() {
    if (!call_) return;
    const std::string& wire = call_->h1_wire();
    while (out_pos_ < wire.size()) {
        auto r = raw_write(std::string_view(wire).substr(out_pos_));
        if (!r.is_ok()) {
            if (net::would_block(r)) {
                set_events();
                return;
            }
            fail(base::Status::unavailable("http: sending the request to " + origin_.key +
                                           " failed: " + r.status().message()));
            return;
        }
        out_pos_ += *r;
    }
}

void Connection::on_io(std::uint32_t events) {
    switch (state_) {
        case State::kConnecting: {
            int err = net::socket_error(fd_);
            if (err == 0 && (events & EPOLLOUT) != 0) {
                on_connected();
                return;
            }
            const net::SocketAddress& addr = origin_.addresses[next_address_ - 1];
            last_connect_error_ =
                base::Status::from_errno("connect to " + addr.to_string(), err != 0 ? err : ECONNRESET);
            if (registered_) client_.loop_.remove(fd_).ignore_error();
            registered_ = false;
            ::close(fd_);
            fd_ = -1;
            connect_next();
            return;
        }
        case State::kHandshake:
            continue_handshake();
            return;
        case State::kIdle:
            // The server closed a kept-alive connection (or sent what nobody asked for).
            expire_idle();
            return;
        case State::kActive:
            break;
        case State::kMultiplexed:
            h2_->on_io(events);
            return;
        default:
            return;
    }
    if (call_ && call_->paused_) {
        // Paused: reading waits for resume(). A hang-up would be reported at every turn: stop listening until then.
        if ((events & (EPOLLHUP | EPOLLERR)) != 0 && registered_) {
            client_.loop_.remove(fd_).ignore_error();
            registered_ = false;
        }
        if ((events & EPOLLOUT) != 0 && call_ && out_pos_ < call_->wire_.size()) write_request();
        return;
    }
    if ((events & EPOLLOUT) != 0 && call_ && out_pos_ < call_->wire_.size()) {
        write_request();
        if (state_ != State::kActive) return;
    }
    if ((events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) != 0 ||
        (tls_ && tls_->read_wants_write() && (events & EPOLLOUT) != 0)) {
        read_response();
    }
}

void Connection::read_response() {
    while (state_ == State::kActive && call_ && !call_->paused_ && !eof_) {
        if (in_pos_ == in_.size()) {
            in_.clear();
            in_pos_ = 0;
        } else if (in_pos_ > 64 * 1024) {
            in_.erase(0, in_pos_);
            in_pos_ = 0;
        }
        std::size_t old = in_.size();
        in_.resize(old + kReadSize);
        auto r = raw_read(std::span<char>(in_.data() + old, kReadSize));
        if (!r.is_ok()) {
            in_.resize(old);
            if (net::would_block(r)) break;
            // A reset: what came before it still counts.
            pump();
            if (state_ == State::kActive && call_) {
                fail(base::Status::unavailable("http: connection to " + origin_.key +
                                               " failed: " + r.status().message()));
            }
            return;
        }
        std::size_t n = *r;
        in_.resize(old + n);
        if (n == 0) {
            eof_ = true;
        } else {
            call_->head_seen_ = true;
            if (phase_ != Phase::kHead) arm(call_->request_.timeouts.idle_ns, "idle");
        }
        pump();
        if (n > 0 && n < kReadSize && !(tls_ && tls_->has_buffered_input())) break;  // drained
    }
    if (state_ == State::kActive) set_events();
}

void Connection::pump() {
    process();
    if (state_ != State::kActive || !call_ || call_->paused_) return;
    if (!eof_ || in_pos_ < in_.size()) {
        if (!eof_ || phase_ != Phase::kHead) return;
    }
    // The server closed the connection and every byte before it has been handled.
    if (phase_ == Phase::kBody && body_kind_ == h1::ResponseBody::kUntilClose) {
        phase_ = Phase::kDone;
        complete();
        return;
    }
    if (phase_ == Phase::kHead && !call_->head_seen_) {
        fail(base::Status::unavailable("http: " + origin_.key + " closed the connection before responding"));
        return;
    }
    if (phase_ == Phase::kHead) {
        fail(base::Status::unavailable("http: " + origin_.key + " closed the connection inside the response head"));
        return;
    }
    std::string got = std::to_string(body_bytes_) + " bytes";
    if (body_kind_ == h1::ResponseBody::kContentLength) got += " of " + std::to_string(body_bytes_ + remaining_);
    fail(base::Status::unavailable("http: " + origin_.key + " closed the connection: response body truncated after " +
                                   got));
}

void Connection::process() {
    while (state_ == State::kActive && call_ && !call_->paused_) {
        std::string_view avail(in_.data() + in_pos_, in_.size() - in_pos_);
        if (phase_ == Phase::kHead) {
            if (avail.empty()) return;
            if (fields_.empty())
                fields_.resize(std::max<std::size_t>(client_.options_.head_limits.max_header_count, 1));
            h1::ResponseHead head;
            h1::ResponseContext ctx{.head_request = call_->request_.method == "HEAD"};
            h1::ParseStatus st =
                h1::parse_response(avail, client_.options_.head_limits, ctx, &head, fields_.data(), fields_.size());
            if (st.is_incomplete()) return;
            if (st.is_error()) {
                fail(base::Status::invalid_argument("http: bad response from " + origin_.key + ": " +
                                                    std::string(st.error.reason)));
                return;
            }
            in_pos_ += st.consumed;
            if (head.interim()) {
                if (head.status == 101) {
                    fail(base::Status::invalid_argument("http: " + origin_.key + " switched protocols (101) unasked"));
                    return;
                }
                continue;  // 100 Continue, 103 Early Hints: the real head follows
            }
            body_kind_ = head.body;
            remaining_ = head.content_length;
            keep_alive_ = head.keep_alive;
            if (body_kind_ == h1::ResponseBody::kContentLength && remaining_ > client_.options_.max_body_bytes) {
                fail(base::Status::out_of_range("http: response body of " + std::to_string(remaining_) +
                                                " bytes from " + origin_.key + " is over the limit of " +
                                                std::to_string(client_.options_.max_body_bytes)));
                return;
            }
            phase_ = body_kind_ == h1::ResponseBody::kNone ||
                             (body_kind_ == h1::ResponseBody::kContentLength && remaining_ == 0)
                         ? Phase::kDone
                         : Phase::kBody;
            arm(call_->request_.timeouts.idle_ns, "idle");
            ResponseHead owned;
            owned.status = head.status;
            owned.reason = std::string(head.reason);
            owned.version_minor = head.version_minor;
            owned.headers.reserve(head.headers.size());
            for (const auto& h : head.headers)
                owned.headers.emplace_back(std::string(h.name), std::string(h.value));
            std::shared_ptr<Call> call = call_;
            if (call->callbacks_.on_head) call->callbacks_.on_head(owned);
            if (call_ != call || state_ != State::kActive) return;
            continue;
        }
        if (phase_ == Phase::kDone) {
            complete();
            return;
        }
        if (avail.empty()) return;
        switch (body_kind_) {
            case h1::ResponseBody::kContentLength: {
                std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(avail.size(), remaining_));
                in_pos_ += n;
                remaining_ -= n;
                if (remaining_ == 0) phase_ = Phase::kDone;
                deliver(avail.substr(0, n));
                break;
            }
            case h1::ResponseBody::kChunked: {
                h1::ChunkedDecoder::Step step = chunked_.decode(avail);
                in_pos_ += step.consumed;
                switch (step.event) {
                    case h1::ChunkedDecoder::Event::kData:
                        deliver(step.data);
                        break;
                    case h1::ChunkedDecoder::Event::kNeedMore:
                        return;
                    case h1::ChunkedDecoder::Event::kDone:
                        phase_ = Phase::kDone;
                        break;
                    case h1::ChunkedDecoder::Event::kError:
                        if (step.error.http_status == 413) {
                            fail(base::Status::out_of_range("http: response body from " + origin_.key +
                                                            " is over the limit of " +
                                                            std::to_string(client_.options_.max_body_bytes)));
                        } else {
                            fail(base::Status::invalid_argument("http: bad chunked body from " + origin_.key + ": " +
                                                                std::string(step.error.reason)));
                        }
                        return;
                }
                break;
            }
            case h1::ResponseBody::kUntilClose:
                if (body_bytes_ + avail.size() > client_.options_.max_body_bytes) {
                    fail(base::Status::out_of_range("http: response body from " + origin_.key +
                                                    " is over the limit of " +
                                                    std::to_string(client_.options_.max_body_bytes)));
                    return;
                }
                in_pos_ += avail.size();
                deliver(avail);
                break;
            case h1::ResponseBody::kNone:
                phase_ = Phase::kDone;
                break;
        }
    }
}

void Connection::deliver(std::string_view data) {
    if (data.empty()) return;
    body_bytes_ += data.size();
    std::shared_ptr<Call> call = call_;
    if (call->callbacks_.on_data) call->callbacks_.on_data(data);
}

void Connection::complete() {
    std::shared_ptr<Call> call = std::move(call_);
    call_ = nullptr;
    call->conn_ = nullptr;
    timer_.cancel();
    ++served_;
    const bool reusable = keep_alive_ && !eof_ && in_pos_ == in_.size() && out_pos_ == call->wire_.size();
    in_.clear();
    in_pos_ = 0;
    if (reusable) {
        state_ = State::kIdle;
        client_.release(this);
    } else {
        close();
        client_.drop(this);
    }
    call->finish(base::Status::ok());
}

void Connection::fail(base::Status status) {
    std::shared_ptr<Call> call = std::move(call_);
    call_ = nullptr;
    close();
    client_.drop(this, false);
    if (call) {
        call->conn_ = nullptr;
        if (!client_.maybe_retry(call, status)) call->finish(std::move(status));
    }
    if (!client_.closing_) client_.dispatch(origin_);
}

void Connection::expire_idle() {
    ++client_.counters_.expired;
    close();
    client_.drop(this);
}

void Connection::on_timer() {
    switch (state_) {
        case State::kResolving:
        case State::kConnecting:
        case State::kHandshake:
            fail_connect(base::Status::timeout("no connection within " + ms_text(timer_ns_) + " (connect timeout)"));
            return;
        case State::kIdle:
            expire_idle();
            return;
        case State::kMultiplexed:
            h2_->on_idle_timer();
            return;
        case State::kActive:
            if (call_ && call_->paused_) return;  // the idle timeout does not run while the reader holds back
            fail(base::Status::timeout("http: " + origin_.key + " sent nothing for " + ms_text(timer_ns_) + " (" +
                                       timer_phase_ + " timeout)"));
            return;
        case State::kClosed:
            return;
    }
}

void Connection::pause_changed(Call* call) {
    if (h2_) {
        h2_->pause_changed(call);
        return;
    }
    if (state_ != State::kActive || !call_) return;
    if (call_->paused_) {
        if (phase_ != Phase::kHead) timer_.cancel();
        set_events();
        return;
    }
    if (phase_ != Phase::kHead) arm(call_->request_.timeouts.idle_ns, "idle");
    pump();
    if (state_ != State::kActive || !call_ || call_->paused_) return;
    read_response();
}

void Connection::set_events() {
    if (fd_ < 0 || state_ == State::kClosed) return;
    std::uint32_t ev = 0;
    switch (state_) {
        case State::kConnecting:
            ev = EPOLLOUT;
            break;
        case State::kHandshake:
            ev = handshake_wants_write_ ? EPOLLOUT : EPOLLIN;
            break;
        case State::kIdle:
            ev = EPOLLIN | EPOLLRDHUP;
            break;
        case State::kActive: {
            const bool paused = call_ && call_->paused_;
            if (!paused && !eof_) ev |= EPOLLIN | EPOLLRDHUP;
            if (call_ && out_pos_ < call_->wire_.size()) ev |= EPOLLOUT;
            if (!paused && tls_ && tls_->read_wants_write()) ev |= EPOLLOUT;
            if (paused && !registered_) return;  // hung up while paused: resume() reads what is left
            break;
        }
        default:
            return;
    }
    base::Status s = watch(ev);
    if (!s.is_ok()) {
        if (state_ == State::kActive) {
            fail(base::Status::unavailable("http: " + s.message()));
        } else {
            fail_connect(std::move(s));
        }
    }
}

base::Status Connection::watch(std::uint32_t events) {
    if (!registered_) {
        SLIPSTREAM_RETURN_IF_ERROR(client_.loop_.add(fd_, events, this));
        registered_ = true;
        return base::Status::ok();
    }
    client_.loop_.modify(fd_, events).ignore_error();
    return base::Status::ok();
}

base::Result<std::size_t> Connection::raw_read(std::span<char> buf) {
    if (tls_) return tls_->read(buf);
    return net::read_some(fd_, buf);
}

base::Result<std::size_t> Connection::raw_write(std::string_view data) {
    if (tls_) return tls_->write(data);
    return net::write_some(fd_, data);
}

}  // namespace slipstream::store::http
