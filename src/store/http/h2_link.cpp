// H2Link: calls as streams of one HTTP/2 session: requests submitted, the socket read into the session and its
// frames written out, responses delivered with per-stream back-pressure, timeouts, resets, retries, GOAWAY.
#include "store/http/h2_link.h"

#include <sys/epoll.h>

#include <algorithm>

#include "net/event_loop.h"
#include "net/socket.h"
#include "store/http/connection.h"

namespace slipstream::store::http {
namespace {

constexpr std::size_t kReadSize = 16 * 1024;
constexpr std::size_t kWriteChunk = 64 * 1024;

std::string ms_text(std::int64_t ns) {
    return std::to_string(ns / 1'000'000) + " ms";
}

}  // namespace

H2Link::H2Link(Connection& conn)
    : conn_(conn), client_(conn.client_), origin_(conn.origin_), session_(conn.client_.options_.h2, *this) {}

H2Link::~H2Link() = default;

void H2Link::start() {
    flush();
    update();
}

// ---- calls in ----

void H2Link::assign(std::shared_ptr<Call> call) {
    call->conn_ = &conn_;
    call->reused_ = served_ > 0;
    call->backing_off_ = false;
    ++call->attempts_;
    call->wait_timer_.cancel();
    call->held_.clear();
    call->h2_ended_ = false;
    call->body_bytes_ = 0;
    if (served_ > 0) ++client_.counters_.reused;
    ++served_;
    ++client_.counters_.h2_streams;

    const Request& r = call->request_;
    std::vector<h2::HeaderField> fields;
    fields.reserve(r.headers.size() + 2);
    const std::string& agent = client_.options_.user_agent;
    if (!call->has_agent_ && !agent.empty()) fields.push_back({"user-agent", agent});
    for (const auto& [name, value] : r.headers)
        fields.push_back({name, value});
    std::string length;
    if (!r.body.empty() || r.method == "POST" || r.method == "PUT" || r.method == "PATCH") {
        length = std::to_string(r.body.size());
        fields.push_back({"content-length", length});
    }
    const std::string authority = call->url_.authority();
    auto id = session_.submit({.method = r.method,
                               .scheme = call->url_.tls ? "https" : "http",
                               .authority = authority,
                               .path = call->url_.target,
                               .headers = fields,
                               .body = r.body});
    if (!id.is_ok()) {
        call->conn_ = nullptr;
        call->finish(base::Status::invalid_argument("http: " + id.status().message()));
        return;
    }
    call->stream_id_ = *id;
    calls_.emplace(*id, call);
    arm(*call, r.timeouts.first_byte_ns, "first-byte");
    flush();
    update();
}

std::shared_ptr<Call> H2Link::find(std::uint32_t id) const {
    auto it = calls_.find(id);
    return it == calls_.end() ? nullptr : it->second;
}

std::shared_ptr<Call> H2Link::detach(std::uint32_t id) {
    auto it = calls_.find(id);
    if (it == calls_.end()) return nullptr;
    std::shared_ptr<Call> call = std::move(it->second);
    calls_.erase(it);
    call->conn_ = nullptr;
    call->io_timer_.cancel();
    freed_ = true;
    return call;
}

std::shared_ptr<Call> H2Link::abort(Call* which) {
    if (which == nullptr) return nullptr;
    const std::uint32_t id = which->stream_id_;
    std::shared_ptr<Call> call = detach(id);
    session_.reset(id, h2::ErrorCode::kCancel);
    flush();
    update();
    drop_if_finished();
    return call;
}

std::vector<std::shared_ptr<Call>> H2Link::take_all() {
    std::vector<std::shared_ptr<Call>> calls;
    for (auto& [id, call] : calls_) {
        call->io_timer_.cancel();
        calls.push_back(std::move(call));
    }
    calls_.clear();
    if (!failed_ && !closing_) {
        closing_ = true;
        session_.shutdown();
        flush();
    }
    return calls;
}

void H2Link::end_call(const std::shared_ptr<Call>& call, base::Status status) {
    call->finish(std::move(status));
}

void H2Link::fail_call(std::uint32_t id, base::Status status, bool unprocessed) {
    std::shared_ptr<Call> call = detach(id);
    if (!call) return;
    if (client_.maybe_retry(call, status, unprocessed)) return;
    end_call(call, std::move(status));
}

// ---- timers ----

void H2Link::arm(Call& call, std::int64_t ns, const char* phase) {
    call.io_phase_ = phase;
    call.io_ns_ = ns;
    if (ns <= 0) {
        call.io_timer_.cancel();
        return;
    }
    call.io_timer_.set_callback([weak = call.weak_from_this()] {
        std::shared_ptr<Call> c = weak.lock();
        if (!c || c->done_ || c->conn_ == nullptr || !c->conn_->h2_) return;
        c->conn_->h2_->on_call_timer(c);
    });
    client_.loop_.schedule_after(call.io_timer_, ns);
}

void H2Link::on_call_timer(const std::shared_ptr<Call>& call) {
    if (call->paused_ && call->head_seen_) return;  // the idle timeout does not run while the reader holds back
    const std::uint32_t id = call->stream_id_;
    detach(id);
    session_.reset(id, h2::ErrorCode::kCancel);
    flush();
    end_call(call, base::Status::timeout("http: " + origin_.key + " sent nothing for " + ms_text(call->io_ns_) + " (" +
                                         call->io_phase_ + " timeout)"));
    update();
}

void H2Link::on_idle_timer() {
    if (!calls_.empty() || failed_) return;
    ++client_.counters_.expired;
    closing_ = true;
    session_.shutdown();
    flush();
    finish_close();
}

// ---- back-pressure ----

void H2Link::pause_changed(Call* which) {
    std::shared_ptr<Call> call = which != nullptr ? find(which->stream_id_) : nullptr;
    if (!call || call.get() != which) return;
    if (call->paused_) {
        if (call->head_seen_) call->io_timer_.cancel();
        return;
    }
    if (!call->held_.empty()) {
        std::string data = std::move(call->held_);
        call->held_.clear();
        deliver(call, data);
        if (call->done_ || call->paused_) {
            flush();
            update();
            return;
        }
    }
    if (call->h2_ended_) {
        detach(call->stream_id_);
        end_call(call, base::Status::ok());
        drop_if_finished();
    } else if (call->head_seen_) {
        arm(*call, call->request_.timeouts.idle_ns, "idle");
    }
    flush();
    update();
}

void H2Link::deliver(const std::shared_ptr<Call>& call, std::string_view data) {
    session_.consume(call->stream_id_, data.size());  // the stream's window reopens only for delivered bytes
    if (call->callbacks_.on_data) call->callbacks_.on_data(data);
}

// ---- the session's events ----

void H2Link::on_response_head(std::uint32_t id, int status, std::span<const h2::HeaderField> fields) {
    std::shared_ptr<Call> call = find(id);
    if (!call) return;
    call->head_seen_ = true;
    ResponseHead head;
    head.status = status;
    head.version_minor = 0;
    head.http2 = true;
    head.headers.reserve(fields.size());
    for (const h2::HeaderField& f : fields)
        head.headers.emplace_back(std::string(f.name), std::string(f.value));
    std::string_view length = head.header("content-length");
    if (!length.empty() && length.size() < 20 && std::stoull(std::string(length)) > client_.options_.max_body_bytes) {
        detach(id);
        session_.reset(id, h2::ErrorCode::kCancel);
        end_call(call, base::Status::out_of_range("http: response body of " + std::string(length) + " bytes from " +
                                                  origin_.key + " is over the limit of " +
                                                  std::to_string(client_.options_.max_body_bytes)));
        return;
    }
    arm(*call, call->request_.timeouts.idle_ns, "idle");
    if (call->paused_) call->io_timer_.cancel();
    if (call->callbacks_.on_head) call->callbacks_.on_head(head);
}

void H2Link::on_response_data(std::uint32_t id, std::string_view data) {
    std::shared_ptr<Call> call = find(id);
    if (!call) return;
    call->body_bytes_ += data.size();
    if (call->body_bytes_ > client_.options_.max_body_bytes) {
        detach(id);
        session_.reset(id, h2::ErrorCode::kCancel);
        end_call(call, base::Status::out_of_range("http: response body from " + origin_.key + " is over the limit of " +
                                                  std::to_string(client_.options_.max_body_bytes)));
        return;
    }
    if (call->paused_ || !call->held_.empty()) {
        call->held_.append(data);  // not consumed: the server stops at the stream's window
        return;
    }
    arm(*call, call->request_.timeouts.idle_ns, "idle");
    deliver(call, data);
}

void H2Link::on_response_end(std::uint32_t id) {
    std::shared_ptr<Call> call = find(id);
    if (!call) return;
    if (call->paused_ || !call->held_.empty()) {
        call->h2_ended_ = true;  // finished once resumed and delivered
        call->io_timer_.cancel();
        freed_ = true;
        return;
    }
    detach(id);
    end_call(call, base::Status::ok());
}

void H2Link::on_stream_error(std::uint32_t id, const h2::ClientStreamError& e) {
    const std::string code(h2::error_code_name(e.code));
    if (e.unprocessed) {
        fail_call(id,
                  base::Status::unavailable("http: " + origin_.key + " did not process the request (" +
                                            std::string(e.reason) + ", " + code + ")"),
                  true);
    } else if (e.remote) {
        fail_call(id, base::Status::unavailable("http: " + origin_.key + " reset the stream (" + code + ")"), false);
    } else {
        fail_call(id,
                  base::Status::invalid_argument("http: bad HTTP/2 response from " + origin_.key + ": " +
                                                 std::string(e.reason) + " (" + code + ")"),
                  false);
    }
}

void H2Link::on_goaway(std::uint32_t, h2::ErrorCode) {
    if (origin_.h2 == &conn_) origin_.h2 = nullptr;
    freed_ = true;  // waiting calls go to a new connection
}

// ---- the socket ----

void H2Link::on_io(std::uint32_t events) {
    if (failed_) return;
    if ((events & EPOLLOUT) != 0) flush();
    if ((events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) != 0 ||
        (conn_.tls_ && conn_.tls_->read_wants_write() && (events & EPOLLOUT) != 0)) {
        read();
    }
    update();
}

void H2Link::read() {
    char buf[kReadSize];
    while (!failed_ && !eof_) {
        auto r = conn_.raw_read(std::span<char>(buf, sizeof buf));
        if (!r.is_ok()) {
            if (net::would_block(r)) break;
            fail_connection(
                base::Status::unavailable("http: connection to " + origin_.key + " failed: " + r.status().message()));
            return;
        }
        if (*r == 0) {
            eof_ = true;
            fail_connection(base::Status::unavailable("http: " + origin_.key + " closed the HTTP/2 connection"));
            return;
        }
        base::Status st = session_.receive(std::string_view(buf, *r));
        if (failed_) return;
        if (!st.is_ok()) {
            flush();  // the GOAWAY, best effort
            fail_connection(
                base::Status::invalid_argument("http: bad HTTP/2 from " + origin_.key + ": " + st.message()));
            return;
        }
        if (*r < sizeof buf && !(conn_.tls_ && conn_.tls_->has_buffered_input())) break;
    }
    flush();
}

void H2Link::flush() {
    if (failed_ || !broken_.is_ok()) return;
    for (;;) {
        if (out_pos_ == out_.size()) {
            out_.clear();
            out_pos_ = 0;
            if (session_.send(out_, kWriteChunk) == 0) return;
        }
        auto r = conn_.raw_write(std::string_view(out_).substr(out_pos_));
        if (!r.is_ok()) {
            if (!net::would_block(r)) {
                broken_ =
                    base::Status::unavailable("http: sending to " + origin_.key + " failed: " + r.status().message());
            }
            return;
        }
        out_pos_ += *r;
    }
}

void H2Link::update() {
    if (failed_ || in_update_) return;
    in_update_ = true;
    if (!broken_.is_ok()) {
        in_update_ = false;
        fail_connection(broken_);
        return;
    }
    while (freed_ && !failed_) {
        freed_ = false;
        client_.dispatch(origin_);  // may assign() here: flush and update run again (update() returns at once)
    }
    in_update_ = false;
    if (failed_) return;
    if (!broken_.is_ok()) {
        fail_connection(broken_);
        return;
    }
    if (calls_.empty() && (session_.goaway_received() || session_.dead())) {
        flush();
        finish_close();
        return;
    }
    if (calls_.empty()) {
        if (!conn_.timer_.scheduled()) conn_.arm(client_.options_.idle_connection_ns, "idle connection");
    } else {
        conn_.timer_.cancel();
    }
    std::uint32_t ev = 0;
    if (!eof_) ev |= EPOLLIN | EPOLLRDHUP;
    if (out_pos_ < out_.size() || session_.want_write()) ev |= EPOLLOUT;
    if (conn_.tls_ && conn_.tls_->read_wants_write()) ev |= EPOLLOUT;
    base::Status s = conn_.watch(ev);
    if (!s.is_ok()) fail_connection(base::Status::unavailable("http: " + s.message()));
}

void H2Link::fail_connection(base::Status status) {
    if (failed_) return;
    failed_ = true;
    if (origin_.h2 == &conn_) origin_.h2 = nullptr;
    std::vector<std::uint32_t> ids;
    for (const auto& [id, call] : calls_)
        ids.push_back(id);
    std::sort(ids.begin(), ids.end());
    conn_.close();
    // A response that ended while its reader was paused is whole: it is delivered at resume(), and the connection
    // (closed) stays known until then.
    bool kept = false;
    for (std::uint32_t id : ids) {
        std::shared_ptr<Call> call = find(id);
        if (call && call->h2_ended_) {
            kept = true;
            continue;
        }
        fail_call(id, status, false);
    }
    if (!kept) client_.drop(&conn_, false);
    if (!client_.closing_) client_.dispatch(origin_);
}

void H2Link::drop_if_finished() {
    if (failed_ && calls_.empty() && conn_.state() == Connection::State::kClosed && !client_.closing_) {
        client_.drop(&conn_);
    }
}

void H2Link::finish_close() {
    if (failed_) return;
    failed_ = true;
    if (origin_.h2 == &conn_) origin_.h2 = nullptr;
    conn_.close();
    client_.drop(&conn_);
}

}  // namespace slipstream::store::http
